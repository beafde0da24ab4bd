// How a run ends, as the main window tells it: a cancel is not a failure (not red, "Run N cancelled", the
// best plan so far kept and shown), the planner still searching has a row with its progress and elapsed
// time, and the comparison lists the planners that gave no plan with the reason in the GUI's words.
#include "testutil.h"

#include "app/gui/main_window.h"
#include "core/planners/planner.h"
#include "widgets/controller/run_controller.h"
#include "widgets/panels/run_panel.h"
#include "widgets/views/comparison_view.h"
#include "widgets/views/gantt_view.h"

#include <QLabel>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTest>
#include <QTreeWidget>
#include <chrono>
#include <thread>

using namespace hetplan;

namespace {
constexpr const char* kHoldsPlan = "test-holds-best-plan";
constexpr const char* kNoPlanYet = "test-stops-before-a-plan";
const char* const kWaiting = "waiting for a cancel";

// A search that has found megatron's plan and keeps searching until cancelled: it then returns that plan
// as its best so far (as the engine's searches do), or, with `keepsPlan` false, stops before any plan
// (CancelledError). The run never ends on its own, so the test decides when to cancel without timing.
class WaitsForCancel : public Planner {
public:
    explicit WaitsForCancel(bool keepsPlan) : keepsPlan_(keepsPlan) {}
    std::string name() const override { return keepsPlan_ ? kHoldsPlan : kNoPlanYet; }
    std::string description() const override { return "test: searches until cancelled"; }
    std::vector<PlannerOption> options() const override { return delegate()->options(); }
    Plan plan(const PlanRequest& req, const CostModel& costs, Progress& progress) const override
    {
        Plan best = delegate()->plan(req, costs, progress);
        while (!progress.cancelled()) {
            progress.report(0.5, kWaiting); // again and again: the run passes a few reports a second on
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        if (!keepsPlan_)
            progress.checkpoint(); // throws CancelledError
        best.search.stopped = progress.stopReason();
        return best;
    }

private:
    static std::unique_ptr<Planner> delegate() { return PlannerRegistry::instance().create("megatron"); }
    bool keepsPlan_;
};

// With HETPLAN_SCREENSHOTS=DIR set, writes what the widget shows to DIR/name (to look at it by eye).
void saveShot(QWidget* widget, const QString& name)
{
    const QString dir = qEnvironmentVariable("HETPLAN_SCREENSHOTS");
    if (!dir.isEmpty())
        widget->grab().save(dir + "/" + name);
}

bool waitForRun(MainWindow& w, int ms = test::kHangGuardMs)
{
    QSignalSpy spy(&w, &MainWindow::runFinished);
    return spy.wait(ms);
}

// Starts `planner` on the amp example and waits until the Run tab shows it searching.
bool startWaitingPlanner(MainWindow& w, const std::string& planner)
{
    w.openExample("amp-het-cluster", "gpt2-amp");
    if (!w.runPlanners({planner}))
        return false;
    return QTest::qWaitFor(
        [&] { return w.runPanel()->runningRow() && w.runPanel()->runningRow()->text(6) == kWaiting; }, test::kHangGuardMs);
}
} // namespace

class TestRunOutcomes : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName("hetplan-tests");
        QCoreApplication::setApplicationName("tst_run_outcomes");
        PlannerRegistry::instance().add([] { return std::make_unique<WaitsForCancel>(true); });
        PlannerRegistry::instance().add([] { return std::make_unique<WaitsForCancel>(false); });
    }

    void runningPlannerIsListedWithProgressAndElapsedTime()
    {
        MainWindow w;
        w.setInteractive(false);
        w.resize(1280, 800);
        w.show();
        QVERIFY(startWaitingPlanner(w, kHoldsPlan));
        w.tabs()->setCurrentWidget(w.runPanel());
        saveShot(&w, "running-row.png");
        QTreeWidgetItem* row = w.runPanel()->runningRow();
        QCOMPARE(row->text(0), QString(kHoldsPlan));
        QCOMPARE(row->text(1), QStringLiteral("running…"));
        QVERIFY2(row->text(5).endsWith(" s"), qPrintable(row->text(5)));
        QCOMPARE(w.runPanel()->results()->topLevelItemCount(), 1);
        w.runner()->cancel();
        QVERIFY(waitForRun(w));
        QVERIFY(!w.runPanel()->runningRow()); // the result took its place
        QCOMPARE(w.runPanel()->results()->topLevelItem(0)->text(1), QStringLiteral("cancelled"));
    }

    void cancelKeepsTheBestPlanSoFarAndIsNotAFailure()
    {
        MainWindow w;
        w.setInteractive(false);
        w.resize(1280, 800);
        w.show();
        QVERIFY(startWaitingPlanner(w, kHoldsPlan));
        QVERIFY(w.gantt()->isEmpty()); // no result yet
        const int runId = w.document()->project().runs.back().id;
        w.runner()->cancel();
        QVERIFY(waitForRun(w));
        QVERIFY(w.runner()->wasCancelled());
        const RunResult& r = w.document()->project().runs.back().results.back();
        QCOMPARE(toString(r.status), std::string("cancelled"));
        QVERIFY(r.plan);
        QVERIFY(r.plan->search.stopped == StopReason::Cancelled);
        // The kept plan is the current one and the views show it.
        QVERIFY(w.document()->currentPlan());
        QCOMPARE(w.document()->currentPlan()->runId, runId);
        QVERIFY(!w.gantt()->isEmpty());
        const QString expected = QStringLiteral("Run %1 cancelled — best plan so far by %2, ").arg(runId).arg(kHoldsPlan);
        QVERIFY2(w.lastMessage().startsWith(expected), qPrintable(w.lastMessage()));
        QVERIFY(!w.lastMessageIsError());
        w.tabs()->setCurrentWidget(w.runPanel());
        saveShot(&w, "cancelled-run.png");
    }

    void cancelBeforeAnyPlanSaysCancelled()
    {
        MainWindow w;
        w.setInteractive(false);
        w.resize(1280, 800);
        w.show();
        QVERIFY(startWaitingPlanner(w, kNoPlanYet));
        const int runId = w.document()->project().runs.back().id;
        w.runner()->cancel();
        QVERIFY(waitForRun(w));
        QCOMPARE(w.lastMessage(), QStringLiteral("Run %1 cancelled").arg(runId));
        QVERIFY(!w.lastMessageIsError());
        QVERIFY(!w.document()->project().runs.back().results.back().plan);
    }

    void comparisonListsThePlannersThatFailedAndWhy()
    {
        MainWindow w;
        w.setInteractive(false);
        w.resize(1280, 800);
        w.show();
        w.openExample("amp-het-cluster", "gpt2-amp");
        // data-parallel with micro-batch 3: the default batch of 32 over 16 GPUs leaves 2 per GPU.
        QVERIFY(w.runPlanners({"megatron", "data-parallel"}, {{"data-parallel", {{"mbs", "3"}}}}));
        QVERIFY(waitForRun(w));
        QCOMPARE(w.comparison()->names(), QStringList{"megatron"});
        QCOMPARE(w.comparison()->failureLines(),
                 QStringList{"data-parallel (error): Option “Micro-batch” of data-parallel (Run tab): must divide "
                             "the per-GPU batch 2"});
        w.tabs()->setCurrentWidget(w.comparison());
        QVERIFY(w.comparison()->failureList()->isVisible());
        saveShot(&w, "comparison-failed-planner.png");
        // The run tab has the same words, whole, in the message's tooltip.
        QCOMPARE(w.runPanel()->results()->topLevelItem(1)->toolTip(6),
                 QStringLiteral("Option “Micro-batch” of data-parallel (Run tab): must divide the per-GPU batch 2"));
        w.tabs()->setCurrentWidget(w.runPanel());
        w.runPanel()->results()->setCurrentItem(w.runPanel()->results()->topLevelItem(1));
        QVERIFY(w.runPanel()->details()->toPlainText().endsWith("must divide the per-GPU batch 2"));
        saveShot(&w, "run-error-details.png");
    }

    void runWithoutAnyPlanIsRedAndTheComparisonSaysWhy()
    {
        MainWindow w;
        w.setInteractive(false);
        w.resize(1280, 800);
        w.show();
        w.openExample("amp-het-cluster", "gpt2-amp");
        QVERIFY(w.runPlanners({"data-parallel"}, {{"data-parallel", {{"mbs", "3"}}}}));
        QVERIFY(waitForRun(w));
        QVERIFY(w.lastMessageIsError());
        QVERIFY2(w.lastMessage().contains("without a feasible plan"), qPrintable(w.lastMessage()));
        QVERIFY(w.comparison()->isEmpty());
        QCOMPARE(w.comparison()->failureLines().size(), 1);
        QVERIFY(w.comparison()->failureLines().front().startsWith("data-parallel (error): Option “Micro-batch”"));
        w.tabs()->setCurrentWidget(w.comparison());
        saveShot(&w, "comparison-no-plan.png");
    }
};

QTEST_MAIN(TestRunOutcomes)
#include "tst_run_outcomes.moc"
