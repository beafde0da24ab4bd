#pragma once
// Re-planning after node failures: when a node of the current cluster is marked failed or healthy again,
// the current plan is planned again on the worker thread with the same planner and options on the cluster
// as it is now, its own sections handed over as PlanRequest::reuse. The outcome (a new run of the plans
// before and after), coalescing and failure handling: docs/architecture.md, "Failed nodes and re-planning".
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
