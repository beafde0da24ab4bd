// Re-planning from the main window (offscreen): after a ditto run on ditto-ex3, marking a node failed on
// the canvas re-plans at once (the current plan, the Gantt chart, the stage map and the comparison follow),
// undo re-plans back onto every node, and a change that leaves no plan says so and keeps the plan shown.
#include "testutil.h"

#include "app/gui/main_window.h"
#include "widgets/canvas/cluster_editor.h"
#include "widgets/canvas/property_panel.h"
#include "widgets/common/palette.h"
#include "widgets/controller/replan_controller.h"
#include "widgets/models/project_tree.h"
#include "widgets/views/comparison_view.h"
#include "widgets/views/gantt_view.h"
#include "widgets/views/stage_map_view.h"

#include <QDir>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QPainter>
#include <QSignalSpy>
#include <QTreeView>
#include <QTest>
#include <QUndoStack>

using namespace hetplan;

class TestReplanWindow : public QObject {
    Q_OBJECT

    // A window with a finished ditto run on ditto-ex3 / gpt2-xl, in the paper's own search space (Megatron's
    // options off): the re-plans below use the same options, and the smaller search keeps the test short
    // when the machine is busy.
    static void planDitto(MainWindow& w)
    {
        w.setInteractive(false);
        w.resize(1400, 900);
        w.show();
        w.openExample("ditto-ex3", "gpt2-xl");
        QSignalSpy finished(&w, &MainWindow::runFinished);
        std::map<std::string, std::string> paperSpace;
        for (const char* family : {"vpp", "sp", "dist_opt", "recompute", "cp", "ep"})
            paperSpace[std::string("search_") + family] = "false";
        QVERIFY(w.runPlanners({"ditto"}, {{"ditto", paperSpace}}));
        QVERIFY(finished.wait(test::kHangGuardMs));
        QVERIFY(w.document()->currentPlan());
    }

    // With HETPLAN_SCREENSHOTS set: docs/screenshots/replan-failed-node.png, the window with the failed node
    // selected above the comparison of the plans before and after.
    static void saveScreenshot(MainWindow& w, int failedNode)
    {
        const QString dir = qEnvironmentVariable("HETPLAN_SCREENSHOTS");
        if (dir.isEmpty())
            return;
        w.clusterEditor()->selectItems({failedNode}, {});
        const QImage window = w.grab().toImage();
        const QString comparisonFile = QDir(dir).filePath("replan-comparison.png");
        QVERIFY(w.comparison()->exportPng(comparisonFile, window.width(), 560));
        const QImage comparison(comparisonFile);
        QFile::remove(comparisonFile);
        QImage both(window.width(), window.height() + comparison.height(), QImage::Format_RGB32);
        both.fill(Qt::white);
        QPainter p(&both);
        p.drawImage(0, 0, window);
        p.drawImage(0, window.height(), comparison);
        p.end();
        QVERIFY(both.save(QDir(dir).filePath("replan-failed-node.png")));
    }

