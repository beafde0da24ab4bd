// The pipeline-template planners (oobleck, exhaustive, ditto) against brute-force oracles and hand
// computations: the exact search equals an enumeration of every pipeline on tiny clusters, Oobleck's
// templates equal an enumeration on a 2-node, 6-layer case, Ditto's folding matches a hand computation
// for Ex1 and its recovered plans use each GPU at most once and cover every layer once.
#include "testutil.h"
#include "example_request.h"

#include "core/base/errors.h"
#include "core/cost/costmodel.h"
#include "core/io/examples.h"
#include "core/planners/common/oobleck_templates.h"
#include "core/planners/common/stage_costs.h"
#include "core/planners/common/template_placement.h"
#include "core/planners/ditto/folding.h"
#include "core/planners/common/exact_pipeline.h"
#include "core/planners/planner.h"

#include <QTest>

#include <cmath>
#include <functional>

using namespace hetplan;

namespace {

// Layers of uneven cost so that where the cuts go matters.
ModelSpec unevenModel(int layers, double paramsPerLayer)
{
    ModelSpec m = test::toyModel(layers, 1e12, paramsPerLayer, 4e6);
    for (int l = 0; l < layers; ++l)
        m.layers[l].forwardFlops = 1e12 * (1 + (l * 7) % 5);
    return m;
}

// Every pipeline: every split of the layers into stages, every (type, g) per stage within `available`;
// the best T among those whose stages all fit memory.
double bruteForce(const StageCosts& costs, const std::vector<int>& available, const Job& job)
{
    const int L = costs.layers();
    double best = kNoStage;
    for (int cuts = 0; cuts < (1 << (L - 1)); ++cuts) {
        std::vector<int> bounds{0};
        for (int l = 1; l < L; ++l)
            if (cuts & (1 << (l - 1)))
                bounds.push_back(l);
        bounds.push_back(L);
        const int S = int(bounds.size()) - 1;
        std::vector<int> used(available.size(), 0);
        std::vector<double> times(S);
        std::function<void(int)> assign = [&](int s) {
            if (s == S) {
                best = std::min(best, templateObjective(times, costs.microBatches()).total());
                return;
            }
            for (int i = 0; i < costs.typeCount(); ++i)
                for (int g = 1; g <= costs.maxGpus(i) && used[i] + g <= available[i]; ++g) {
                    const StageChoice c =
                        costs.best(i, g, bounds[s], bounds[s + 1], stageInFlight(job, s, S, costs.microBatches()));
                    if (!c.ok())
                        continue;
                    used[i] += g;
                    times[s] = c.time;
                    assign(s + 1);
                    used[i] -= g;
                }
        };
        assign(0);
    }
    return best;
}

// Oobleck's template space by enumeration: every split of the layers into S stages and every GPU count
// per stage such that the stages fill n nodes of M GPUs in order without crossing a node boundary.
double bruteForceTemplate(const StageCosts& costs, const Job& job, int M, int nodes, int stages)
{
    const int L = costs.layers();
    double best = kNoStage;
    for (int cuts = 0; cuts < (1 << (L - 1)); ++cuts) {
        std::vector<int> bounds{0};
        for (int l = 1; l < L; ++l)
            if (cuts & (1 << (l - 1)))
                bounds.push_back(l);
        bounds.push_back(L);
        if (int(bounds.size()) - 1 != stages)
            continue;
        std::vector<double> times(stages);
        std::function<void(int, int)> assign = [&](int s, int used) {
            if (s == stages) {
                if (used == nodes * M)
                    best = std::min(best, templateObjective(times, costs.microBatches()).total());
                return;
            }
            for (int g = 1; g <= M && used + g <= nodes * M; ++g) {
                if (used / M != (used + g - 1) / M)
                    continue; // would cross a node boundary
                const StageChoice c =
                    costs.best(0, g, bounds[s], bounds[s + 1], stageInFlight(job, s, stages, costs.microBatches()));
                if (!c.ok())
                    continue;
                times[s] = c.time;
                assign(s + 1, used + g);
            }
        };
        assign(0, 0);
    }
    return best;
}

struct Tiny {
    const char* tag;
    const char* typeA;
    int gpusA;
    const char* typeB;
    int gpusB;
    double paramsPerLayer; // large values make memory bind
    int layers;
    int mbs, gbs;
};

} // namespace

