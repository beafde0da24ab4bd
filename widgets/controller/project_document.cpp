#include "project_document.h"

#include "project_commands.h"
#include "widgets/models/cluster_document.h"

#include "core/base/errors.h"
#include "core/io/examples.h"
#include "core/io/project_store.h"
#include "core/planners/selection.h"

#include <QFileInfo>
#include <QStringList>
#include <QUndoStack>
#include <algorithm>
#include <type_traits>

namespace hetplan {

ProjectDocument::ProjectDocument(QObject* parent)
    : QObject(parent), undo_(new QUndoStack(this)), canvas_(new ClusterDocument(this))
{
    connect(undo_, &QUndoStack::cleanChanged, this, &ProjectDocument::updateDirty);
    canvas_->setNavigator([this](const std::string& name) { setCurrentCluster(name); });
    canvas_->setNameTaken(
        [this](const std::string& name) { return name != currentCluster_ && hasItem(ItemKind::Cluster, name); });
    connect(canvas_, &ClusterDocument::edited, this, &ProjectDocument::takeCanvasEdit);
    // Connected first, so the canvas is up to date before anyone else hears of a change.
    connect(this, &ProjectDocument::changed, this, &ProjectDocument::showCurrentCluster);
    connect(this, &ProjectDocument::currentChanged, this, &ProjectDocument::showCurrentCluster);
}

QString ProjectDocument::displayName() const { return path_.isEmpty() ? tr("Untitled") : QFileInfo(path_).fileName(); }

// ---------------------------------------------------------------- dirty state

bool ProjectDocument::isDirty() const { return !undo_->isClean() || changedOutsideHistory_; }

void ProjectDocument::updateDirty()
{
    if (dirty_ == isDirty())
        return;
    dirty_ = isDirty();
    emit dirtyChanged(dirty_);
}

void ProjectDocument::markSaved()
{
    changedOutsideHistory_ = false;
    undo_->setClean();
    updateDirty();
}

void ProjectDocument::changeOutsideHistory()
{
    changedOutsideHistory_ = true;
    updateDirty();
    emit changed();
}

// ---------------------------------------------------------------- files

void ProjectDocument::pickDefaults()
{
    currentCluster_ = project_.clusters.empty() ? "" : project_.clusters.front().name;
    currentModel_ = project_.models.empty() ? "" : project_.models.front().model.name;
    currentJob_ = project_.jobs.empty() ? "" : project_.jobs.front().name;
    currentPlan_.reset();
    ticked_.reset();
    for (auto it = project_.runs.rbegin(); it != project_.runs.rend() && !currentPlan_; ++it)
        for (size_t i = 0; i < it->results.size(); ++i)
            if (it->results[i].plan) {
                currentPlan_ = PlanRef{it->id, int(i)};
                break;
            }
}

void ProjectDocument::applySelection(const ProjectSelection& s)
{
    if (project_.findCluster(s.cluster))
        currentCluster_ = s.cluster;
    if (project_.findModel(s.model))
        currentModel_ = s.model;
    if (project_.findJob(s.job))
        currentJob_ = s.job;
    if (s.run > 0 && plan(PlanRef{s.run, s.resultIndex}))
        currentPlan_ = PlanRef{s.run, s.resultIndex};
    ticked_ = s.planners;
}

ProjectSelection ProjectDocument::selection() const
{
    ProjectSelection s;
    s.cluster = currentCluster_;
    s.model = currentModel_;
    s.job = currentJob_;
    if (currentPlan_) {
        s.run = currentPlan_->runId;
        s.resultIndex = currentPlan_->resultIndex;
    }
    s.planners = ticked_;
    return s;
}

void ProjectDocument::replaceProject(Project p, const QString& path, const ProjectSelection& selection)
{
    undo_->clear(); // before the project changes: the commands refer to the old one
    project_ = std::move(p);
    path_ = path;
    pickDefaults();
    applySelection(selection);
    markSaved();
    emit projectReplaced();
    emit fileChanged(path_);
    emit changed();
    emit currentChanged();
    emit currentPlanChanged();
}

void ProjectDocument::newProject() { replaceProject(Project{}, QString()); }

void ProjectDocument::open(const QString& path)
{
    ProjectSelection selection;
    Project p = loadProject(path.toStdString(), &selection); // throws: nothing changes on failure
    replaceProject(std::move(p), path, selection);
}

void ProjectDocument::save()
{
    if (path_.isEmpty())
        throw InputError("project", "file", "no file name yet (use Save As)");
    saveProject(project_, path_.toStdString(), selection());
    markSaved();
}

void ProjectDocument::saveAs(const QString& path)
{
    saveProject(project_, path.toStdString(), selection());
    path_ = path;
    markSaved();
    emit fileChanged(path_);
}

void ProjectDocument::loadExample(const std::string& clusterName, const std::string& modelName)
{
    Project p;
    p.clusters.push_back(exampleCluster(clusterName));
    p.models.push_back({buildExampleModel(modelName), {}});
    NamedJob job{"default", Job{}};
    job.job.sequenceLength = p.models.back().model.arch.sequence > 0 ? p.models.back().model.arch.sequence : 1024;
    p.jobs.push_back(job);
    replaceProject(std::move(p), QString());
}

// ---------------------------------------------------------------- edits

template <class Item>
Item* ProjectDocument::find(const std::string& name)
{
    std::vector<Item>& v = items(static_cast<Item*>(nullptr));
    auto it = std::find_if(v.begin(), v.end(), [&](const Item& x) { return itemName(x) == name; });
    return it == v.end() ? nullptr : &*it;
}

template <class Item>
void ProjectDocument::put(const std::string& name, const std::optional<Item>& item)
{
    std::vector<Item>& v = items(static_cast<Item*>(nullptr));
    Item* existing = find<Item>(name);
    if (existing && item)
        *existing = *item;
    else if (existing)
        v.erase(v.begin() + (existing - v.data()));
    else if (item)
        v.push_back(*item);
}

bool ProjectDocument::select(std::string& current, const std::string& name)
{
    if (current == name)
        return false;
    current = name;
    return true;
}

void ProjectDocument::emitChanges(bool itemsChanged, bool selectionChanged)
{
    if (itemsChanged)
        emit changed();
    if (selectionChanged)
        emit currentChanged();
}

template <class Item>
void ProjectDocument::push(const QString& text, const std::string& name, std::optional<Item> after, bool makeCurrent)
{
    const Item* existing = find<Item>(name);
    const bool sameContent = !after || (existing && *existing == *after);
    const bool sameSelection = !makeCurrent || current(static_cast<Item*>(nullptr)) == name;
    if (sameContent && sameSelection)
        return;
    undo_->push(new PutItemCommand<Item>(this, text, name, std::move(after), makeCurrent));
}

void ProjectDocument::setCluster(const Cluster& c)
{
    const QString text = find<Cluster>(c.name) ? tr("Change cluster %1") : tr("Add cluster %1");
    push<Cluster>(text.arg(QString::fromStdString(c.name)), c.name, c, true);
}

void ProjectDocument::setJob(const NamedJob& j)
{
    push<NamedJob>(tr("Edit job %1").arg(QString::fromStdString(j.name)), j.name, j, true);
}

void ProjectDocument::addModel(const ProjectModel& m)
{
    const QString text = tr("Add model %1").arg(QString::fromStdString(m.model.name));
    withJobFollowing(m.model, text, [&] { push<ProjectModel>(text, m.model.name, m, true); });
}

void ProjectDocument::chooseModel(const std::string& name)
{
    const ProjectModel* m = find<ProjectModel>(name);
    if (!m)
        return;
    const QString text = tr("Choose model %1").arg(QString::fromStdString(name));
    withJobFollowing(m->model, text, [&] { push<ProjectModel>(text, name, std::nullopt, true); });
}

// A model built for one sequence length (the examples: llama2-7b 4096) takes the current job with it, unless
// the user chose the job's length: it still equals the previous model's, or the default when that model
// states none. Returns the length to set, 0 for none.
int ProjectDocument::sequenceToFollow(const ModelSpec& next) const
{
    const NamedJob* j = job();
    if (!j || next.arch.sequence <= 0 || j->job.sequenceLength == next.arch.sequence)
        return 0;
    const int before = model() && model()->model.arch.sequence > 0 ? model()->model.arch.sequence : Job{}.sequenceLength;
    return j->job.sequenceLength == before ? next.arch.sequence : 0;
}

void ProjectDocument::withJobFollowing(const ModelSpec& next, const QString& text, const std::function<void()>& step)
{
    const int sequence = sequenceToFollow(next);
    if (sequence <= 0) {
        step();
        return;
    }
    NamedJob j = *job();
    j.job.sequenceLength = sequence;
    undo_->beginMacro(text); // one undo step: the model and the job's length
    step();
    push<NamedJob>(tr("Edit job %1").arg(QString::fromStdString(j.name)), j.name, j, true);
    undo_->endMacro();
}

void ProjectDocument::setProfile(const std::string& model, const Profile& p)
{
    const ProjectModel* m = find<ProjectModel>(model);
    if (!m)
        return;
    ProjectModel after = *m;
    after.profile = p;
    push<ProjectModel>(tr("Import profile for %1").arg(QString::fromStdString(model)), model, after, false);
}

void ProjectDocument::takeCanvasEdit()
{
    // The step is on undo_ already: this only brings the project up to date. The current name is the
    // cluster's name before the step (which may have renamed it).
    const Cluster& c = canvas_->cluster();
    const Cluster* before = find<Cluster>(currentCluster_);
    const bool failuresChanged = before && failedNodeNames(*before) != failedNodeNames(c);
    put<Cluster>(before ? currentCluster_ : c.name, c);
    currentCluster_ = c.name;
    if (!before) // drawn on the empty canvas: a new cluster, which its steps' undo leaves (empty) in place
        changedOutsideHistory_ = true;
    updateDirty();
    emit changed();
    if (failuresChanged)
        emit failedNodesChanged();
}

void ProjectDocument::showCurrentCluster()
{
    // Without a current cluster the canvas holds an empty one with a free name, which the first edit adds.
    const Cluster* c = cluster();
    Cluster empty;
    if (!c)
        empty.name = uniqueName("cluster", [this](const std::string& n) { return hasItem(ItemKind::Cluster, n); });
    if (!(canvas_->cluster() == (c ? *c : empty)))
        canvas_->setCluster(c ? *c : empty);
}

// ---------------------------------------------------------------- managing items

std::string uniqueName(const std::string& wanted, const std::function<bool(const std::string&)>& taken)
{
    if (!taken(wanted))
        return wanted;
    std::string base = wanted;
    if (const size_t open = base.rfind(" ("); open != std::string::npos && base.back() == ')' &&
                                                base.size() > open + 3 &&
                                                std::all_of(base.begin() + std::ptrdiff_t(open) + 2, base.end() - 1,
                                                            [](char ch) { return ch >= '0' && ch <= '9'; }))
        base.erase(open);
    for (int n = 2;; ++n)
        if (const std::string name = base + " (" + std::to_string(n) + ")"; !taken(name))
            return name;
}

ItemsState ProjectDocument::itemsState() const
{
    return {project_.clusters, project_.models, project_.jobs, currentCluster_, currentModel_, currentJob_};
}

bool ProjectDocument::hasItem(ItemKind kind, const std::string& name) const
{
    switch (kind) {
    case ItemKind::Cluster: return project_.findCluster(name) != nullptr;
    case ItemKind::Model: return project_.findModel(name) != nullptr;
    case ItemKind::Job: return project_.findJob(name) != nullptr;
    }
    return false;
}

namespace {

QString kindWord(ItemKind kind)
{
    switch (kind) {
    case ItemKind::Cluster: return ProjectDocument::tr("cluster");
    case ItemKind::Model: return ProjectDocument::tr("model");
    case ItemKind::Job: return ProjectDocument::tr("job");
    }
    return {};
}

std::string& nameOf(Cluster& c) { return c.name; }
std::string& nameOf(ProjectModel& m) { return m.model.name; }
std::string& nameOf(NamedJob& j) { return j.name; }

// The list of `kind` in `s` and its current name, handed to `f(list, current)`.
template <class F>
void withItems(ItemsState& s, ItemKind kind, F&& f)
{
    switch (kind) {
    case ItemKind::Cluster: f(s.clusters, s.cluster); break;
    case ItemKind::Model: f(s.models, s.model); break;
    case ItemKind::Job: f(s.jobs, s.job); break;
    }
}

template <class Item>
typename std::vector<Item>::iterator findIn(std::vector<Item>& v, const std::string& name)
{
    return std::find_if(v.begin(), v.end(), [&](Item& x) { return nameOf(x) == name; });
}

} // namespace

void ProjectDocument::pushItems(const QString& text, const ItemsState& after)
{
    undo_->push(new ItemsCommand(this, text, itemsState(), after));
}

void ProjectDocument::restoreItems(const ItemsState& s)
{
    project_.clusters = s.clusters;
    project_.models = s.models;
    project_.jobs = s.jobs;
    currentCluster_ = s.cluster;
    currentModel_ = s.model;
    currentJob_ = s.job;
    emitChanges(true, true);
}

bool ProjectDocument::renameItem(ItemKind kind, const std::string& from, const std::string& to)
{
    if (to.empty() || to == from || !hasItem(kind, from) || hasItem(kind, to))
        return false;
    ItemsState after = itemsState();
    withItems(after, kind, [&](auto& list, std::string& current) {
        auto& item = *findIn(list, from);
        nameOf(item) = to;
        if constexpr (std::is_same_v<std::decay_t<decltype(item)>, ProjectModel>)
            if (item.profile.model == from) // the profile names the model it belongs to
                item.profile.model = to;
        if (current == from)
            current = to;
    });
    pushItems(tr("Rename %1 %2 to %3").arg(kindWord(kind), QString::fromStdString(from), QString::fromStdString(to)),
              after);
    return true;
}

std::string ProjectDocument::duplicateItem(ItemKind kind, const std::string& name)
{
    if (!hasItem(kind, name))
        return {};
    const std::string copy = uniqueName(name, [&](const std::string& n) { return hasItem(kind, n); });
    ItemsState after = itemsState();
    withItems(after, kind, [&](auto& list, std::string&) {
        auto it = findIn(list, name);
        auto item = *it;
        nameOf(item) = copy;
        if constexpr (std::is_same_v<decltype(item), ProjectModel>)
            if (item.profile.model == name)
                item.profile.model = copy;
        list.insert(it + 1, std::move(item));
    });
    pushItems(tr("Duplicate %1 %2").arg(kindWord(kind), QString::fromStdString(name)), after);
    return copy;
}

bool ProjectDocument::removeItem(ItemKind kind, const std::string& name)
{
    if (!hasItem(kind, name))
        return false;
    ItemsState after = itemsState();
    withItems(after, kind, [&](auto& list, std::string& current) {
        list.erase(findIn(list, name));
        if (current == name) // never a dangling name: the first one left, or none
            current = list.empty() ? std::string() : nameOf(list.front());
    });
    pushItems(tr("Delete %1 %2").arg(kindWord(kind), QString::fromStdString(name)), after);
    return true;
}

// ---------------------------------------------------------------- runs

int ProjectDocument::addRun(Run run)
{
    run.id = project_.nextRunId();
    project_.runs.push_back(std::move(run));
    changeOutsideHistory();
    return project_.runs.back().id;
}

void ProjectDocument::addRunResult(int runId, const RunResult& r)
{
    for (Run& run : project_.runs)
        if (run.id == runId) {
            run.results.push_back(r);
            changeOutsideHistory();
            return;
        }
}

bool ProjectDocument::replaceRun(int runId, Run run, std::optional<int> current)
{
    for (Run& r : project_.runs)
        if (r.id == runId) {
            run.id = runId;
            r = std::move(run);
            changedOutsideHistory_ = true;
            updateDirty();
            std::optional<PlanRef> plan = currentPlan_;
            if (current)
                plan = PlanRef{runId, *current};
            else if (plan && plan->runId == runId && size_t(plan->resultIndex) >= r.results.size())
                plan.reset();
            runsChanged(plan);
            return true;
        }
    return false;
}

bool ProjectDocument::removeRun(int runId)
{
    for (size_t i = 0; i < project_.runs.size(); ++i)
        if (project_.runs[i].id == runId) {
            undo_->push(new RemoveRunCommand(this, i));
            return true;
        }
    return false;
}

bool ProjectDocument::removeRunResult(int runId, int result)
{
    const Run* r = run(runId);
    if (!r || result < 0 || result >= int(r->results.size()))
        return false;
    undo_->push(new RemoveResultCommand(this, runId, result));
    return true;
}

void ProjectDocument::runsChanged(std::optional<PlanRef> currentPlan)
{
    emit changed();
    currentPlan_.reset(); // the views re-read the plan even when its reference is the same
    setCurrentPlan(currentPlan);
    if (!currentPlan)
        emit currentPlanChanged();
}

// ---------------------------------------------------------------- selection

void ProjectDocument::setCurrentCluster(const std::string& n)
{
    if (select(currentCluster_, n))
        emit currentChanged();
}

void ProjectDocument::setCurrentModel(const std::string& n)
{
    if (select(currentModel_, n))
        emit currentChanged();
}

void ProjectDocument::setCurrentJob(const std::string& n)
{
    if (select(currentJob_, n))
        emit currentChanged();
}

void ProjectDocument::setCurrentPlan(std::optional<PlanRef> ref)
{
    if (ref == currentPlan_)
        return;
    currentPlan_ = ref;
    emit currentPlanChanged();
}

const Run* ProjectDocument::run(int runId) const
{
    for (const Run& r : project_.runs)
        if (r.id == runId)
            return &r;
    return nullptr;
}

const Plan* ProjectDocument::plan(const PlanRef& ref) const
{
    const Run* r = run(ref.runId);
    if (!r || ref.resultIndex < 0 || ref.resultIndex >= int(r->results.size()) || !r->results[ref.resultIndex].plan)
        return nullptr;
    return &*r->results[ref.resultIndex].plan;
}

const Cluster* ProjectDocument::cluster() const { return project_.findCluster(currentCluster_); }
const ProjectModel* ProjectDocument::model() const { return project_.findModel(currentModel_); }
const NamedJob* ProjectDocument::job() const { return project_.findJob(currentJob_); }

QString ProjectDocument::contextText() const
{
    QStringList parts{cluster() ? QString::fromStdString(cluster()->name) : tr("no cluster"),
                      model() ? QString::fromStdString(model()->model.name) : tr("no model")};
    if (const NamedJob* j = job()) {
        parts << tr("gbs %1").arg(j->job.globalBatchSize) << tr("seq %1").arg(j->job.sequenceLength);
        // A length other than the model's own is easy to miss (an example is rebuilt for it, an imported
        // model keeps its own): say so.
        if (const ProjectModel* m = model(); m && m->model.arch.sequence > 0 && m->model.arch.sequence != j->job.sequenceLength)
            parts.back() += tr(" (the model's own: %1)").arg(m->model.arch.sequence);
    }
    return parts.join(QStringLiteral(" · "));
}

int bestFeasibleResult(const Run* run)
{
    // The run's goal, as its plans recorded it (plans chosen under a goal carry it in their selection).
    Objective objective;
    for (size_t i = 0; run && i < run->results.size(); ++i)
        if (const auto& p = run->results[i].plan; p && objectiveOf(*p)) {
            objective = *objectiveOf(*p);
            break;
        }
    // Plans meeting the goal first, by the goal; then the fastest that fits.
    const auto meetsGoal = [&](const Plan& p) { return !objectiveMiss(objective, p.estimate); };
    int best = -1;
    for (size_t i = 0; run && i < run->results.size(); ++i) {
        const auto& p = run->results[i].plan;
        if (!p || !p->estimate.feasible)
            continue;
        if (best < 0) {
            best = int(i);
            continue;
        }
        const Plan& b = *run->results[size_t(best)].plan;
        const bool meets = meetsGoal(*p), bestMeets = meetsGoal(b);
        if (meets != bestMeets ? meets
                               : meets ? betterUnder(objective, p->estimate, b.estimate)
                                       : p->estimate.iterationSeconds < b.estimate.iterationSeconds)
            best = int(i);
    }
    return best;
}

std::optional<PlanRef> ProjectDocument::bestRemainingPlan(int runId) const
{
    if (const int best = bestFeasibleResult(run(runId)); best >= 0)
        return PlanRef{runId, best};
    for (auto it = project_.runs.rbegin(); it != project_.runs.rend(); ++it)
        if (const int best = bestFeasibleResult(&*it); best >= 0)
            return PlanRef{it->id, best};
    return std::nullopt;
}

} // namespace hetplan
