// The current plan as the views get it: simulated once from the document's current plan, with its run's
// plans and failed planners; without a plan, the current cluster and cost model; a run without a plan shown
// through showRun(); and the plan-view list, whose every entry draws from it.
#include "testutil.h"

#include "core/io/examples.h"
#include "core/planners/planner.h"
#include "core/sim/simulator.h"
#include "widgets/controller/project_document.h"
#include "widgets/models/current_plan.h"
#include "widgets/views/plan_view.h"

#include <QSignalSpy>
#include <QTest>
#include <QWidget>

#include <memory>
#include <set>

using namespace hetplan;

namespace {

// amp-het-cluster / gpt2-amp with one run: a uniform plan, an infeasible planner and a second plan.
int seedRun(ProjectDocument& doc)
{
    doc.loadExample("amp-het-cluster", "gpt2-amp");
    PlanRequest req;
    req.cluster = *doc.cluster();
    req.model = doc.model()->model;
    req.job = doc.job()->job;
    req.profile = doc.model()->profile;
    Run run{0, doc.cluster()->name, doc.model()->model.name, doc.job()->name, "2026-11-29T00:00:00Z", {}};
    for (const char* planner : {"uniform", "data-parallel"}) {
        Progress progress;
        RunResult r;
        r.planner = planner;
        r.plan = runPlanner(planner, req, progress);
        run.results.push_back(r);
    }
    RunResult failed;
    failed.planner = "hap";
    failed.status = RunStatus::Infeasible;
    failed.message = "nothing fits";
    run.results.insert(run.results.begin() + 1, failed);
    return doc.addRun(run);
}

} // namespace

class TestCurrentPlan : public QObject {
    Q_OBJECT
private slots:
    void holdsThePlanItsSimulationAndItsRun()
    {
        ProjectDocument doc;
        const int id = seedRun(doc);
        CurrentPlan current(&doc);
        QSignalSpy changed(&current, &CurrentPlan::changed);
        doc.setCurrentPlan(PlanRef{id, 2});
        QCOMPARE(changed.count(), 1);
        QVERIFY(current.plan());
        QCOMPARE(current.plan()->planner, std::string("data-parallel"));
        // The simulation is the shared simulator's, with its timeline, of that plan.
        const Plan& p = *doc.plan(PlanRef{id, 2});
        const SimResult direct = simulate(p, CostModel(p.model, p.job, p.profile), SimOptions{true});
        QVERIFY(current.simulation());
        QCOMPARE(current.simulation()->iterationSeconds, direct.iterationSeconds);
        QCOMPARE(current.simulation()->events.size(), direct.events.size());
        QVERIFY(!direct.events.empty());
        QVERIFY(current.costs());
        QCOMPARE(current.cluster()->name, p.cluster.name);
        // The run: both plans in order, and the planner that gave none with its status and reason.
        QCOMPARE(current.runPlans().size(), size_t(2));
        QCOMPARE(current.runPlans()[0].planner, std::string("uniform"));
        QCOMPARE(current.failures().size(), size_t(1));
        QCOMPARE(current.failures()[0], (PlannerFailure{"hap", "infeasible", "nothing fits"}));
        QVERIFY(current.error().isEmpty());
    }

    void madeWhenAPlanIsCurrentAlready()
    {
        ProjectDocument doc;
        const int id = seedRun(doc);
        doc.setCurrentPlan(PlanRef{id, 0});
        const CurrentPlan current(&doc);
        QCOMPARE(current.plan()->planner, std::string("uniform"));
        QCOMPARE(current.runPlans().size(), size_t(2));
        QCOMPARE(current.failures().size(), size_t(1));
    }

    void unrelatedChangesRedrawNothing()
    {
        // Without a plan only the current cluster, model and job are drawn: a run added or an item renamed
        // that is not current does not redraw.
        ProjectDocument doc;
        doc.loadExample("amp-het-cluster", "gpt2-amp");
        CurrentPlan current(&doc);
        QSignalSpy changed(&current, &CurrentPlan::changed);
        doc.addRun(Run{0, "x", "y", "z", "", {}});
        Cluster other;
        other.name = "other";
        doc.setCluster(other); // made current: drawn
        QCOMPARE(changed.count(), 1);
        QCOMPARE(current.cluster()->name, std::string("other"));
        QVERIFY(doc.renameItem(ItemKind::Job, doc.job()->name, "renamed job")); // same job values
        QCOMPARE(changed.count(), 1);
    }

    void withoutAPlanTheCurrentClusterAndCosts()
    {
        ProjectDocument doc;
        doc.loadExample("amp-het-cluster", "gpt2-amp");
        CurrentPlan current(&doc);
        QVERIFY(!current.plan());
        QVERIFY(!current.simulation());
        QVERIFY(current.cluster() && current.costs());
        QCOMPARE(current.cluster()->name, doc.cluster()->name);
        QCOMPARE(current.costs()->job().globalBatchSize, doc.job()->job.globalBatchSize);
        // An edit of the job is drawn at once (the curves view without a plan).
        QSignalSpy changed(&current, &CurrentPlan::changed);
        NamedJob j = *doc.job();
        j.job.globalBatchSize *= 2;
        doc.setJob(j);
        QVERIFY(changed.count() >= 1);
        QCOMPARE(current.costs()->job().globalBatchSize, j.job.globalBatchSize);
        doc.newProject(); // nothing to draw
        QVERIFY(!current.cluster() && !current.costs());
    }

    void showRunKeepsThePlanAndListsTheFailures()
    {
        ProjectDocument doc;
        const int id = seedRun(doc);
        doc.setCurrentPlan(PlanRef{id, 0});
        Run empty{0, doc.cluster()->name, doc.model()->model.name, doc.job()->name, "", {}};
        RunResult r;
        r.planner = "amp";
        r.status = RunStatus::Cancelled;
        r.message = "cancelled before it started";
        empty.results.push_back(r);
        const int second = doc.addRun(empty);
        CurrentPlan current(&doc);
        current.showRun(second);
        QCOMPARE(current.plan()->planner, std::string("uniform")); // the plan stays in the other views
        QVERIFY(current.runPlans().empty());
        QCOMPARE(current.failures().size(), size_t(1));
        QCOMPARE(current.failures()[0].status, QStringLiteral("cancelled"));
        doc.setCurrentPlan(PlanRef{id, 2}); // a plan chosen again shows its own run
        QCOMPARE(current.runPlans().size(), size_t(2));
    }

    void everyPlanViewDrawsFromIt()
    {
        ProjectDocument doc;
        const int id = seedRun(doc);
        CurrentPlan current(&doc);
        std::set<QString> ids;
        for (const PlanViewEntry& entry : planViews()) {
            QVERIFY2(ids.insert(entry.id).second, qPrintable("two views named " + entry.id));
            QVERIFY(!entry.label.isEmpty());
            std::unique_ptr<QWidget> view(entry.make());
            attachPlanView(view.get(), &current); // throws unless the view implements CurrentPlanView
            doc.setCurrentPlan(PlanRef{id, 0});
            doc.setCurrentPlan(std::nullopt);
        }
        QWidget notAView;
        QVERIFY_THROWS_EXCEPTION(std::logic_error, attachPlanView(&notAView, &current));
    }
};

QTEST_MAIN(TestCurrentPlan)
#include "tst_current_plan.moc"