class TestTemplatePlanners : public QObject {
    Q_OBJECT
private slots:
    void objectiveHandComputed()
    {
        // Stages 1.0, 3.0, 2.0 with N_b = 5: T1 = 6; the slowest is stage 2 (k* = 2), so
        // T2 = (5 - 3 + 2 - 1) * 3 = 9 and T3 = (3 - 2) * 3 = 3: T = 18 = 6 + (5 - 1) * 3.
        const TemplateObjective o = templateObjective({1.0, 3.0, 2.0}, 5);
        QCOMPARE(o.t1, 6.0);
        QCOMPARE(o.t2, 9.0);
        QCOMPARE(o.t3, 3.0);
        QCOMPARE(o.slowest, 1);
        QCOMPARE(o.total(), 18.0);
        // Ties pick the last slowest stage: 2, 2 with N_b = 3 → k* = 2, T2 = (3 - 2 + 2 - 1) * 2 = 4, T3 = 0.
        const TemplateObjective tie = templateObjective({2.0, 2.0}, 3);
        QCOMPARE(tie.slowest, 1);
        QCOMPARE(tie.total(), 8.0);
    }

    void exactEqualsBruteForce_data()
    {
        QTest::addColumn<int>("index");
        for (int i = 0; i < int(tinies().size()); ++i)
            QTest::newRow(tinies()[i].tag) << i;
    }

    void exactEqualsBruteForce()
    {
        QFETCH(int, index);
        const Tiny t = tinies()[index];
        const Cluster cluster = test::twoNodeCluster(t.typeA, t.gpusA, t.typeB, t.gpusB);
        const ModelSpec model = unevenModel(t.layers, t.paramsPerLayer);
        Job job;
        job.globalBatchSize = t.gbs;
        job.sequenceLength = 1;
        const CostModel costs(model, job, {});
        const std::vector<TypeGroup> groups = typeGroups(cluster);
        const StageCosts sc(costs, job, groupTypes(groups), groupNodeSizes(groups), t.mbs, t.gbs / t.mbs);
        std::vector<int> available;
        for (const TypeGroup& g : groups)
            available.push_back(g.gpus);
        if (t.paramsPerLayer >= 3e8) // the memory cases must really bind: the whole model fits no single GPU
            for (int i = 0; i < sc.typeCount(); ++i)
                QVERIFY(!sc.best(i, 1, 0, t.layers, 1).ok());
        const double oracle = bruteForce(sc, available, job);
        const ExactResult r = exactPipeline(sc, available, job, nullptr);
        if (std::isinf(oracle)) {
            QVERIFY(r.stages.empty());
            return;
        }
        QVERIFY(!r.stages.empty());
        QVERIFY2(std::abs(r.objective - oracle) <= 1e-12 * oracle,
                 qPrintable(QString("exact %1, brute force %2").arg(r.objective).arg(oracle)));
        // The returned stages reproduce the objective and respect the GPU counts.
        QVERIFY(std::abs(templateObjective(stageTimes(r.stages), sc.microBatches()).total() - oracle) <=
                1e-12 * oracle);
        std::vector<int> used(available.size(), 0);
        for (const TemplateStage& s : r.stages)
            used[s.type] += s.gpus;
        for (size_t i = 0; i < used.size(); ++i)
            QVERIFY(used[i] <= available[i]);
    }

    void oobleckTemplatesEqualBruteForce_data()
    {
        QTest::addColumn<int>("gpusPerNode");
        QTest::addColumn<double>("paramsPerLayer");
        QTest::newRow("2 nodes x 2 GPUs") << 2 << 1e6;
        QTest::newRow("2 nodes x 4 GPUs") << 4 << 1e6;
        QTest::newRow("2 nodes x 2 GPUs, memory binds") << 2 << 2.5e8;
    }

