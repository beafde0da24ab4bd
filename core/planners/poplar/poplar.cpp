#include "poplar.h"

#include "allocation.h"
#include "details.h"
#include "profiling.h"

#include "core/base/errors.h"
#include "core/cost/collectives.h"
#include "core/cost/zero_comm.h"

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
    const Allocation a = wallTime ? searchWallTime(prof.devices, curves, gbs, comm)
                                  : allocateByPeakSpeed(prof.devices, curves, gbs, comm);
    if (a.gpus.empty())
        throw InfeasibleError("poplar: ZeRO-" + std::to_string(prof.stage) +
                              " runs every GPU in lock-step, each needs at least one sample per micro-step; the "
                              "global batch " +
                              std::to_string(gbs) + " cannot be split that way over " +
                              std::to_string(req.cluster.gpuCount()) + " GPUs");
    Plan plan;
    plan.zero = ZeroPlan{prof.stage, a.gpus};
    plan.plannerEstimate = a.seconds;
    plan.search.candidates = a.candidates;
    int runs = 0;
    for (const DeviceProfile& d : prof.devices)
        runs += d.runs;
    plan.search.extra["profiling_runs"] = runs;
    plan.search.extra["zero_stage_escalations"] = double(prof.escalations.size());
    plan.details["poplar"] = detailsJson(prof, curves, a, wallTime);
    return plan;
}

} // namespace hetplan
