// Live re-planning: Run ▸ Live and the Run tab's Live check box switch the LiveController
// on and off (remembered in QSettings: a preference of the user, not of the project); its plans reach the
// views through the document's current plan, and this file tells the user.
#include "main_window.h"

#include "widgets/controller/live_controller.h"
#include "widgets/controller/run_controller.h"
#include "widgets/panels/run_panel.h"

#include <QAction>
#include <QCheckBox>
#include <QMenu>
#include <QSettings>
#include <QSignalBlocker>

namespace hetplan {

namespace {
const char* const kLiveSetting = "run/live";
} // namespace

void MainWindow::buildLive(QMenu* runMenu)
{
    live_ = new LiveController(doc_, this);
    live_->setSelection([this] { return PlannerSelection{runPanel_->checkedPlanners(), runPanel_->options()}; });
    liveAction_ = runMenu->addAction(tr("&Live Re-planning"));
    liveAction_->setObjectName("RunLiveAction");
    liveAction_->setCheckable(true);
    liveAction_->setToolTip(runPanel_->liveBox()->toolTip());
    connect(liveAction_, &QAction::toggled, this, &MainWindow::setLive);
    connect(runPanel_, &RunPanel::liveToggled, this, &MainWindow::setLive);
    connect(live_, &LiveController::updated, this, &MainWindow::onLiveUpdated);
    connect(live_, &LiveController::failed, this,
            [this](const QString& why) { showMessage(tr("Live: no new plan — %1").arg(why), true); });
}

bool MainWindow::isLive() const { return live_->isEnabled(); }

void MainWindow::setLive(bool on)
{
    const QSignalBlocker blockAction(liveAction_), blockPanel(runPanel_);
    liveAction_->setChecked(on);
    runPanel_->setLive(on);
    if (on == live_->isEnabled())
        return;
    live_->setEnabled(on);
    QSettings().setValue(kLiveSetting, on);
    showMessage(on ? tr("Live on: edits re-run the ticked planners (up to %1 s each)")
                         .arg(LiveController::kTimeLimitSeconds)
                   : tr("Live off"));
}

void MainWindow::restoreLive() { setLive(QSettings().value(kLiveSetting, false).toBool()); }

void MainWindow::onLiveUpdated(int runId)
{
    const Run* run = doc_->run(runId);
    const int best = bestFeasibleResult(run);
    if (best < 0)
        return;
    if (!runner_->isRunning()) // the Run tab shows a run of the user's while it runs
        runPanel_->showRun(*run);
    const RunResult& r = run->results[size_t(best)];
    double searched = 0;
    for (const RunResult& each : run->results)
        searched += each.durationSeconds;
    showMessage(tr("Live: best plan by %1, %2 s per iteration (searched in %3 ms)")
                    .arg(QString::fromStdString(r.planner))
                    .arg(r.plan->estimate.iterationSeconds, 0, 'f', 4)
                    .arg(searched * 1e3, 0, 'f', 0));
}

} // namespace hetplan
