// Marking nodes failed on the canvas and re-planning: the undoable command, the node's
// context menu and drawing state, the flag surviving save → open, and the ReplanController driven against
// a real ditto plan of ditto-ex3 (a plan without the failed node's GPUs, equal to planning with --without;
// a remaining cluster with no plan changes nothing).
#include "canvas_fixtures.h"
#include "testutil.h"

#include "core/io/examples.h"
#include "widgets/commands/cluster_fields.h"
#include "widgets/models/cluster_document.h"
#include "widgets/canvas/cluster_editor.h"
#include "widgets/canvas/cluster_scene.h"
#include "widgets/canvas/cluster_view.h"
#include "widgets/canvas/property_panel.h"
#include "widgets/controller/project_document.h"
#include "widgets/controller/replan_controller.h"

#include <QContextMenuEvent>
#include <QMenu>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>
#include <memory>
#include <numeric>

using namespace hetplan;

namespace {
constexpr int kRtx4090_0 = 9; // ditto-ex3's node order: 4 V100, 3 RTX 3090, 2 A6000, 2 RTX 4090

// A project on ditto-ex3 / gpt2-xl with Ditto's example profile and one run holding a ditto plan (made
// synchronously here, as the Run tab would make it), which is the current plan.
void seedProject(ProjectDocument& doc)
{
    doc.loadExample("ditto-ex3", "gpt2-xl");
    Job job = doc.job()->job;
    job.globalBatchSize = 128;
    job.sequenceLength = doc.model()->model.arch.sequence;
    doc.setJob({doc.job()->name, job});
    doc.setProfile(doc.model()->model.name, exampleProfile("gpt2-xl-ditto", doc.model()->model, job));
    PlanRequest req;
    req.cluster = *doc.cluster();
    req.model = doc.model()->model;
    req.job = job;
    req.profile = doc.model()->profile;
    Progress progress;
    RunResult r;
    r.planner = "ditto";
    r.plan = runPlanner("ditto", req, progress);
    r.options = r.plan->options;
    Run run{0, doc.cluster()->name, doc.model()->model.name, doc.job()->name, "2026-11-23T00:00:00Z", {r}};
    const int id = doc.addRun(run);
    doc.setCurrentPlan(PlanRef{id, 0});
}

// Marks nodes failed (or healthy) in the project's current cluster through the canvas's document, as
// the node menu does (one step per node).
void markNodes(ProjectDocument& doc, const std::vector<int>& nodes, bool failed = true)
{
    ClusterDocument* canvas = doc.clusterDocument();
    for (int i : nodes)
        doc.undoStack()->push(changeValue(canvas, i, failed ? nodeField::markFailed : nodeField::markHealthy, failed));
}
} // namespace

class TestReplan : public QObject {
    Q_OBJECT
private slots:
    void markFailedIsOneUndoStep()
    {
        QUndoStack stack;
        ClusterEditor editor(&stack);
        editor.setCluster(test::triangle()); // links a-b, b-c, a-c
        ClusterScene* scene = editor.scene();
        QVERIFY(editor.setNodeFailed(1, true));
        QCOMPARE(stack.count(), 1);
        QCOMPARE(stack.text(0), QString("Mark b failed"));
        QVERIFY(editor.cluster().nodes[1].failed);
        QVERIFY(scene->nodeItem(1)->node().failed);
        // The links that touch b are drawn dead, a-c is not.
        QVERIFY(scene->linkItem(0)->touchesFailedNode());
        QVERIFY(scene->linkItem(1)->touchesFailedNode());
        QVERIFY(!scene->linkItem(2)->touchesFailedNode());
        QVERIFY(!editor.setNodeFailed(1, true)); // already failed: no step
        QVERIFY(!editor.setNodeFailed(7, true)); // no such node
        QCOMPARE(stack.count(), 1);

        stack.undo();
        QVERIFY(!editor.cluster().nodes[1].failed);
        QVERIFY(!scene->nodeItem(1)->node().failed);
        QVERIFY(!scene->linkItem(0)->touchesFailedNode());
        stack.redo();
        QVERIFY(editor.cluster().nodes[1].failed);
        QCOMPARE(editor.cluster().nodes.size(), size_t(3)); // a state, not a deletion
        QCOMPARE(editor.cluster().links.size(), size_t(3));

        QVERIFY(editor.setNodeFailed(1, false));
        QCOMPARE(stack.text(1), QString("Mark b healthy"));
        QCOMPARE(editor.cluster(), test::triangle());
    }

