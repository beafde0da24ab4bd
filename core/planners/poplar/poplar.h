#pragma once
// `poplar`: heterogeneity-aware ZeRO (Zhang et al., Poplar). Every GPU holds the whole model sharded per
// the ZeRO stage and gets its own micro-batch, accumulation count and last micro-batch so that all GPUs
// reach each synchronisation point together. Online profiling (algorithm 1, profiling.h) runs against the
// memory and cost models, the batch→speed curves are natural cubic splines (speed_curve.h) and the batch
// search is algorithm 2 (allocation.h). The plan's "poplar" section carries, per device type, the
// profiled points, the non-fitting sizes, the spline sampled densely, the chosen batches and any ZeRO
// stage escalation, for the GUI's curve view.
#include "core/planners/planner.h"

namespace hetplan {

class PoplarPlanner : public Planner {
public:
    std::string name() const override { return "poplar"; }
    std::string description() const override
    {
        return "Poplar: heterogeneous ZeRO 0-3, per-GPU batches from profiled batch→speed curves";
    }
    std::vector<PlannerOption> options() const override;
    Plan plan(const PlanRequest& request, const CostModel& costs, Progress& progress) const override;
};

} // namespace hetplan
