#pragma once
// `uniform`: the reference planner. Megatron-style degrees (tensor parallel inside a node, then data
// parallel, then pipeline), equal layers per stage, the smallest pipeline depth whose stages fit memory.
// It ignores heterogeneity on purpose: it is the baseline the heterogeneity-aware planners must beat.
#include "core/planners/planner.h"

namespace hetplan {

class UniformPlanner : public Planner {
public:
    std::string name() const override { return "uniform"; }
    std::string description() const override
    {
        return "Reference: Megatron-style degrees, equal layers per stage, smallest pipeline that fits memory";
    }
    std::vector<PlannerOption> options() const override;
    Plan plan(const PlanRequest& request, const CostModel& costs, Progress& progress) const override;
};

} // namespace hetplan
