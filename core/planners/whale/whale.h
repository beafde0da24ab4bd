#pragma once
// `whale`: the Whale-style baseline Poplar compares against (its baseline 4): every GPU's share of the
// global batch is proportional to its peak FLOP/s (Whale's hardware-aware load balancing), with the largest
// micro-batches that fit each GPU at the job's ZeRO stage (the paper tuned Whale's batch sizes by hand the
// same way). ZeRO-0/1: shares by largest remainder, each run in as few micro-steps as fit its GPU.
// ZeRO-2/3: all GPUs run the same number of micro-steps (DeepSpeed reduces in every backward), the
// micro-batches proportional to FLOP/s scaled up until one GPU is at its largest fitting size; the last
// micro-step's remainder is also spread by FLOP/s. No ZeRO stage escalation. Option `flops`: fp32 (default:
// the Poplar paper's Whale baseline divides by single-precision FLOP/s) or tensor (the dense 16-bit peak,
// which favours GPUs with large tensor units). A global batch smaller than the GPU count is refused: a
// rank with no sample cannot take part in a data-parallel step.
#include "core/planners/planner.h"

namespace hetplan {

class WhalePlanner : public Planner {
public:
    std::string name() const override { return "whale"; }
    std::string description() const override
    {
        return "Baseline: Whale-style ZeRO batches proportional to each GPU's peak FLOP/s";
    }
    std::vector<PlannerOption> options() const override;
    Plan plan(const PlanRequest& request, const CostModel& costs, Progress& progress) const override;
};

} // namespace hetplan
