#pragma once
// `exhaustive`: the optimal single pipeline over all GPU types of a heterogeneous cluster (Ditto section 3),
// found exactly by the Pareto dynamic program of common/exact_pipeline.h. The reference Ditto is measured against.
#include "core/planners/planner.h"

namespace hetplan {

class ExhaustivePlanner : public Planner {
public:
    std::string name() const override { return "exhaustive"; }
    std::string description() const override
    {
        return "Ditto sec. 3: the exact optimal single heterogeneous pipeline (Pareto DP over layers x GPU counts)";
    }
    std::vector<PlannerOption> options() const override;
    Plan plan(const PlanRequest& request, const CostModel& costs, Progress& progress) const override;
};

} // namespace hetplan
