#pragma once
// `deepspeed-zero`: the baseline Poplar compares against (its baseline 3). DeepSpeed runs one micro-batch
// size and one accumulation count on every rank, so the micro-batch is the largest that fits the smallest
// GPU at the job's ZeRO stage (found with the memory model as the out-of-memory oracle, like Poplar's
// profiling), lowered only when the global batch cannot be split into equal steps with it. When the
// global batch is not a multiple of micro-batch × GPUs the last micro-step carries the remainder, spread
// evenly (a rank→batch file runs it, see the DeepSpeed export). No ZeRO stage escalation: a stage at
// which one sample does not fit is infeasible, as it would be for DeepSpeed.
#include "core/planners/planner.h"

namespace hetplan {

class DeepSpeedZeroPlanner : public Planner {
public:
    std::string name() const override { return "deepspeed-zero"; }
    std::string description() const override
    {
        return "Baseline: DeepSpeed ZeRO, one micro-batch for all GPUs (the largest the smallest GPU fits)";
    }
    Plan plan(const PlanRequest& request, const CostModel& costs, Progress& progress) const override;
};

} // namespace hetplan
