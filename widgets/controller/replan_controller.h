#pragma once
// Re-planning after node failures: when a node of the current cluster is marked failed or
// healthy again, the current plan is planned again on the worker thread with the same planner and the same
// options on the cluster as it is now (runPlanner leaves failed nodes out, as `--without` does), handing
// the plan's own sections over as PlanRequest::reuse so oobleck and ditto re-instantiate the templates they
// stored instead of searching again.
//
// Decisions:
// - The outcome is a new Run of two results, the plan before (a copy of the result re-planned from) and the
//   plan after, and the plan after becomes current. Every view then follows without special cases: the
//   Gantt chart and the stage map show the new plan, the comparison shows before and after side by side,
//   the Run tab lists both with their iteration times, and the pair is saved with the project.
// - A re-plan that finds no plan (the remaining GPUs do not fit the model, no node left, an error) changes
//   nothing: no run is added, the plan before stays current, replanFailed() says why. The failed mark stays
//   (it is the user's edit, undoable like any other).
// - A request while a re-plan runs is remembered; the running one is then dropped when it ends and the
//   last request runs on the cluster as it is by then (marking two nodes quickly gives one re-plan for both).
// - The re-plan reads the model and job from the plan re-planned from (what it was made for), the measured
//   profile from the project's model of that name (the plan keeps only the types it used, and a recovered
//   node may bring another type back), and the default seed, as the Run tab does.
#include "project_document.h"

#include "core/planners/planner.h"

#include <QObject>
#include <QStringList>
#include <optional>

namespace hetplan {

class RunController;

class ReplanController : public QObject {
    Q_OBJECT
public:
    explicit ReplanController(ProjectDocument* doc, QObject* parent = nullptr);
    ~ReplanController() override;

    // Re-plans the plan `from` on the document's current cluster. False when `from` is no plan or was made on
    // another cluster than the current one (nothing to re-plan); true when started or queued.
    bool replan(const PlanRef& from);
    bool isRunning() const { return busy_; } // from start until its outcome was handled
    void cancel();
    void wait(); // tests and shutdown

    // The request a re-plan of `plan` sends on `cluster` (failed nodes still in it; runPlanner drops them).
    static PlanRequest requestFor(const Plan& plan, const Cluster& cluster, const Profile& profile);

signals:
    void started(const QString& planner);
    // The new run's two results: `before` (copy) and `after` (now the current plan).
    void replanned(const hetplan::PlanRef& before, const hetplan::PlanRef& after);
    void replanFailed(const QString& reason);

private:
    bool start(const PlanRef& from);
    void onFinished(const Run& run);
    Run resultRun(const RunResult& after) const;

    ProjectDocument* doc_;
    RunController* runner_;
    PlanRef from_;           // the plan being re-planned
    RunResult before_;       // its result as it was when the re-plan started
    std::string cluster_;    // the cluster re-planned on
    std::string failedText_; // "rtx4090-0, rtx4090-1" or "" when every node is healthy
    std::optional<PlanRef> pending_;
    bool busy_ = false;
};

// Axis labels for the comparison of plans whose clusters differ in their nodes (a re-plan after a failure):
// "<planner>\n<n> GPUs" or "<planner>\n<n> GPUs without a, b", relative to every node any of the plans used.
// Empty when all plans ran on the same nodes (the planner names say enough).
QStringList nodeSetLabels(const std::vector<Plan>& plans);

} // namespace hetplan

Q_DECLARE_METATYPE(hetplan::PlanRef)
