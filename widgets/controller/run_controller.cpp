#include "run_controller.h"

#include "core/base/errors.h"
#include "widgets/common/gui_errors.h"

#include <stop_token>
#include <chrono>
#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace hetplan {

namespace {
// Lowers the calling thread's scheduling priority for its lifetime (Linux: per-thread nice value; Qt's
// QThread priorities are no-ops under SCHED_OTHER).
class LowerThreadPriority {
public:
    LowerThreadPriority()
    {
#ifdef __linux__
        tid_ = pid_t(syscall(SYS_gettid));
        old_ = getpriority(PRIO_PROCESS, id_t(tid_));
        setpriority(PRIO_PROCESS, id_t(tid_), std::min(old_ + 5, 19));
#endif
    }
    ~LowerThreadPriority()
    {
#ifdef __linux__
        setpriority(PRIO_PROCESS, id_t(tid_), old_); // may fail without privileges; the worker thread stays nicer
#endif
    }

private:
    pid_t tid_ = 0;
    int old_ = 0;
};
} // namespace

struct RunController::RunState {
    std::stop_source stop; // cancel(): every planner's Progress holds its token
    // Worker-side throttle: planners may report every iteration; the GUI needs a few updates a second.
    std::chrono::steady_clock::time_point lastReport{};
};

RunController::RunController(QObject* parent) : QObject(parent)
{
    qRegisterMetaType<hetplan::RunResult>();
    qRegisterMetaType<hetplan::Run>();
    connect(&worker_, &WorkerThread::finished, this, [this] { emit finished(run_); });
}

RunController::~RunController()
{
    cancel();
    wait();
}

bool RunController::isRunning() const { return worker_.isRunning(); }

void RunController::cancel()
{
    if (!shared_)
        return;
    shared_->stop.request_stop();
}

bool RunController::wasCancelled() const { return shared_ && shared_->stop.stop_requested(); }

void RunController::wait() { worker_.wait(); }

namespace {
// Runs result.planner into `result`: its plan, or why there is none as status and message.
void runInto(RunResult& result, const PlanRequest& req, Progress& progress)
{
    try {
        result.plan = runPlanner(result.planner, req, progress);
        // A stopped search keeps its best plan so far; a cancel still reads as a cancel.
        const StopReason stopped = result.plan->search.stopped;
        result.status = stopped == StopReason::Cancelled ? RunStatus::Cancelled : RunStatus::Ok;
        if (stopped != StopReason::None)
            result.message = (stopped == StopReason::Cancelled ? "cancelled" : "time limit reached") +
                             std::string(" — best plan so far");
        else if (auto it = result.plan->details.find("selection"); it != result.plan->details.end())
            result.message = "GPUs: " + it->second.value("subset").toString().toStdString() + " — " +
                             it->second.value("why").toString().toStdString();
    } catch (const InfeasibleError& e) {
        result.status = RunStatus::Infeasible;
        result.message = guiErrorText(e, result.planner).toStdString();
    } catch (const CancelledError& e) {
        result.status = RunStatus::Cancelled;
        result.message = guiErrorText(e, result.planner).toStdString();
    } catch (const std::exception& e) {
        // Input errors name the Job panel's fields and the Run tab's options, not the CLI's flags.
        result.status = RunStatus::Error;
        result.message = guiErrorText(e, result.planner).toStdString();
    }
}
} // namespace

bool RunController::start(const std::vector<std::string>& planners, const PlanRequest& request, Run run,
                          PlannerOptions optionsPerPlanner)
{
    if (isRunning())
        return false;
    run_ = std::move(run);
    shared_ = std::make_shared<RunState>();
    return worker_.start([this, planners, request, optionsPerPlanner,
                          shared = shared_](const WorkerThread::Post& post) {
        LowerThreadPriority lower; // the GUI thread wins when the cores are busy
        runAll(planners, request, optionsPerPlanner, *shared, deliverer(post), reporter(post, shared), starter(post));
    });
}

// Results are appended to run_ on the GUI thread, so the worker never touches run_. The closures run only
// while this controller lives (WorkerThread, its member, drops undelivered ones when destroyed).
RunController::Deliver RunController::deliverer(const WorkerThread::Post& post)
{
    return [this, post](RunResult r) {
        post([this, r = std::move(r)] {
            run_.results.push_back(r);
            emit resultReady(r);
        });
    };
}

RunController::Started RunController::starter(const WorkerThread::Post& post)
{
    return [this, post](int index, const std::string& planner) {
        post([this, index, name = QString::fromStdString(planner)] { emit plannerStarted(index, name); });
    };
}

// Progress goes to the GUI thread too, at most every 25 ms (except the final report).
RunController::Report RunController::reporter(const WorkerThread::Post& post, std::shared_ptr<RunState> shared)
{
    return [this, post, shared](double f, const std::string& text) {
        const auto now = std::chrono::steady_clock::now();
        if (f < 1.0 && now - shared->lastReport < std::chrono::milliseconds(25))
            return;
        shared->lastReport = now;
        post([this, f, t = QString::fromStdString(text)] { emit progress(f, t); });
    };
}

// The worker: the planners one after another, each result delivered as soon as it is ready; after a
// cancel the remaining planners are delivered as cancelled without running.
void RunController::runAll(const std::vector<std::string>& planners, const PlanRequest& request,
                           const PlannerOptions& optionsPerPlanner, RunState& shared, const Deliver& deliver,
                           const Report& report, const Started& started)
{
    const int n = int(planners.size());
    for (int i = 0; i < n; ++i) {
        RunResult result;
        result.planner = planners[i];
        const PlanRequest req = requestForPlanner(request, planners[i], optionsPerPlanner);
        result.options = req.options;
        if (shared.stop.stop_requested()) {
            result.status = RunStatus::Cancelled;
            result.message = "cancelled before it started";
            deliver(result);
            continue;
        }
        Progress progress([report, i, n, name = planners[i]](
                              double f, const std::string& text) { report((i + f) / n, name + ": " + text); },
                          req.timeLimitSeconds, shared.stop.get_token());
        started(i, planners[i]);
        const auto t0 = std::chrono::steady_clock::now();
        runInto(result, req, progress);
        result.durationSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        deliver(result);
    }
    report(1.0, "done");
}

} // namespace hetplan
