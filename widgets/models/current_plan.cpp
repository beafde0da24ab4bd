#include "current_plan.h"

#include "core/base/errors.h"
#include "widgets/common/gui_errors.h"
#include "widgets/controller/project_document.h"
#include "widgets/controller/replan_controller.h"

namespace hetplan {

CurrentPlan::CurrentPlan(ProjectDocument* doc, QObject* parent) : QObject(parent), doc_(doc)
{
    connect(doc, &ProjectDocument::currentPlanChanged, this, [this] {
        shownRun_.reset();
        refresh();
    });
    connect(doc, &ProjectDocument::changed, this, &CurrentPlan::onDocumentChanged);
    connect(doc, &ProjectDocument::currentChanged, this, &CurrentPlan::onDocumentChanged);
    readPlan();
    const auto ref = doc_->currentPlan();
    readRun(doc_->run(ref ? ref->runId : 0));
}

CurrentPlan::Inputs CurrentPlan::inputs() const
{
    Inputs in;
    if (const Cluster* c = doc_->cluster())
        in.cluster = *c;
    if (const ProjectModel* m = doc_->model())
        in.model = *m;
    if (const NamedJob* j = doc_->job())
        in.job = j->job;
    return in;
}

void CurrentPlan::onDocumentChanged()
{
    // With a plan everything shown comes from the plan's own copies; a change of the run it belongs to
    // arrives as currentPlanChanged() or refresh(). Without one, only the current cluster, model and job.
    if (!plan_ && !doc_->currentPlan() && inputs() != drawn_)
        refresh();
}

void CurrentPlan::showRun(int runId)
{
    shownRun_ = runId;
    refresh();
}

void CurrentPlan::refresh()
{
    readPlan();
    const auto ref = doc_->currentPlan();
    readRun(doc_->run(shownRun_ ? *shownRun_ : ref ? ref->runId : 0));
    emit changed();
}

void CurrentPlan::readPlan()
{
    drawn_ = inputs();
    const auto ref = doc_->currentPlan();
    const Plan* plan = ref ? doc_->plan(*ref) : nullptr;
    plan_.reset();
    sim_.reset();
    costs_.reset();
    cluster_.reset();
    error_.clear();
    try {
        if (plan) {
            plan_ = *plan;
            cluster_ = plan->cluster;
            costs_.emplace(plan->model, plan->job, plan->profile);
            sim_ = simulate(*plan, *costs_, SimOptions{true});
        } else if (const Cluster* c = doc_->cluster(); c && doc_->model()) {
            const NamedJob* j = doc_->job();
            cluster_ = *c;
            costs_.emplace(doc_->model()->model, j ? j->job : Job{}, doc_->model()->profile);
        }
    } catch (const std::exception& e) {
        sim_.reset(); // the plan stays: the views that need no simulation still show it
        error_ = guiErrorText(e);
    }
}

void CurrentPlan::readRun(const Run* run)
{
    runPlans_.clear();
    failures_.clear();
    for (size_t i = 0; run && i < run->results.size(); ++i) {
        const RunResult& r = run->results[i];
        if (r.plan)
            runPlans_.push_back(*r.plan);
        else
            failures_.push_back({QString::fromStdString(r.planner), QString::fromStdString(toString(r.status)),
                                 QString::fromStdString(r.message)});
    }
    runPlanLabels_ = nodeSetLabels(runPlans_);
}

} // namespace hetplan
