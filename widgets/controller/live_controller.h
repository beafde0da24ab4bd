#pragma once
// Live re-planning: with Live on, every change of what planning would run on (the current cluster, model,
// profile or job: an edit, its undo or redo, or another item made current) re-runs the Run tab's ticked
// planners on the worker thread (a RunController of its own) and publishes the plans as one live run.
// The decisions (debounce, what counts as a change, the time limit, storage) are in docs/architecture.md,
// "Live re-planning".
#include "project_document.h"

#include "core/planners/planner.h"

#include <QObject>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

class QTimer;

namespace hetplan {

class RunController;

// The request the Run tab's planners get for the document's current cluster, model and job (example models
// are rebuilt for the job's sequence length); nullopt without a current cluster or model.
std::optional<PlanRequest> currentPlanRequest(const ProjectDocument& doc);


// The planners a live run uses and their options (planner → key → value), read when it starts.
struct PlannerSelection {
    std::vector<std::string> planners;
    std::map<std::string, std::map<std::string, std::string>> options;
};

class LiveController : public QObject {
    Q_OBJECT
public:
    static constexpr int kDebounceMs = 100;
    static constexpr double kTimeLimitSeconds = 1.0;

    explicit LiveController(ProjectDocument* doc, QObject* parent = nullptr);
    ~LiveController() override;

    // Where the planners come from (the Run tab's ticks and options); without it nothing runs.
    void setSelection(std::function<PlannerSelection()> selection) { selection_ = std::move(selection); }
    // On: plans the current inputs (after the debounce) and then every change. Off: stops a live run and
    // drops its results.
    void setEnabled(bool on);
    bool isEnabled() const { return enabled_; }
    bool isRunning() const;                  // a live run searches (a cancelled one may still wind down)
    bool isScheduled() const;                // the debounce runs
    int liveRunId() const { return runId_; } // the project's live run (0: none yet)
    RunController* runner() const { return runner_; }
    void wait(); // tests and shutdown

signals:
    void started();               // a live run starts searching
    // The live run holds new plans (at least one feasible) and its best is the current plan.
    void updated(int runId);
    void failed(const QString& why);

private:
    struct Inputs {
        Cluster cluster;
        ProjectModel model;
        Job job;
        bool operator==(const Inputs&) const = default;
    };
    std::optional<Inputs> currentInputs() const;
    void onInputsChanged();
    void onProjectReplaced();
    void start();
    void onFinished(const Run& run);
    void publish(const Run& run);
    void dropRunning();

    ProjectDocument* doc_;
    RunController* runner_;
    QTimer* debounce_;
    std::function<PlannerSelection()> selection_;
    std::optional<Inputs> scheduled_; // the inputs of the last change acted on
    bool enabled_ = false;
    bool stale_ = false;   // the running live run's inputs changed: drop its results
    bool pending_ = false; // the debounce ran out while a cancelled run wound down: start when it ends
    int runId_ = 0;
};

} // namespace hetplan
