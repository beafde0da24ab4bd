#pragma once
// Runs planners on a worker thread, one after another, and hands each result back to the GUI thread as
// soon as it is ready. Progress and results arrive as signals on the GUI thread (through WorkerThread's
// mailbox); cancel() stops the running planner at its next checkpoint and skips the rest. The GUI thread
// never blocks.
#include "core/model/project.h"
#include "core/planners/planner.h"
#include "widgets/controller/worker_thread.h"

#include <QObject>
#include <functional>
#include <memory>

namespace hetplan {

class RunController : public QObject {
    Q_OBJECT
public:
    explicit RunController(QObject* parent = nullptr);
    ~RunController() override;

    bool isRunning() const;
    // Starts the planners on `request`; returns false if a run is already going. `run` names the inputs and
    // gets results appended as they arrive (see resultReady / finished).
    bool start(const std::vector<std::string>& planners, const PlanRequest& request, Run run,
               PlannerOptions optionsPerPlanner = {});
    void cancel();
    // Whether the user cancelled the current (or last) run; a run that ran out of time was not cancelled.
    bool wasCancelled() const;
    // Blocks until the worker is done (tests and shutdown only).
    void wait();

signals:
    // The planner at `index` of the run's list starts searching (the one before it has delivered).
    void plannerStarted(int index, const QString& planner);
    void progress(double fraction, const QString& text);
    void resultReady(const hetplan::RunResult& result);
    void finished(const hetplan::Run& run);

private:
    struct RunState; // what the worker and the GUI thread share: the stop source, the report throttle
    using Deliver = std::function<void(RunResult)>;
    using Report = std::function<void(double fraction, const std::string& text)>;
    using Started = std::function<void(int index, const std::string& planner)>;
    Deliver deliverer(const WorkerThread::Post& post);
    Report reporter(const WorkerThread::Post& post, std::shared_ptr<RunState> shared);
    Started starter(const WorkerThread::Post& post);
    static void runAll(const std::vector<std::string>& planners, const PlanRequest& request,
                       const PlannerOptions& optionsPerPlanner,
                       RunState& shared, const Deliver& deliver, const Report& report, const Started& started);

    std::shared_ptr<RunState> shared_;
    WorkerThread worker_;
    Run run_;
};

} // namespace hetplan

Q_DECLARE_METATYPE(hetplan::RunResult)
Q_DECLARE_METATYPE(hetplan::Run)
