// `metis` (core/planners/metis): per-stage GPU type, dp and tp. Its plans keep the pipeline invariants,
// every stage sits on one device type, it is never beaten by the planners whose spaces it contains (amp,
// hethub), and on the peer problem (when ../shared/data is beside the repository) it finds a plan at least
// as fast as the one Metis itself published for it.
#include "example_request.h"
#include "testutil.h"

#include "core/io/json_io.h"
#include "core/sim/simulator.h"

#include <QFileInfo>
#include <QTest>

#include <set>

using namespace hetplan;

namespace {
Plan run(const std::string& planner, const PlanRequest& req)
{
    Progress progress;
    return runPlanner(planner, req, progress);
}

std::set<std::string> stageTypes(const Plan& plan, const Stage& st)
{
    std::set<std::string> types;
    for (int g : st.gpus)
        types.insert(plan.cluster.nodeOf(g).deviceType);
    return types;
}
} // namespace

class TestMetis : public QObject {
    Q_OBJECT
private slots:
    void plansKeepTheInvariantsAndBeatTheContainedPlanners_data()
    {
        QTest::addColumn<QString>("cluster");
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("batch");
        QTest::newRow("amp-het gpt2") << "amp-het-cluster" << "gpt2-amp" << 32;
        QTest::newRow("ditto-ex3 gpt2-xl") << "ditto-ex3" << "gpt2-xl" << 64;
        QTest::newRow("ditto-ex5 gpt2-xl") << "ditto-ex5" << "gpt2-xl" << 32;
        QTest::newRow("hethub-3types opt-350m") << "hethub-3types" << "opt-350m" << 96;
    }
    void plansKeepTheInvariantsAndBeatTheContainedPlanners()
    {
        QFETCH(QString, cluster);
        QFETCH(QString, model);
        QFETCH(int, batch);
        const PlanRequest req = test::exampleRequest(cluster.toStdString(), model.toStdString(), batch);
        const Plan plan = run("metis", req);
        const CostModel costs(req.model, req.job, req.profile);
        test::checkPipelineInvariants(plan, &costs);
        QVERIFY(plan.estimate.feasible);
        QCOMPARE(plan.samplesPerIteration(), (long long)batch);
        QVERIFY(plan.details.count("metis"));
        const bool fromTemplate = plan.details.at("metis").contains("template");
        for (const Pipeline& pl : plan.pipelines)
            for (const Stage& st : pl.stages) {
                // A template's stages sit on one type each; amp's and hethub's stages may mix types.
                if (fromTemplate)
                    QCOMPARE(int(stageTypes(plan, st).size()), 1);
                QCOMPARE(int(st.gpus.size()), pl.replicas * st.dataParallel * st.tensorParallel);
            }
        for (const std::string contained : {"amp", "hethub"}) {
            try {
                const Plan other = run(contained, req);
                QVERIFY2(plan.estimate.iterationSeconds <= other.estimate.iterationSeconds * (1 + 1e-9),
                         (contained + " beats metis").c_str());
            } catch (const InfeasibleError&) {
            }
        }
    }

    void stagesTakeTheirOwnShapes()
    {
        // Twelve V100s and four T4s: the best template on its own (AMP and HetHub not scored) puts stages
        // on both types, the T4s taking fewer layers per GPU.
        PlanRequest req = test::exampleRequest("amp-het-cluster", "gpt2-amp", 32);
        req.options["uniform_shapes"] = "false";
        const Plan plan = run("metis", req);
        std::set<std::string> types;
        for (const Stage& st : plan.pipelines.at(0).stages)
            types.merge(stageTypes(plan, st));
        QCOMPARE(int(types.size()), 2); // both V100 and T4 stages
        QVERIFY(plan.details.at("metis").contains("template"));
        QVERIFY(plan.plannerEstimate.has_value());
    }

    void peerProblemAtLeastAsFastAsMetisOwnPlan()
    {
        const QString dir = QString::fromStdString(test::sourceDir()) + "/../shared/data/peer-problem/";
        if (!QFileInfo::exists(dir + "metis-plan.json"))
            QSKIP("shared/data/peer-problem not beside the repository");
        PlanRequest req;
        req.cluster = readCluster((dir + "cluster.json").toStdString());
        req.model = readModel((dir + "model.json").toStdString());
        req.job = readJob((dir + "job.json").toStdString());
        req.profile = readProfile((dir + "profile.json").toStdString());
        const Plan plan = run("metis", req);
        Plan theirs = readPlan((dir + "metis-plan.json").toStdString());
        const CostModel costs(theirs.model, theirs.job, req.profile);
        scorePlan(theirs, costs);
        QVERIFY2(plan.estimate.iterationSeconds <= theirs.estimate.iterationSeconds,
                 qPrintable(QString("metis %1 s, Metis's plan %2 s")
                                .arg(plan.estimate.iterationSeconds)
                                .arg(theirs.estimate.iterationSeconds)));
    }
};

QTEST_GUILESS_MAIN(TestMetis)
#include "tst_metis.moc"
