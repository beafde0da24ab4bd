#include "deepspeed_zero.h"

#include "core/base/errors.h"
#include "core/planners/common/zero_baselines.h"

namespace hetplan {

Plan DeepSpeedZeroPlanner::plan(const PlanRequest& req, const CostModel& costs, Progress& progress) const
{
    std::string why;
    std::vector<ZeroGpu> split = uniformZeroBatches(req, costs, req.job.zeroStage, why, &progress);
    if (split.empty())
        throw InfeasibleError("deepspeed-zero: " + why);
    Plan plan;
    plan.zero = ZeroPlan{req.job.zeroStage, std::move(split)};
    plan.search.candidates = 1;
    return plan;
}

} // namespace hetplan
