#include "replan_controller.h"

#include "run_controller.h"

#include <QDateTime>
#include <algorithm>
#include <set>

namespace hetplan {

namespace {
std::string joined(const std::vector<std::string>& names)
{
    std::string s;
    for (const std::string& n : names)
        s += (s.empty() ? "" : ", ") + n;
    return s;
}
} // namespace

ReplanController::ReplanController(ProjectDocument* doc, QObject* parent)
    : QObject(parent), doc_(doc), runner_(new RunController(this))
{
    connect(runner_, &RunController::finished, this, &ReplanController::onFinished);
}

ReplanController::~ReplanController()
{
    cancel();
    wait();
}

void ReplanController::cancel()
{
    pending_.reset();
    runner_->cancel();
}
void ReplanController::wait() { runner_->wait(); }

PlanRequest ReplanController::requestFor(const Plan& plan, const Cluster& cluster, const Profile& profile)
{
    PlanRequest req;
    req.cluster = cluster;
    req.model = plan.model;
    req.job = plan.job;
    req.profile = profile;
    req.options = plan.options; // resolved: every option the plan was made with, defaults included
    req.reuse = plan.details;   // oobleck's and ditto's stored templates
    return req;
}

bool ReplanController::replan(const PlanRef& from)
{
    const Run* run = doc_->run(from.runId);
    if (!doc_->plan(from) || !doc_->cluster() || run->cluster != doc_->currentCluster())
        return false;
    if (isRunning()) {
        pending_ = from; // the running one is stale: drop it when it ends and run this one
        return true;
    }
    return start(from);
}

bool ReplanController::start(const PlanRef& from)
{
    const Run* run = doc_->run(from.runId);
    const Plan* plan = doc_->plan(from);
    const Cluster* cluster = doc_->cluster();
    if (!run || !plan || !cluster)
        return false;
    from_ = from;
    before_ = run->results.at(size_t(from.resultIndex));
    cluster_ = cluster->name;
    failedText_ = joined(failedNodeNames(*cluster));
    const ProjectModel* model = doc_->project().findModel(run->model);
    PlanRequest req = requestFor(*plan, *cluster, model ? model->profile : plan->profile);
    Run r;
    r.cluster = cluster->name;
    r.model = run->model;
    r.job = run->job;
    busy_ = runner_->start({plan->planner}, req, r);
    if (!busy_)
        return false;
    emit started(QString::fromStdString(plan->planner));
    return true;
}

// The run that records a re-plan: the result before, then the one after.
Run ReplanController::resultRun(const RunResult& after) const
{
    const Run* from = doc_->run(from_.runId);
    Run run;
    run.cluster = cluster_;
    run.model = from ? from->model : std::string();
    run.job = from ? from->job : std::string();
    run.started = QDateTime::currentDateTimeUtc().toString(Qt::ISODate).toStdString();
    RunResult before = before_;
    before.message = "before the re-plan (run " + std::to_string(from_.runId) + ")";
    RunResult next = after;
    next.message = failedText_.empty() ? "re-planned: every node healthy" : "re-planned without " + failedText_;
    if (after.plan && after.plan->search.extra.count("reused_templates") &&
        after.plan->search.extra.at("reused_templates") > 0)
        next.message += " (stored templates reused)";
    run.results = {before, next};
    return run;
}

void ReplanController::onFinished(const Run& run)
{
    busy_ = false;
    if (pending_) { // a newer request arrived meanwhile: this result is stale
        const PlanRef next = *pending_;
        pending_.reset();
        if (!start(next))
            emit replanFailed(tr("the plan to re-plan is gone"));
        return;
    }
    // The project may have changed under the worker (another file opened, the run removed).
    const Run* from = doc_->run(from_.runId);
    if (!from || size_t(from_.resultIndex) >= from->results.size() ||
        !(from->results[size_t(from_.resultIndex)] == before_)) {
        emit replanFailed(tr("the project changed during the re-plan; nothing was changed"));
        return;
    }
    const RunResult* after = run.results.empty() ? nullptr : &run.results.front();
    if (!after || !after->plan || after->status != RunStatus::Ok) {
        const std::string why = after ? after->message : "no result";
        emit replanFailed(
            failedText_.empty()
                ? QString::fromStdString(why)
                : tr("without %1: %2").arg(QString::fromStdString(failedText_), QString::fromStdString(why)));
        return;
    }
    const int id = doc_->addRun(resultRun(*after));
    doc_->setCurrentPlan(PlanRef{id, 1});
    emit replanned(PlanRef{id, 0}, PlanRef{id, 1});
}

QStringList nodeSetLabels(const std::vector<Plan>& plans)
{
    std::set<std::string> all;
    std::vector<std::set<std::string>> sets;
    for (const Plan& p : plans) {
        std::set<std::string> s;
        for (const Node& n : p.cluster.nodes)
            s.insert(n.name);
        all.insert(s.begin(), s.end());
        sets.push_back(std::move(s));
    }
    if (std::all_of(sets.begin(), sets.end(), [&](const auto& s) { return s == sets.front(); }))
        return {};
    QStringList labels;
    for (size_t i = 0; i < plans.size(); ++i) {
        std::vector<std::string> missing;
        for (const std::string& n : all)
            if (!sets[i].count(n))
                missing.push_back(n);
        QString label = QStringLiteral("%1\n%2 GPUs")
                            .arg(QString::fromStdString(plans[i].planner))
                            .arg(plans[i].cluster.gpuCount());
        if (!missing.empty())
            label += ReplanController::tr(" without %1").arg(QString::fromStdString(joined(missing)));
        labels << label;
    }
    return labels;
}

} // namespace hetplan