    void nodeMenuOffersTheOtherState()
    {
        QUndoStack stack;
        ClusterEditor editor(&stack);
        editor.setCluster(test::triangle());
        std::unique_ptr<QMenu> menu(editor.nodeMenu(0, nullptr));
        QAction* mark = menu->findChild<QAction*>("markFailed");
        QVERIFY(mark);
        QCOMPARE(mark->text(), QString("Mark failed"));
        QVERIFY(!menu->findChild<QAction*>("markHealthy"));
        mark->trigger();
        QVERIFY(editor.cluster().nodes[0].failed);
        std::unique_ptr<QMenu> again(editor.nodeMenu(0, nullptr));
        QAction* heal = again->findChild<QAction*>("markHealthy");
        QVERIFY(heal);
        heal->trigger();
        QVERIFY(!editor.cluster().nodes[0].failed);
        QCOMPARE(stack.count(), 2);
    }

    void rightClickOnANodeAsksForItsMenu()
    {
        QUndoStack stack;
        ClusterEditor editor(&stack);
        editor.resize(900, 600);
        editor.setCluster(test::triangle());
        editor.show();
        QVERIFY(QTest::qWaitForWindowExposed(&editor));
        editor.zoomToFit();
        QSignalSpy spy(editor.scene(), &ClusterScene::nodeMenuRequested);
        ClusterView* view = editor.view();
        const QPoint at = view->mapFromScene(editor.scene()->nodeItem(2)->sceneBoundingRect().center());
        QContextMenuEvent ev(QContextMenuEvent::Mouse, at, view->viewport()->mapToGlobal(at));
        QApplication::sendEvent(view->viewport(), &ev);
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.at(0).at(0).toInt(), 2);
        QCOMPARE(editor.selectedNodes(), std::vector<int>{2}); // the node the menu acts on is selected
        for (QMenu* m : editor.findChildren<QMenu*>())
            m->close();
    }

    void savedProjectKeepsTheFlag()
    {
        QTemporaryDir dir;
        ProjectDocument doc;
        doc.loadExample("ditto-ex3", "gpt2-xl");
        markNodes(doc, {kRtx4090_0, 2});
        const Cluster marked = *doc.cluster();
        doc.saveAs(dir.filePath("p.hetplan"));
        ProjectDocument back;
        back.open(dir.filePath("p.hetplan"));
        QCOMPARE(*back.cluster(), marked);
        QCOMPARE(failedNodeNames(*back.cluster()), (std::vector<std::string>{"v100-2", "rtx4090-0"}));
    }

    void replanLeavesTheFailedNodeOut()
    {
        ProjectDocument doc;
        seedProject(doc);
        const PlanRef before = *doc.currentPlan();
        const Plan original = *doc.plan(before);
        QCOMPARE(original.cluster.gpuCount(), 22);
        markNodes(doc, {kRtx4090_0});
        ReplanController rc(&doc);
        QSignalSpy done(&rc, &ReplanController::replanned);
        QSignalSpy failed(&rc, &ReplanController::replanFailed);
        QVERIFY(rc.replan(before));
        QVERIFY(done.wait(test::kHangGuardMs));
        QCOMPARE(failed.count(), 0);

        // A new run: [0] the plan before, [1] the plan after, which is now current.
        const PlanRef after = *doc.currentPlan();
        QCOMPARE(after, done.at(0).at(1).value<PlanRef>());
        QCOMPARE(after.resultIndex, 1);
        const Run* run = doc.run(after.runId);
        QCOMPARE(run->results.size(), size_t(2));
        QCOMPARE(*run->results[0].plan, original);
        const Plan& p = *run->results[1].plan;
        // No GPU of the failed node: every used GPU is on a healthy node of the project's cluster.
        for (int g : p.usedGpus()) {
            const auto node = doc.cluster()->findNode(p.cluster.nodeOf(g).name);
            QVERIFY(node);
            QVERIFY(!doc.cluster()->nodes[size_t(*node)].failed);
        }
        QCOMPARE(p.cluster.gpuCount(), 20);
        test::checkPipelineInvariants(p);
        QVERIFY(p.details.at("ditto").value("reused").toBool()); // the stored templates, no new search
        QVERIFY(QString::fromStdString(run->results[1].message).contains("without rtx4090-0"));

        // Oracle: what the engine plans with --without and the same reuse.
        PlanRequest req = ReplanController::requestFor(original, withoutNodes(*doc.cluster(), {"rtx4090-0"}, "t"),
                                                       doc.model()->profile);
        Progress progress;
        QCOMPARE(p.pipelines, runPlanner("ditto", req, progress).pipelines);

        QCOMPARE(nodeSetLabels({original, p}), (QStringList{"ditto\n22 GPUs", "ditto\n20 GPUs without rtx4090-0"}));
        QVERIFY(nodeSetLabels({original, original}).isEmpty());
    }

    void requestsWhileRunningCoalesce()
    {
        // Two nodes marked one after the other while the first re-plan runs: one outcome, without both.
        ProjectDocument doc;
        seedProject(doc);
        const PlanRef before = *doc.currentPlan();
        const size_t runs = doc.project().runs.size();
        ReplanController rc(&doc);
        QSignalSpy done(&rc, &ReplanController::replanned);
        markNodes(doc, {kRtx4090_0});
        QVERIFY(rc.replan(before));
        markNodes(doc, {kRtx4090_0 + 1});
        QVERIFY(rc.replan(before));
        QVERIFY(done.wait(test::kHangGuardMs));
        QTRY_VERIFY_WITH_TIMEOUT(!rc.isRunning(), test::kHangGuardMs);
        QTest::qWait(50);
        QCOMPARE(done.count(), 1);
        QCOMPARE(doc.project().runs.size(), runs + 1);
        const Plan* p = doc.plan(*doc.currentPlan());
        QCOMPARE(p->cluster.gpuCount(), 18);
        QVERIFY(!p->cluster.findNode("rtx4090-0") && !p->cluster.findNode("rtx4090-1"));
    }

    void noPlanLeftKeepsThePreviousPlan()
    {
        ProjectDocument doc;
        seedProject(doc);
        const PlanRef before = *doc.currentPlan();
        std::vector<int> all(doc.cluster()->nodes.size());
        std::iota(all.begin(), all.end(), 0);
        markNodes(doc, all);
        const Project snapshot = doc.project();
        ReplanController rc(&doc);
        QSignalSpy done(&rc, &ReplanController::replanned);
        QSignalSpy failed(&rc, &ReplanController::replanFailed);
        QVERIFY(rc.replan(before));
        QVERIFY(failed.wait(test::kHangGuardMs));
        QVERIFY2(failed.at(0).at(0).toString().contains("marked failed"), qPrintable(failed.at(0).at(0).toString()));
        QCOMPARE(done.count(), 0);
        QCOMPARE(*doc.currentPlan(), before); // the old plan stays shown
        QVERIFY(doc.project() == snapshot);   // no run added, the failed marks kept
    }

    void remainingGpusTooSmallKeepsThePreviousPlan()
    {
        // Only v100-0 left (2 x V100 16 GB): gpt2-xl's states alone (1.5e9 params x 20 B = 30 GB, fp16
        // mixed precision) plus the runtime overhead exceed 2 x 16 GB, so no stage split fits.
        ProjectDocument doc;
        seedProject(doc);
        const PlanRef before = *doc.currentPlan();
        std::vector<int> others(doc.cluster()->nodes.size() - 1);
        std::iota(others.begin(), others.end(), 1);
        markNodes(doc, others);
        const Project snapshot = doc.project();
        ReplanController rc(&doc);
        QSignalSpy failed(&rc, &ReplanController::replanFailed);
        QVERIFY(rc.replan(before));
        QVERIFY(failed.wait(test::kHangGuardMs));
        const QString why = failed.at(0).at(0).toString();
        QVERIFY2(why.contains("fit") && why.startsWith("without v100-1, "), qPrintable(why));
        QCOMPARE(*doc.currentPlan(), before);
        QVERIFY(doc.project() == snapshot);
    }

    void noPlanToReplan()
    {
        ProjectDocument doc;
        doc.loadExample("ditto-ex3", "gpt2-xl");
        ReplanController rc(&doc);
        QVERIFY(!rc.replan(PlanRef{1, 0}));
        QVERIFY(!rc.isRunning());
    }
};

QTEST_MAIN(TestReplan)
#include "tst_replan.moc"