    static int nodeIndex(const MainWindow& w, const std::string& name)
    {
        return *w.document()->cluster()->findNode(name);
    }

private slots:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName("hetplan-tests");
        QCoreApplication::setApplicationName("tst_replan_window");
    }

    void markFailedReplansAndUndoReplansBack()
    {
        MainWindow w;
        planDitto(w);
        if (QTest::currentTestFailed())
            return;
        const PlanRef first = *w.document()->currentPlan();
        QCOMPARE(w.document()->plan(first)->cluster.gpuCount(), 22);
        QSignalSpy done(w.replanner(), &ReplanController::replanned);

        QVERIFY(w.clusterEditor()->setNodeFailed(nodeIndex(w, "rtx4090-0"), true));
        QVERIFY(w.replanner()->isRunning() || done.count() == 1);
        QVERIFY(done.count() == 1 || done.wait(test::kHangGuardMs));
        const PlanRef after = *w.document()->currentPlan();
        QVERIFY(after.runId != first.runId);
        const Plan* p = w.document()->plan(after);
        QCOMPARE(p->cluster.gpuCount(), 20);
        QVERIFY(!p->cluster.findNode("rtx4090-0"));
        QVERIFY(w.document()->cluster()->nodes[size_t(nodeIndex(w, "rtx4090-0"))].failed); // kept, not deleted
        // Selected, the node says so first, above its fields, with the way back.
        w.clusterEditor()->selectItems({nodeIndex(w, "rtx4090-0")}, {});
        QWidget* panel = w.clusterEditor()->propertyPanel();
        const auto* note = panel->findChild<QLabel*>("failedNote");
        QVERIFY(note && note->isVisibleTo(panel) && note->text().contains("Mark healthy"));
        w.clusterEditor()->selectItems({nodeIndex(w, "v100-0")}, {});
        QVERIFY(!note->isVisibleTo(panel));
        // The comparison shows the plan before and after, named by their nodes.
        QCOMPARE(w.comparison()->names(), (QStringList{"ditto\n22 GPUs", "ditto\n20 GPUs without rtx4090-0"}));
        QVERIFY2(w.lastMessage().startsWith("Re-planned with ditto without rtx4090-0"), qPrintable(w.lastMessage()));
        // The project tree names them the same way (both results are ditto's), with ditto's colour.
        const auto* tree = static_cast<const ProjectTreeModel*>(w.projectTree()->model());
        const QModelIndex before = tree->resultIndex(after.runId, 0), replanned = tree->resultIndex(after.runId, 1);
        QVERIFY2(tree->data(before).toString().startsWith("ditto, 22 GPUs — "), qPrintable(tree->data(before).toString()));
        QVERIFY2(tree->data(replanned).toString().startsWith("ditto, 20 GPUs without rtx4090-0 — "),
                 qPrintable(tree->data(replanned).toString()));
        const QIcon icon = tree->data(replanned, Qt::DecorationRole).value<QIcon>();
        QCOMPARE(icon.pixmap(12, 12).toImage().pixelColor(6, 6), palette::plannerColor("ditto"));
        saveScreenshot(w, nodeIndex(w, "rtx4090-0"));

        // Undo (the document's one stack) marks it healthy again, which re-plans on all 22 GPUs.
        w.document()->undoStack()->undo();
        QVERIFY(done.wait(test::kHangGuardMs));
        const Plan* back = w.document()->plan(*w.document()->currentPlan());
        QCOMPARE(back->cluster.gpuCount(), 22);
        QCOMPARE(back->pipelines, w.document()->plan(first)->pipelines); // the same plan as the first run
        QVERIFY2(w.lastMessage().contains("on every node"), qPrintable(w.lastMessage()));
    }

    void noPlanLeftIsReportedAndThePlanStays()
    {
        MainWindow w;
        planDitto(w);
        if (QTest::currentTestFailed())
            return;
        const PlanRef shown = *w.document()->currentPlan();
        const size_t runs = w.document()->project().runs.size();
        QSignalSpy failed(w.replanner(), &ReplanController::replanFailed);
        // Every node but v100-0 fails, one menu click after another (the re-plans coalesce): 2 x V100 16 GB
        // cannot hold gpt2-xl (1.5e9 params x 20 B of states alone is 30 GB).
        const int nodes = int(w.document()->cluster()->nodes.size());
        for (int i = 1; i < nodes; ++i)
            w.clusterEditor()->setNodeFailed(i, true);
        QVERIFY(failed.wait(test::kHangGuardMs));
        QTRY_VERIFY_WITH_TIMEOUT(!w.replanner()->isRunning(), test::kHangGuardMs);
        QVERIFY2(w.lastMessage().startsWith("No plan after the node change"), qPrintable(w.lastMessage()));
        QVERIFY2(w.lastMessage().contains("fit"), qPrintable(w.lastMessage()));
        QCOMPARE(*w.document()->currentPlan(), shown);
        QCOMPARE(w.document()->project().runs.size(), runs);
        QCOMPARE(int(failedNodeNames(*w.document()->cluster()).size()), nodes - 1);
        QVERIFY(!w.gantt()->isEmpty()); // the plan before is still drawn
    }
};

QTEST_MAIN(TestReplanWindow)
#include "tst_replan_window.moc"
