// Re-planning when nodes of the current cluster fail or recover: the canvas marks them (an undo step), the
// ReplanController plans the current plan again on the worker thread, and this file tells the user.
#include "main_window.h"

#include "widgets/controller/replan_controller.h"

#include <QMessageBox>

namespace hetplan {

namespace {
QString nodeList(const std::vector<std::string>& names)
{
    QStringList out;
    for (const std::string& n : names)
        out << QString::fromStdString(n);
    return out.join(QStringLiteral(", "));
}
} // namespace

void MainWindow::buildReplan()
{
    replan_ = new ReplanController(doc_, this);
    connect(replan_, &ReplanController::replanned, this, &MainWindow::onReplanned);
    connect(replan_, &ReplanController::replanFailed, this, &MainWindow::onReplanFailed);
}

void MainWindow::replanAfterFailure()
{
    const Cluster* c = doc_->cluster();
    const std::vector<std::string> failed = c ? failedNodeNames(*c) : std::vector<std::string>{};
    const QString state = failed.empty() ? tr("Every node healthy") : tr("Failed: %1").arg(nodeList(failed));
    const auto ref = doc_->currentPlan();
    const Plan* plan = ref ? doc_->plan(*ref) : nullptr;
    if (!plan || !replan_->replan(*ref)) {
        showMessage(state + tr(" — no plan of this cluster is shown to re-plan; runs leave failed nodes out"));
        return;
    }
    showMessage(state + tr(" — re-planning with %1…").arg(QString::fromStdString(plan->planner)));
}

void MainWindow::onReplanned(const PlanRef& before, const PlanRef& after)
{
    const Plan* b = doc_->plan(before);
    const Plan* a = doc_->plan(after);
    const Run* run = doc_->run(after.runId);
    if (!a || !b || !run)
        return;
    const double t0 = b->estimate.iterationSeconds, t1 = a->estimate.iterationSeconds;
    const std::vector<std::string> failed = failedNodeNames(*doc_->project().findCluster(run->cluster));
    showMessage(tr("Re-planned with %1 %2: %3 s → %4 s per iteration (%5%6 %), planned in %7 ms — "
                   "Comparison shows before and after")
                    .arg(QString::fromStdString(a->planner),
                         failed.empty() ? tr("on every node") : tr("without %1").arg(nodeList(failed)))
                    .arg(t0, 0, 'f', 4)
                    .arg(t1, 0, 'f', 4)
                    .arg(t1 >= t0 ? "+" : "")
                    .arg(100 * (t1 - t0) / t0, 0, 'f', 1)
                    .arg(run->results.back().durationSeconds * 1e3, 0, 'f', 0));
}

void MainWindow::onReplanFailed(const QString& reason)
{
    const QString text = tr("No plan after the node change: %1. The plan shown is still the one from before; "
                            "mark nodes healthy or undo to go back.")
                             .arg(reason);
    showMessage(text, true);
    if (!interactive_)
        return;
    auto* box = new QMessageBox(QMessageBox::Warning, tr("Re-plan found no plan"), text, QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open(); // window-modal, does not block the event loop
}

} // namespace hetplan
