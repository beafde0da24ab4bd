#include "live_controller.h"

#include "run_controller.h"

#include "core/base/errors.h"
#include "core/io/examples.h"

#include <QDateTime>
#include <QTimer>

namespace hetplan {

std::optional<PlanRequest> currentPlanRequest(const ProjectDocument& doc)
{
    const Cluster* c = doc.cluster();
    const ProjectModel* m = doc.model();
    if (!c || !m)
        return std::nullopt;
    const NamedJob* j = doc.job();
    PlanRequest req;
    req.cluster = *c;
    req.job = j ? j->job : Job{};
    req.model = m->model;
    // Example models are rebuilt for the job's sequence length; imported models keep their own.
    if (m->model.arch.family != "custom" && m->model.arch.sequence > 0 &&
        m->model.arch.sequence != req.job.sequenceLength) {
        try {
            req.model = buildExampleModel(m->model.name, req.job.sequenceLength);
        } catch (const InputError&) {
            req.job.sequenceLength = m->model.arch.sequence;
        }
    }
    req.profile = m->profile;
    return req;
}

LiveController::LiveController(ProjectDocument* doc, QObject* parent)
    : QObject(parent), doc_(doc), runner_(new RunController(this)), debounce_(new QTimer(this))
{
    debounce_->setSingleShot(true);
    debounce_->setInterval(kDebounceMs);
    connect(debounce_, &QTimer::timeout, this, &LiveController::start);
    connect(runner_, &RunController::finished, this, &LiveController::onFinished);
    // Edits (and their undo / redo) change the project; choosing another cluster, model or job changes the
    // selection. Both may leave the inputs as they were (a run added, a node moved back): onInputsChanged
    // compares.
    connect(doc_, &ProjectDocument::changed, this, &LiveController::onInputsChanged);
    connect(doc_, &ProjectDocument::currentChanged, this, &LiveController::onInputsChanged);
    connect(doc_, &ProjectDocument::projectReplaced, this, &LiveController::onProjectReplaced);
}

LiveController::~LiveController()
{
    dropRunning();
    wait();
}

bool LiveController::isRunning() const { return runner_->isRunning(); }
bool LiveController::isScheduled() const { return debounce_->isActive(); }
void LiveController::wait() { runner_->wait(); }

void LiveController::setEnabled(bool on)
{
    if (on == enabled_)
        return;
    enabled_ = on;
    scheduled_.reset();
    if (on)
        onInputsChanged(); // plan what is there now
    else
        dropRunning();
}

std::optional<LiveController::Inputs> LiveController::currentInputs() const
{
    const Cluster* c = doc_->cluster();
    const ProjectModel* m = doc_->model();
    if (!c || !m)
        return std::nullopt;
    const NamedJob* j = doc_->job();
    Inputs in{*c, *m, j ? j->job : Job{}};
    for (Node& n : in.cluster.nodes) // where a node is drawn does not change a plan
        n.x = n.y = 0;
    return in;
}

void LiveController::onInputsChanged()
{
    if (!enabled_)
        return;
    std::optional<Inputs> now = currentInputs();
    if (!now || now == scheduled_)
        return;
    scheduled_ = std::move(now);
    if (runner_->isRunning()) { // searching the inputs from before: stop it, its plans are stale
        stale_ = true;
        runner_->cancel();
    }
    debounce_->start(); // restarts: quick edits give one run
}

void LiveController::onProjectReplaced()
{
    dropRunning();
    runId_ = 0; // the live run of the project before is gone
    // Opening a project is not an edit: Live plans the user's next change (or is switched on), not what the
    // file holds, so an opened project never greets the user with a Live failure they did not cause.
    scheduled_ = currentInputs();
}

void LiveController::dropRunning()
{
    debounce_->stop();
    pending_ = false;
    if (runner_->isRunning()) {
        stale_ = true;
        runner_->cancel();
    }
}

void LiveController::start()
{
    if (!enabled_)
        return;
    if (runner_->isRunning()) { // a cancelled run still winding down (within ~100 ms)
        pending_ = true;
        return;
    }
    const PlannerSelection sel = selection_ ? selection_() : PlannerSelection{};
    std::optional<PlanRequest> req = currentPlanRequest(*doc_);
    if (sel.planners.empty() || !req) {
        emit failed(sel.planners.empty() ? tr("tick at least one planner in the Run tab")
                                         : tr("the project needs a cluster and a model"));
        return;
    }
    req->timeLimitSeconds = kTimeLimitSeconds;
    Run run;
    run.cluster = doc_->cluster()->name;
    run.model = doc_->model()->model.name;
    run.job = doc_->job() ? doc_->job()->name : "default";
    run.started = QDateTime::currentDateTimeUtc().toString(Qt::ISODate).toStdString();
    stale_ = false;
    if (runner_->start(sel.planners, *req, run, sel.options))
        emit started();
}

void LiveController::onFinished(const Run& run)
{
    const bool stale = stale_;
    stale_ = false;
    if (pending_) {
        pending_ = false;
        start();
        return;
    }
    if (!stale && enabled_)
        publish(run);
}

void LiveController::publish(const Run& run)
{
    const int best = bestFeasibleResult(&run);
    if (best < 0) {
        QString why = tr("no feasible plan");
        for (const RunResult& r : run.results)
            if (!r.message.empty())
                why = QString::fromStdString(r.planner + ": " + r.message);
        emit failed(why);
        return;
    }
    if (!runId_ || !doc_->replaceRun(runId_, run, best)) {
        runId_ = doc_->addRun(run);
        doc_->setCurrentPlan(PlanRef{runId_, best});
    }
    emit updated(runId_);
}

} // namespace hetplan
