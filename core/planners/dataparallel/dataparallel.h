#pragma once
// `data-parallel`: the ZeRO reference planner. Every GPU holds the whole model (sharded per the job's ZeRO
// stage) and gets the same number of samples; the micro-batch is the largest that divides the per-GPU
// batch and fits the smallest GPU. It ignores heterogeneity on purpose (DeepSpeed's behaviour), so it is
// the baseline for the heterogeneity-aware ZeRO planner.
#include "core/planners/planner.h"

namespace hetplan {

class DataParallelPlanner : public Planner {
public:
    std::string name() const override { return "data-parallel"; }
    std::string description() const override
    {
        return "Reference: ZeRO data parallelism (stage from the job), equal batches on every GPU";
    }
    std::vector<PlannerOption> options() const override;
    Plan plan(const PlanRequest& request, const CostModel& costs, Progress& progress) const override;
};

} // namespace hetplan
