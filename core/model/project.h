#pragma once
// A hetplan project: everything the desktop app keeps in one *.hetplan file (SQLite, see
// core/io/project_store.h) — clusters with their canvas positions, models with imported profiles, jobs,
// and planner runs with their plans.
#include "cluster.h"
#include "job.h"
#include "model.h"
#include "plan.h"
#include "profile.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hetplan {

struct NamedJob {
    std::string name;
    Job job;
    bool operator==(const NamedJob&) const = default;
};

// A model and the measurements imported for it (empty profile = analytic only).
struct ProjectModel {
    ModelSpec model;
    Profile profile;
    bool operator==(const ProjectModel&) const = default;
};

// How one planner's run ended. Strings only at the file and text boundaries (toString / parseRunStatus):
// "ok", "infeasible" (no plan fits), "not-applicable" (a sweep combination outside the planner's domain),
// "cancelled", "error" (the planner failed on its input).
enum class RunStatus { Ok, Infeasible, NotApplicable, Cancelled, Error };
std::string toString(RunStatus s);
bool parseRunStatus(const std::string& text, RunStatus& out);

// One planner's outcome inside a run.
struct RunResult {
    std::string planner;
    std::map<std::string, std::string> options;
    RunStatus status = RunStatus::Ok;
    std::string message; // why it failed, if it did
    double durationSeconds = 0;
    std::optional<Plan> plan; // present when status is Ok, or Cancelled with a best-so-far plan
    bool operator==(const RunResult&) const = default;
};

// Several planners run on one (cluster, model, job).
struct Run {
    int id = 0;                      // unique within the project, increasing
    std::string cluster, model, job; // names of the project's items it ran on
    std::string started;             // ISO 8601 UTC, e.g. "2026-11-21T21:40:00Z"
    std::vector<RunResult> results;
    bool operator==(const Run&) const = default;
};

struct Project {
    std::vector<Cluster> clusters;
    std::vector<ProjectModel> models;
    std::vector<NamedJob> jobs;
    std::vector<Run> runs;
    bool operator==(const Project&) const = default;

    Cluster* findCluster(const std::string& name);
    ProjectModel* findModel(const std::string& name);
    NamedJob* findJob(const std::string& name);
    const Cluster* findCluster(const std::string& name) const;
    const ProjectModel* findModel(const std::string& name) const;
    const NamedJob* findJob(const std::string& name) const;
    int nextRunId() const;
};

} // namespace hetplan
