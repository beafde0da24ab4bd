#include "project_document.h"

#include "core/io/examples.h"
#include "core/io/project_store.h"
#include "core/base/errors.h"

#include <QFileInfo>
#include <algorithm>

namespace hetplan {

ProjectDocument::ProjectDocument(QObject* parent) : QObject(parent) {}

QString ProjectDocument::displayName() const
{
    return path_.isEmpty() ? tr("Untitled") : QFileInfo(path_).fileName();
}

void ProjectDocument::touch()
{
    setDirty(true);
    emit changed();
}

void ProjectDocument::setDirty(bool d)
{
    if (dirty_ == d)
        return;
    dirty_ = d;
    emit dirtyChanged(d);
}

void ProjectDocument::pickDefaults()
{
    currentCluster_ = project_.clusters.empty() ? "" : project_.clusters.front().name;
    currentModel_ = project_.models.empty() ? "" : project_.models.front().model.name;
    currentJob_ = project_.jobs.empty() ? "" : project_.jobs.front().name;
    currentPlan_.reset();
    for (auto it = project_.runs.rbegin(); it != project_.runs.rend() && !currentPlan_; ++it)
        for (size_t i = 0; i < it->results.size(); ++i)
            if (it->results[i].plan) {
                currentPlan_ = PlanRef{it->id, int(i)};
                break;
            }
}

void ProjectDocument::replaceProject(Project p, const QString& path)
{
    project_ = std::move(p);
    path_ = path;
    pickDefaults();
    setDirty(false);
    emit fileChanged(path_);
    emit changed();
    emit currentChanged();
    emit currentPlanChanged();
}

void ProjectDocument::newProject() { replaceProject(Project{}, QString()); }

void ProjectDocument::open(const QString& path)
{
    replaceProject(loadProject(path.toStdString()), path); // loadProject throws: nothing changes on failure
}

void ProjectDocument::save()
{
    if (path_.isEmpty())
        throw InputError("project", "file", "no file name yet (use Save As)");
    saveProject(project_, path_.toStdString());
    setDirty(false);
}

void ProjectDocument::saveAs(const QString& path)
{
    saveProject(project_, path.toStdString());
    path_ = path;
    setDirty(false);
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

namespace {
// Replaces `existing` (if any) with `value` or appends it; false when nothing changed.
template <class T>
bool upsert(std::vector<T>& items, T* existing, const T& value)
{
    if (!existing) {
        items.push_back(value);
        return true;
    }
    if (*existing == value)
        return false;
    *existing = value;
    return true;
}
} // namespace

void ProjectDocument::setCluster(const Cluster& c)
{
    if (upsert(project_.clusters, project_.findCluster(c.name), c))
        touch();
}

void ProjectDocument::renameCluster(const std::string& from, const Cluster& c)
{
    if (Cluster* existing = project_.findCluster(from)) {
        *existing = c;
        if (currentCluster_ == from)
            currentCluster_ = c.name;
        touch();
    } else {
        setCluster(c);
    }
}

void ProjectDocument::addModel(const ProjectModel& m)
{
    if (upsert(project_.models, project_.findModel(m.model.name), m))
        touch();
}

void ProjectDocument::setProfile(const std::string& model, const Profile& p)
{
    if (ProjectModel* m = project_.findModel(model)) {
        m->profile = p;
        touch();
    }
}

void ProjectDocument::setJob(const NamedJob& j)
{
    if (upsert(project_.jobs, project_.findJob(j.name), j))
        touch();
}

int ProjectDocument::addRun(Run run)
{
    run.id = project_.nextRunId();
    project_.runs.push_back(std::move(run));
    touch();
    return project_.runs.back().id;
}

void ProjectDocument::addRunResult(int runId, const RunResult& r)
{
    for (Run& run : project_.runs)
        if (run.id == runId) {
            run.results.push_back(r);
            touch();
            return;
        }
}

void ProjectDocument::removeRun(int runId)
{
    auto& runs = project_.runs;
    runs.erase(std::remove_if(runs.begin(), runs.end(), [&](const Run& r) { return r.id == runId; }), runs.end());
    if (currentPlan_ && currentPlan_->runId == runId)
        setCurrentPlan(std::nullopt);
    touch();
}

void ProjectDocument::setCurrentCluster(const std::string& n)
{
    if (n == currentCluster_)
        return;
    currentCluster_ = n;
    emit currentChanged();
}

void ProjectDocument::setCurrentModel(const std::string& n)
{
    if (n == currentModel_)
        return;
    currentModel_ = n;
    emit currentChanged();
}

void ProjectDocument::setCurrentJob(const std::string& n)
{
    if (n == currentJob_)
        return;
    currentJob_ = n;
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
    if (!r || ref.result < 0 || ref.result >= int(r->results.size()) || !r->results[ref.result].plan)
        return nullptr;
    return &*r->results[ref.result].plan;
}

const Cluster* ProjectDocument::cluster() const { return project_.findCluster(currentCluster_); }
const ProjectModel* ProjectDocument::model() const { return project_.findModel(currentModel_); }
const NamedJob* ProjectDocument::job() const { return project_.findJob(currentJob_); }

} // namespace hetplan
