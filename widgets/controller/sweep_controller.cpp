#include "sweep_controller.h"

#include "core/base/errors.h"

#include <algorithm>
#include <thread>

namespace hetplan {

namespace {

// Example models are rebuilt for the length (as currentPlanRequest does for the job's); a custom model and
// a measured profile hold one sequence length only.
SequenceSetter sequenceSetter(const std::string& source)
{
    return [source](PlanRequest& r, int seq) {
        if (!r.profile.empty())
            throw InputError(source, "seq",
                             "the model's measured profile holds one sequence length: remove it to vary the sequence");
        if (r.model.arch.family == "custom") {
            if (r.model.arch.sequence > 0 && r.model.arch.sequence != seq)
                throw InputError(source, "seq",
                                 "model '" + r.model.name + "' is built for sequence length " +
                                     std::to_string(r.model.arch.sequence));
        } else
            r.model = buildExampleModel(r.model.name, seq);
        r.job.sequenceLength = seq;
    };
}

} // namespace

std::vector<std::pair<SweepPoint, PlanRequest>> sweepRequestsFor(const PlanRequest& base, const SweepAxis& axis,
                                                                 const std::string& source)
{
    const SequenceSetter setSequence = sequenceSetter(source);
    std::vector<std::pair<SweepPoint, PlanRequest>> requests;
    for (const SweepPoint& point : sweepPoints({axis})) {
        PlanRequest r = applySweepPoint(base, point, setSequence, source);
        r.job.validate(source);
        requests.emplace_back(point, std::move(r));
    }
    return requests;
}

SweepController::SweepController(QObject* parent) : QObject(parent)
{
    connect(&worker_, &WorkerThread::finished, this, &SweepController::onWorkerDone);
}

SweepController::~SweepController()
{
    cancel();
    wait();
}

bool SweepController::isRunning() const { return worker_.isRunning(); }

bool SweepController::start(std::vector<std::pair<SweepPoint, PlanRequest>> requests, std::vector<std::string> planners,
                            int threads, PlannerOptions options)
{
    if (isRunning())
        return false;
    if (threads <= 0)
        threads = std::max(1, int(std::thread::hardware_concurrency()) - 1);
    cancelled_ = false;
    shared_ = std::make_shared<SweepState>();
    auto shared = shared_;
    return worker_.start([this, shared, requests = std::move(requests), planners = std::move(planners), threads,
                          options = std::move(options)](const WorkerThread::Post& post) {
        shared->rows = runSweep(
            requests, planners, threads,
            [this, &post](int finished, int total, const SweepRow&) {
                post([this, finished, total] { emit progress(finished, total); });
            },
            shared->stop.get_token(), options);
    });
}

void SweepController::cancel()
{
    if (!shared_ || !isRunning())
        return;
    cancelled_ = true;
    shared_->stop.request_stop();
}

void SweepController::wait() { worker_.wait(); }

void SweepController::onWorkerDone()
{
    rows_ = shared_ ? std::move(shared_->rows) : std::vector<SweepRow>{};
    emit finished();
}

} // namespace hetplan
