#include "project.h"

#include <algorithm>

namespace hetplan {

Cluster* Project::findCluster(const std::string& name)
{
    auto it = std::find_if(clusters.begin(), clusters.end(), [&](const Cluster& c) { return c.name == name; });
    return it == clusters.end() ? nullptr : &*it;
}

ProjectModel* Project::findModel(const std::string& name)
{
    auto it = std::find_if(models.begin(), models.end(), [&](const ProjectModel& m) { return m.model.name == name; });
    return it == models.end() ? nullptr : &*it;
}

NamedJob* Project::findJob(const std::string& name)
{
    auto it = std::find_if(jobs.begin(), jobs.end(), [&](const NamedJob& j) { return j.name == name; });
    return it == jobs.end() ? nullptr : &*it;
}

const Cluster* Project::findCluster(const std::string& name) const
{
    return const_cast<Project*>(this)->findCluster(name);
}

const ProjectModel* Project::findModel(const std::string& name) const
{
    return const_cast<Project*>(this)->findModel(name);
}

const NamedJob* Project::findJob(const std::string& name) const { return const_cast<Project*>(this)->findJob(name); }

int Project::nextRunId() const
{
    int id = 0;
    for (const Run& r : runs)
        id = std::max(id, r.id);
    return id + 1;
}

namespace {
constexpr std::pair<RunStatus, const char*> kRunStatusNames[] = {
    {RunStatus::Ok, "ok"},
    {RunStatus::Infeasible, "infeasible"},
    {RunStatus::NotApplicable, "not-applicable"},
    {RunStatus::Cancelled, "cancelled"},
    {RunStatus::Error, "error"},
};
} // namespace

std::string toString(RunStatus s)
{
    for (const auto& [status, name] : kRunStatusNames)
        if (status == s)
            return name;
    return "error";
}

bool parseRunStatus(const std::string& text, RunStatus& out)
{
    for (const auto& [status, name] : kRunStatusNames)
        if (text == name) {
            out = status;
            return true;
        }
    return false;
}

} // namespace hetplan
