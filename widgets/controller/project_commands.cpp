#include "project_commands.h"

#include <QObject>

#include <algorithm>
#include <iterator>

namespace hetplan {

unsigned editedFields(const NamedJob& before, const NamedJob& after)
{
    const Job& a = before.job;
    const Job& b = after.job;
    const bool differs[] = {a.globalBatchSize != b.globalBatchSize,
                            a.sequenceLength != b.sequenceLength,
                            a.precision != b.precision,
                            a.optimizerStateBytesPerParam != b.optimizerStateBytesPerParam,
                            a.zeroStage != b.zeroStage,
                            a.schedule != b.schedule,
                            a.recompute != b.recompute,
                            a.backwardFactor != b.backwardFactor};
    unsigned bits = 0;
    for (size_t i = 0; i < std::size(differs); ++i)
        if (differs[i])
            bits |= 1u << i;
    return bits;
}

ItemsCommand::ItemsCommand(ProjectDocument* doc, const QString& text, ItemsState before, ItemsState after)
    : doc_(doc), before_(std::move(before)), after_(std::move(after))
{
    setText(text);
}

void ItemsCommand::redo() { doc_->restoreItems(after_); }
void ItemsCommand::undo() { doc_->restoreItems(before_); }

RemoveRunCommand::RemoveRunCommand(ProjectDocument* doc, size_t position)
    : doc_(doc), position_(position), run_(doc->runs().at(position)), plan_(doc->currentPlan())
{
    setText(QObject::tr("Delete run %1").arg(run_.id));
}

void RemoveRunCommand::redo()
{
    std::vector<Run>& runs = doc_->runs();
    if (auto it = std::find_if(runs.begin(), runs.end(), [&](const Run& r) { return r.id == run_.id; });
        it != runs.end())
        runs.erase(it);
    // The shown plan deleted: show the best one left rather than nothing.
    doc_->runsChanged(plan_ && plan_->runId == run_.id ? doc_->bestRemainingPlan(run_.id) : plan_);
}

void RemoveRunCommand::undo()
{
    std::vector<Run>& runs = doc_->runs();
    runs.insert(runs.begin() + std::ptrdiff_t(std::min(position_, runs.size())), run_);
    doc_->runsChanged(plan_);
}

RemoveResultCommand::RemoveResultCommand(ProjectDocument* doc, int runId, int result)
    : doc_(doc), runId_(runId), index_(result), result_(run()->results.at(size_t(result))), plan_(doc->currentPlan())
{
    setText(QObject::tr("Delete %1 result of run %2").arg(QString::fromStdString(result_.planner)).arg(runId));
}

Run* RemoveResultCommand::run() const
{
    for (Run& r : doc_->runs())
        if (r.id == runId_)
            return &r;
    return nullptr;
}

// A live run's results are replaced outside the history (ProjectDocument::replaceRun), so the result this
// step removed may be gone or elsewhere by the time it is redone or undone: the bounds are checked.
void RemoveResultCommand::redo()
{
    Run* r = run();
    if (r && size_t(index_) < r->results.size())
        r->results.erase(r->results.begin() + index_);
    std::optional<PlanRef> plan = plan_;
    if (plan && plan->runId == runId_ && plan->resultIndex == index_)
        plan = doc_->bestRemainingPlan(runId_); // the shown plan deleted: the best one left
    else if (plan && plan->runId == runId_ && plan->resultIndex > index_)
        --plan->resultIndex; // the results after it move up
    doc_->runsChanged(plan);
}

void RemoveResultCommand::undo()
{
    Run* r = run();
    if (r)
        r->results.insert(r->results.begin() + std::ptrdiff_t(std::min(size_t(index_), r->results.size())), result_);
    doc_->runsChanged(plan_);
}

} // namespace hetplan
