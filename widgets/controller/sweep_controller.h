#pragma once
// The What-if tab's sweep: the core sweep (core/planners/sweep.h, the CLI's `sweep`) run on
// a worker thread so the GUI thread never blocks. Progress arrives as a signal after each row (through
// WorkerThread's mailbox); cancel() stops the searches under way at their next poll and skips
// the rest (those rows say "cancelled"); finished() hands the rows back on the GUI thread.
#include "core/planners/sweep.h"
#include "widgets/controller/worker_thread.h"

#include <QObject>

#include <stop_token>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace hetplan {

// Every combination of `axis` applied to `base`, checked before anything is planned (as the CLI does):
// a node the cluster lacks, a sequence length the model cannot take or a job the values make invalid
// throws InputError(source, field, reason). Example models are rebuilt for each sequence length.
std::vector<std::pair<SweepPoint, PlanRequest>> sweepRequestsFor(const PlanRequest& base, const SweepAxis& axis,
                                                                 const std::string& source = "What-if");

class SweepController : public QObject {
    Q_OBJECT
public:
    explicit SweepController(QObject* parent = nullptr);
    ~SweepController() override; // cancels a sweep still running and waits for it

    bool isRunning() const;
    // Starts planning every (request, planner) pair; false if a sweep is already running. `threads` 0 =
    // one fewer than the CPU cores (at least one), so the GUI thread keeps a core.
    // `options` are each planner's own (the Run tab's), added to the requests'.
    bool start(std::vector<std::pair<SweepPoint, PlanRequest>> requests, std::vector<std::string> planners,
               int threads = 0, PlannerOptions options = {});
    void cancel();
    bool wasCancelled() const { return cancelled_; }
    // The rows of the last finished sweep, in runSweep's order (combination by combination, planners in order).
    const std::vector<SweepRow>& rows() const { return rows_; }
    // Blocks until the worker is done (tests and shutdown only).
    void wait();

signals:
    void progress(int finished, int total);
    void finished();

private:
    struct SweepState { // what the worker and the GUI thread share
        std::stop_source stop;
        std::vector<SweepRow> rows;
    };
    void onWorkerDone();

    std::shared_ptr<SweepState> shared_;
    WorkerThread worker_;
    std::vector<SweepRow> rows_;
    bool cancelled_ = false;
};

} // namespace hetplan