    void oobleckTemplatesEqualBruteForce()
    {
        // 2 nodes, 6 layers: every (node count, stage count) entry of the table equals the enumeration.
        QFETCH(int, gpusPerNode);
        QFETCH(double, paramsPerLayer);
        const ModelSpec model = unevenModel(6, paramsPerLayer);
        Job job;
        job.globalBatchSize = 16;
        job.sequenceLength = 1;
        const CostModel costs(model, job, {});
        const StageCosts sc(costs, job, {"V100-16GB"}, {gpusPerNode}, gpusPerNode, 16 / gpusPerNode);
        const TemplateTable table = generateTemplates(sc, {0, gpusPerNode, 2 * gpusPerNode, false, false}, nullptr);
        int compared = 0;
        for (int nodes = 1; nodes <= 2; ++nodes)
            for (int stages = 1; stages <= 6; ++stages) {
                const double oracle = bruteForceTemplate(sc, job, gpusPerNode, nodes, stages);
                const PipelineTemplate* t = table.at(nodes * gpusPerNode, stages);
                QCOMPARE(t != nullptr, !std::isinf(oracle));
                if (!t)
                    continue;
                ++compared;
                const double T = t->objective(sc.microBatches());
                QVERIFY2(std::abs(T - oracle) <= 1e-12 * oracle,
                         qPrintable(
                             QString("n %1 S %2: table %3, brute force %4").arg(nodes).arg(stages).arg(T).arg(oracle)));
                QCOMPARE(int(t->stages.size()), stages);
            }
        QVERIFY(compared >= 4); // the case is not vacuous
        if (paramsPerLayer > 1e8)
            QVERIFY(!sc.best(0, 1, 0, 6, 1).ok()); // and memory really binds
    }

    void dittoFoldingEx1()
    {
        // Ex1 = 2 x 2 V100 + 2 x 2 RTX 3090 with the gpt2-xl-ditto profile, whose per-layer times are the
        // 4090's times x 3.8 / throughput (V100 1.0, 3090 2.0). So c_V100 / c_3090 = (3.8 / 1.0) / (3.8 / 2.0)
        // = 2: the V100 is the weakest type (d = 1), a 3090 folds to round(2.0) = 2 V100s, and the virtual
        // cluster has V = 4 x 1 + 4 x 2 = 12 GPUs, 6 virtual nodes of 2.
        const PlanRequest req = dittoRequest("ditto-ex1");
        const CostModel costs(req.model, req.job, req.profile);
        const std::vector<TypeGroup> groups = typeGroups(req.cluster);
        const StageCosts sc(costs, req.job, groupTypes(groups), groupNodeSizes(groups), 2, 64);
        const Folding f = foldPlain(sc, groups);
        QCOMPARE(groups[f.weakest].type, std::string("V100-16GB"));
        QCOMPARE(f.modelSeconds[0] / f.modelSeconds[1], 2.0);
        QCOMPARE(f.d, (std::vector<int>{1, 2}));
        QCOMPARE(f.virtualGpus, 12);
        QCOMPARE(f.gpusPerNode, 2);
        // With communication (5.3.2) a 3090 folds to at most as many; p(1) on the weakest is c_w itself.
        const Folding comm = foldWithComm(sc, groups, req.cluster, req.model, req.job);
        QCOMPARE(comm.d[0], 1);
        QVERIFY(comm.d[1] >= 1 && comm.d[1] <= 2);
        const FoldingComm terms = foldingComm(sc, groups, req.cluster, req.model, req.job, f.weakest);
        QCOMPARE(terms.p(1), f.modelSeconds[0]);
    }

