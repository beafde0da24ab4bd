#pragma once
// `megatron`: the Megatron-LM heuristics as summarised by the AMP paper (sec. 4.1), the baseline AMP is
// compared with. For every micro-batch size: tensor parallelism only inside a node (tmp dividing every
// node's GPU count, hence ≤ the smallest node), then the degrees with the smallest tmp·pp whose stages fit
// GPU memory (all ties are proposed), Megatron's placement (tp ranks on neighbouring GPUs of a node, then
// data parallel, then pipeline) and layers split evenly (split=layers) or by parameter count
// (split=params, the contiguous split minimising the largest stage's parameters). Like the paper, every
// proposal is then "run" — here simulated — and the fastest is returned. Megatron has no cost model of
// its own: candidates' planner cost and planner_estimate carry AMP's eq. 3-5 estimate for comparison.
#include "core/planners/planner.h"

namespace hetplan {

class MegatronPlanner : public Planner {
public:
    std::string name() const override { return "megatron"; }
    std::string description() const override
    {
        return "Megatron heuristic: tp inside a node, smallest tp·pp that fits, even or parameter-balanced split";
    }
    std::vector<PlannerOption> options() const override;
    Plan plan(const PlanRequest& request, const CostModel& costs, Progress& progress) const override;
};

} // namespace hetplan
