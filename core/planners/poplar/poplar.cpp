#include "poplar.h"

#include "allocation.h"
#include "details.h"
#include "profiling.h"

#include "core/base/errors.h"
#include "core/cost/collectives.h"
#include "core/cost/zero_comm.h"
#include "core/planners/common/zero_baselines.h"
#include "core/planners/common/zero_batches.h"
#include "core/sim/simulator.h"

#include <QJsonObject>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include <numeric>

namespace hetplan {

using namespace poplar;

std::vector<PlannerOption> PoplarPlanner::options() const
{
    return {PlannerOption::boolean("escalate", "Escalate the ZeRO stage", true,
                                   "move to the next ZeRO stage when one sample does not fit a GPU (as the paper "
                                   "does); off: refuse instead")};
}

namespace {

ZeroCollectiveSeconds collectives(const PlanRequest& req, int stage)
{
    std::vector<int> all(size_t(req.cluster.gpuCount()));
    std::iota(all.begin(), all.end(), 0);
    double params = 0;
    for (const LayerSpec& l : req.model.layers)
        params += l.params;
    return zeroCollectiveSeconds(stage, params, req.job, int(all.size()), groupLink(req.cluster, all));
}

// Every rank of a data-parallel step needs a sample: a GPU the allocation left empty (a slow one, with a
// small batch) takes one from the GPU with the most, each run in as few micro-steps as its profile allows.
std::vector<ZeroGpu> atLeastOneSampleEach(std::vector<ZeroGpu> gpus, const ProfilingResult& prof)
{
    std::map<int, int> cap; // GPU → its type's largest micro-batch
    for (const DeviceProfile& d : prof.devices)
        for (int g : d.gpus)
            cap[g] = std::max(1, d.maxMicroBatch);
    std::vector<long long> samples;
    for (const ZeroGpu& z : gpus)
        samples.push_back(z.samples());
    bool changed = false;
    for (size_t i = 0; i < gpus.size(); ++i)
        if (samples[i] == 0) {
            const size_t most = size_t(std::max_element(samples.begin(), samples.end()) - samples.begin());
            if (samples[most] <= 1)
                return {};
            --samples[most];
            samples[i] = 1;
            changed = true;
        }
    if (!changed)
        return gpus;
    for (size_t i = 0; i < gpus.size(); ++i)
        gpus[i] = evenSteps(gpus[i].gpu, int(samples[i]), cap[gpus[i].gpu]);
    return gpus;
}

// The simulated iteration time of a ZeRO allocation on the request's inputs; infinity when it does not fit.
double simulatedSeconds(const PlanRequest& req, const CostModel& costs, int stage, const std::vector<ZeroGpu>& gpus)
{
    Plan p;
    p.cluster = req.cluster;
    p.model = req.model;
    p.job = req.job;
    p.zero = ZeroPlan{stage, gpus};
    const SimResult r = simulate(p, costs);
    return r.feasible ? r.iterationSeconds : std::numeric_limits<double>::infinity();
}

} // namespace

Plan PoplarPlanner::plan(const PlanRequest& req, const CostModel& costs, Progress& progress) const
{
    progress.report(0.05, "poplar: online profiling");
    const ProfilingResult prof = profileCluster(req, costs, req.boolOption("escalate"), progress);
    progress.checkpoint();
    std::vector<SpeedCurve> curves;
    for (const DeviceProfile& d : prof.devices)
        curves.emplace_back(d);
    progress.report(0.5, "poplar: batch search");
    const bool wallTime = prof.stage >= 2;
    const ZeroCollectiveSeconds comm = collectives(req, prof.stage);
    const int gbs = req.job.globalBatchSize;
    if (gbs < req.cluster.gpuCount())
        throw InfeasibleError("poplar: the global batch " + std::to_string(gbs) + " is smaller than the " +
                              std::to_string(req.cluster.gpuCount()) +
                              " GPUs: every rank needs at least one sample (leave GPUs out with --without)");
    Allocation a = wallTime ? searchWallTime(prof.devices, curves, gbs, comm)
                            : allocateByPeakSpeed(prof.devices, curves, gbs, comm);
    a.gpus = atLeastOneSampleEach(a.gpus, prof);
    if (a.gpus.empty())
        throw InfeasibleError("poplar: ZeRO-" + std::to_string(prof.stage) +
                              " runs every GPU in lock-step, each needs at least one sample per micro-step; the "
                              "global batch " +
                              std::to_string(gbs) + " cannot be split that way over " +
                              std::to_string(req.cluster.gpuCount()) + " GPUs");
    // The baselines Poplar's space contains (one micro-batch for all, FLOP/s-proportional shares), at the
    // stage it chose: whichever simulates fastest is the plan, so Poplar is never worse than them.
    progress.report(0.9, "poplar: baselines");
    struct Option {
        const char* name;
        std::vector<ZeroGpu> gpus;
        double seconds = std::numeric_limits<double>::infinity();
    };
    std::vector<Option> options{{"poplar", a.gpus}};
    std::string why;
    if (auto u = uniformZeroBatches(req, costs, prof.stage, why); !u.empty())
        options.push_back({"uniform micro-batch", u});
    if (auto w = flopsProportionalBatches(req, costs, prof.stage, WhaleFlops::Fp32, why); !w.empty())
        options.push_back({"FLOP/s-proportional", w});
    QJsonObject compared;
    const Option* best = &options.front();
    for (Option& o : options) {
        o.seconds = simulatedSeconds(req, costs, prof.stage, o.gpus);
        compared[o.name] = std::isfinite(o.seconds) ? QJsonValue(o.seconds) : QJsonValue("does not fit");
        if (o.seconds < best->seconds)
            best = &o;
    }
    Plan plan;
    plan.zero = ZeroPlan{prof.stage, best->gpus};
    plan.plannerEstimate = a.seconds;
    plan.search.candidates = a.candidates;
    int runs = 0;
    for (const DeviceProfile& d : prof.devices)
        runs += d.runs;
    plan.search.extra["profiling_runs"] = runs;
    plan.search.extra["zero_stage_escalations"] = double(prof.escalations.size());
    QJsonObject details = detailsJson(prof, curves, a, wallTime);
    details["candidates_simulated"] = compared;
    details["chosen"] = best->name;
    plan.details["poplar"] = details;
    return plan;
}

} // namespace hetplan