    void recoveredPlansValid_data()
    {
        QTest::addColumn<QString>("example");
        QTest::addColumn<QString>("recovery");
        for (int e = 1; e <= 5; ++e)
            for (const char* r : {"dp", "greedy"})
                QTest::newRow(qPrintable(QString("ditto-ex%1 %2").arg(e).arg(r)))
                    << QString("ditto-ex%1").arg(e) << QString(r);
    }

    void recoveredPlansValid()
    {
        // Every layer exactly once, each GPU at most once, every stage within its GPUs' memory.
        QFETCH(QString, example);
        QFETCH(QString, recovery);
        PlanRequest req = dittoRequest(example.toStdString());
        req.options["recovery"] = recovery.toStdString();
        Progress progress;
        const Plan plan = runPlanner("ditto", req, progress);
        // Memory by the simulator's verdict: testutil's check charges a stage's whole micro-batch to each of
        // its data-parallel ranks, the simulator (and the planners) split it.
        test::checkPipelineInvariants(plan);
        QVERIFY(plan.estimate.feasible);
        QCOMPARE(plan.details.at("ditto").value("recovery").toString(), recovery);
    }

    void greedyFallsBackToFewerVirtualGpus()
    {
        // Ex2 folds to V = 4·1 + 4·2 + 4·3 = 24 virtual GPUs (V100 d = 1, 3090 d = 2, A6000 d = 3) on nodes of
        // M = 2. Every stage needs at least one real GPU, so a recovered template has at most 12 stages; a
        // 24-GPU template with at most M = 2 virtual GPUs per stage has at least 12: exactly 12 stages of 2.
        // Algorithm 1 gives a stage of 2 virtual GPUs ceil(2 / d_i) real ones: 1 A6000, 1 3090 or 2 V100s, so
        // the 12 real GPUs cover 4 + 4 + 2 = 10 < 12 stages. The full template cannot be recovered; the
        // greedy falls back to a template of fewer virtual GPUs.
        PlanRequest req = dittoRequest("ditto-ex2");
        req.options["recovery"] = "greedy";
        req.options["pipelines"] = "1"; // the paper's one pipeline on all 24 virtual GPUs
        Progress progress;
        const Plan plan = runPlanner("ditto", req, progress);
        const QJsonObject d = plan.details.at("ditto");
        const int virt = d.value("virtual_template").toObject().value("virtual_gpus").toInt();
        QCOMPARE(d.value("folding").toObject().value("virtual_gpus").toInt(), 24);
        QVERIFY(virt >= 1 && virt < 24);
        test::checkPipelineInvariants(plan);
        // The DP recovery is never worse on the paper's objective T (it searches a superset of merges).
        req.options["recovery"] = "dp";
        const Plan dp = runPlanner("ditto", req, progress);
        QVERIFY(dp.details.at("ditto").value("T").toDouble() <= d.value("T").toDouble() + 1e-9);
    }

    void withoutEveryNode_data()
    {
        QTest::addColumn<QString>("example");
        for (int e = 1; e <= 5; ++e)
            QTest::newRow(qPrintable(QString("ditto-ex%1").arg(e))) << QString("ditto-ex%1").arg(e);
    }

    void withoutEveryNode()
    {
        // Each single node failure of each example: a valid plan on the remaining GPUs, or "does not fit".
        QFETCH(QString, example);
        const PlanRequest full = dittoRequest(example.toStdString());
        int planned = 0;
        for (const Node& failed : full.cluster.nodes) {
            PlanRequest req = full;
            req.cluster = withoutNodes(full.cluster, {failed.name}, "--without");
            Progress progress;
            try {
                const Plan plan = runPlanner("ditto", req, progress);
                test::checkPipelineInvariants(plan);
                QVERIFY(plan.estimate.feasible);
                for (int g : plan.usedGpus())
                    QVERIFY(plan.cluster.nodeOf(g).name != failed.name);
                ++planned;
            } catch (const InfeasibleError&) {
            }
        }
        QVERIFY(planned > 0);
    }

