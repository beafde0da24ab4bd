#include "whale.h"

#include "core/base/errors.h"
#include "core/planners/common/zero_baselines.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace hetplan {

std::vector<PlannerOption> WhalePlanner::options() const
{
    return {PlannerOption::choice("flops", "Shares by", "fp32", {"fp32", "tensor"},
                                  "FLOP/s the batch shares follow: fp32 (the Poplar paper's Whale baseline) or the "
                                  "dense 16-bit tensor peak")};
}

Plan WhalePlanner::plan(const PlanRequest& req, const CostModel& costs, Progress& progress) const
{
    std::string why;
    const WhaleFlops flops = req.option("flops") == "tensor" ? WhaleFlops::Tensor : WhaleFlops::Fp32;
    std::vector<ZeroGpu> split = flopsProportionalBatches(req, costs, req.job.zeroStage, flops, why, &progress);
    if (split.empty())
        throw InfeasibleError("whale: " + why);
    Plan plan;
    plan.zero = ZeroPlan{req.job.zeroStage, std::move(split)};
    plan.search.candidates = 1;
    return plan;
}

} // namespace hetplan
