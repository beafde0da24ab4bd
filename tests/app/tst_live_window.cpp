// Live re-planning in the main window: off by default, Run ▸ Live Re-planning and the
// Run tab's Live box in step and remembered, an edit through the undo stack re-plans and every plan view
// (Gantt, stage map, comparison, details) shows the new plan, and with Live off an edit plans nothing.
#include "testutil.h"

#include "app/gui/main_window.h"
#include "widgets/controller/live_controller.h"
#include "widgets/panels/run_panel.h"
#include "widgets/views/comparison_view.h"
#include "widgets/views/gantt_view.h"
#include "widgets/views/plan_details_view.h"
#include "widgets/views/stage_map_view.h"

#include <QTabWidget>

#include <QAction>
#include <QCheckBox>
#include <QDir>
#include <QSettings>
#include <QTemporaryDir>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTest>
#include <QTreeWidget>

using namespace hetplan;

namespace {
void setBatch(ProjectDocument& doc, int gbs)
{
    NamedJob j = *doc.job();
    j.job.globalBatchSize = gbs;
    doc.setJob(j);
}

const Plan& currentPlan(const MainWindow& w) { return *w.document()->plan(*w.document()->currentPlan()); }
} // namespace

class TestLiveWindow : public QObject {
    Q_OBJECT

    static QAction* liveAction(MainWindow& w) { return w.findChild<QAction*>("RunLiveAction"); }

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); } // the Live setting stays in the test
    void init() { QSettings().remove("run/live"); }

    void offByDefaultAndTheTwoSwitchesInStep()
    {
        MainWindow w;
        w.setInteractive(false);
        QVERIFY(liveAction(w) && liveAction(w)->isCheckable());
        QVERIFY(!w.isLive() && !liveAction(w)->isChecked() && !w.runPanel()->isLive());
        QVERIFY(!w.live()->isEnabled());
        liveAction(w)->trigger(); // Run ▸ Live Re-planning
        QVERIFY(w.isLive() && w.runPanel()->liveBox()->isChecked() && w.live()->isEnabled());
        w.runPanel()->liveBox()->click(); // the Run tab's box
        QVERIFY(!w.isLive() && !liveAction(w)->isChecked() && !w.live()->isEnabled());
        w.runPanel()->liveBox()->click();
        // Remembered for the next window (a preference in QSettings, not project data).
        MainWindow next;
        QVERIFY(next.isLive() && liveAction(next)->isChecked() && next.runPanel()->isLive());
    }

    void anEditReplansAndTheViewsShowTheNewPlan()
    {
        MainWindow w;
        w.setInteractive(false);
        w.resize(1400, 900);
        w.show();
        w.openExample("amp-het-cluster", "gpt2-amp");
        w.runPanel()->setChecked({"amp"});
        QSignalSpy updated(w.live(), &LiveController::updated);
        w.setLive(true);
        QVERIFY(updated.wait(test::kHangGuardMs));
        const double before = currentPlan(w).estimate.iterationSeconds;
        QCOMPARE(currentPlan(w).job.globalBatchSize, 32);

        setBatch(*w.document(), 128); // four times the samples per iteration
        QVERIFY(updated.wait(test::kHangGuardMs));
        const Plan& plan = currentPlan(w);
        QCOMPARE(plan.job.globalBatchSize, 128);
        QVERIFY(plan.estimate.iterationSeconds > 2 * before);
        // The Gantt chart's axis spans the new iteration (ms), not the old one.
        QVERIFY(std::abs(w.gantt()->layout().span - plan.estimate.iterationSeconds * 1e3) <
                0.05 * plan.estimate.iterationSeconds * 1e3);
        // The stage map has a cell per GPU of the new plan; the comparison and the details name it.
        QCOMPARE(int(w.stageMap()->layout().cells.size()), plan.cluster.gpuCount());
        QCOMPARE(w.comparison()->names(), QStringList{"amp"});
        QVERIFY(w.planDetails()->layout().summary.startsWith("amp on amp-het-cluster"));
        QVERIFY2(w.lastMessage().startsWith("Live: best plan by amp"), qPrintable(w.lastMessage()));
        // The Run tab lists the live run's result.
        QCOMPARE(w.runPanel()->results()->topLevelItemCount(), 1);
        QCOMPARE(w.document()->project().runs.size(), size_t(1));
        // With HETPLAN_SCREENSHOTS set: docs/screenshots/live-replan.png, the Run tab with Live on after the edit.
        if (const QString dir = qEnvironmentVariable("HETPLAN_SCREENSHOTS"); !dir.isEmpty()) {
            w.tabs()->setCurrentWidget(w.runPanel());
            QVERIFY(w.grab().save(QDir(dir).filePath("live-replan.png")));
        }
        w.setLive(false);
    }

    void openingAProjectWithLiveOnRaisesNoError()
    {
        // Live left on from the last session; the user opens a project and has not edited anything yet.
        QSettings().setValue("run/live", true);
        QTemporaryDir dir;
        const QString path = dir.filePath("nothing-ticked.hetplan");
        {
            MainWindow earlier;
            earlier.setInteractive(false);
            earlier.setLive(false);
            earlier.openExample("amp-het-cluster", "gpt2-amp");
            earlier.runPanel()->setChecked({});
            earlier.document()->setTickedPlanners({}); // saved with nothing ticked: Live could plan nothing
            earlier.document()->saveAs(path);
        }
        QSettings().setValue("run/live", true);
        MainWindow w;
        w.setInteractive(false);
        QVERIFY(w.isLive());
        w.openFile(path);
        QVERIFY(w.runPanel()->checkedPlanners().empty()); // the file's ticks
        QTest::qWait(3 * LiveController::kDebounceMs);
        QVERIFY(!w.live()->isRunning() && !w.live()->isScheduled());
        QVERIFY2(!w.lastMessageIsError(), qPrintable(w.lastMessage()));
        QVERIFY(w.document()->project().runs.empty());
        // The user's own edit is what Live answers, and then it says why it cannot plan.
        setBatch(*w.document(), 64);
        QTRY_VERIFY_WITH_TIMEOUT(w.lastMessageIsError() && w.lastMessage().contains("tick at least one planner"),
                                 test::kHangGuardMs);
        w.setLive(false);
    }

    void liveOffPlansNothing()
    {
        MainWindow w;
        w.setInteractive(false);
        w.openExample("amp-het-cluster", "gpt2-amp");
        w.runPanel()->setChecked({"amp"});
        setBatch(*w.document(), 64);
        QVERIFY(!w.live()->isScheduled());
        QTest::qWait(3 * LiveController::kDebounceMs);
        QVERIFY(!w.live()->isRunning());
        QVERIFY(w.document()->project().runs.empty());
        QVERIFY(!w.document()->currentPlan());
    }
};

QTEST_MAIN(TestLiveWindow)
#include "tst_live_window.moc"