    void replanReusesTemplates()
    {
        // Ex3 minus one 4090 node, re-instantiated from the first plan's stored virtual templates: the
        // paper's shape (one pipeline, one micro-batch size, no exact search) so both runs recover the same way.
        PlanRequest full = dittoRequest("ditto-ex3");
        full.options = {{"pipelines", "1"}, {"mbs", "2"}, {"exact_below", "0"}};
        test::usePaperSpace(full.options);
        Progress p1, p2;
        const Plan first = runPlanner("ditto", full, p1);
        PlanRequest again = full;
        again.cluster = withoutNodes(full.cluster, {"rtx4090-0"}, "--without");
        again.reuse = first.details;
        const Plan second = runPlanner("ditto", again, p2);
        QVERIFY(second.details.at("ditto").value("reused").toBool());
        QVERIFY(!first.details.at("ditto").value("reused").toBool());
        test::checkPipelineInvariants(second);
        QVERIFY(second.estimate.feasible);
        // The same plan as searching afresh on the smaller cluster would give (the stored template of that
        // size is the one the search makes).
        PlanRequest fresh = again;
        fresh.reuse.clear();
        Progress p3;
        const Plan searched = runPlanner("ditto", fresh, p3);
        QCOMPARE(second.pipelines, searched.pipelines);
    }

    void dittoDpWithinEightPercentOfExhaustive()
    {
        // The paper's claim on its own objective T, on the smallest example (the others run in the bench).
        const PlanRequest req = dittoRequest("ditto-ex1");
        PlanRequest exhaustive = req;
        exhaustive.options.clear(); // exhaustive searches Ditto's space only: it has no Megatron options
        Progress p1, p2;
        const Plan ditto = runPlanner("ditto", req, p1);
        const Plan exact = runPlanner("exhaustive", exhaustive, p2);
        QVERIFY(*exact.plannerEstimate <= *ditto.plannerEstimate * (1 + 1e-12));
        QVERIFY(*ditto.plannerEstimate <= *exact.plannerEstimate * 1.08);
    }

    void dittoNeverWorseThanExhaustiveWhereExactFits()
    {
        // ditto-ex3 with the analytic model: the recovery ranks micro-batch 1 first, but the exact optimum
        // is at micro-batch 2. Both shapes' exact searches (80,325 states each) fit the default budget of
        // 2,000,000, so ditto's search contains exhaustive's and its T can be no larger.
        const PlanRequest req = test::exampleRequest("ditto-ex3", "gpt2-xl", 128);
        Progress p1, p2;
        const Plan ditto = runPlanner("ditto", test::paperSpace(req), p1);
        const Plan exact = runPlanner("exhaustive", req, p2);
        QVERIFY2(*ditto.plannerEstimate <= *exact.plannerEstimate * (1 + 1e-12),
                 (std::to_string(*ditto.plannerEstimate) + " vs " + std::to_string(*exact.plannerEstimate)).c_str());
    }

private:
    // Ditto's and Oobleck's own space: these tests are about their algorithms.
    static PlanRequest dittoRequest(const std::string& cluster)
    {
        PlanRequest req = test::paperSpace(test::exampleRequest(cluster, "gpt2-xl", 128));
        req.profile = exampleProfile("gpt2-xl-ditto", req.model, req.job);
        return req;
    }

    static std::vector<Tiny> tinies()
    {
        return {
            {"T4x2 + A100x2, 6 layers", "T4", 2, "A100-40GB", 2, 1e6, 6, 2, 16},
            {"V100x4 + 3090x2, 5 layers", "V100-16GB", 4, "RTX-3090", 2, 1e6, 5, 4, 32},
            {"memory binds: V100x2 + 3090x2", "V100-16GB", 2, "RTX-3090", 2, 3.5e8, 6, 2, 8},
            {"memory binds hard: T4x1 + T4x2", "T4", 1, "T4", 2, 4e8, 6, 1, 8},
            {"nothing fits", "T4", 1, "T4", 1, 2e9, 4, 1, 4},
        };
    }
};

QTEST_GUILESS_MAIN(TestTemplatePlanners)
#include "tst_template_planners.moc"
