#pragma once
// `hap`: SPMD program synthesis for heterogeneous clusters (Zhang et al., EuroSys '24), and its two
// baselines `dp-even` and `dp-proportional` (data parallelism, PyTorch DDP style, with even or
// compute-proportional batch shares), which run through the same tensor program, lowering and simulator.
//
// Decisions (the paper leaves them open or they follow from this code base):
//  - virtual devices are GPU types: GPUs of one type get equal ratios (by symmetry the LP optimum allows
//    it), so the search and the LP stay small whatever the GPU count; collectives run over all GPUs as one
//    ring at the cluster's bottleneck link;
//  - ratio segments are the layer-level model's layers (option segments=layer) or one for all (single);
//  - every sharded dimension (samples, experts, heads, features) is rounded to whole units per GPU by the
//    largest remainder (section 5.1); the plan stores them (SpmdPlan::dimensions) and the batch-rounded
//    ratios; a dimension with fewer units than GPUs leaves GPUs without a unit, which the search prices
//    (docs/architecture.md, "Whole units per GPU");
//  - compute time is the layer-level cost model's seconds per FLOP of each layer, pass and device
//    (spmdSecondsPerFlop), as in the simulator, so data parallelism costs what the ZeRO simulator charges;
//  - the gradient All-Reduces of parameters are priced in DeepSpeed's buckets after the backward, as the
//    simulator runs them (core/cost/gradient_reduction.h);
//  - the Q/B loop starts from data parallelism at memory-capped compute-proportional ratios, and the A*
//    drops partial programs whose replicated bytes exceed the smallest GPU's usable memory;
//  - the DP baselines refuse a global batch smaller than the GPU count; hap plans it and warns
//    (details.hap.warnings);
//  - memory is a constraint of the load balancer (HAP's paper has none): each class's per-GPU memory
//    (SpmdMemoryTerms, the simulator's rule) must fit its GPUs' memory less the runtime overhead, with
//    headroom for integer rounding; a program no ratios fit is skipped for one synthesized at even shares,
//    and when none fits, `hap` throws InfeasibleError (CLI exit 3). The A* itself prices time only. The
//    DP baselines keep their fixed ratios; runPlanner refuses their plans when they do not fit;
//  - the DP baselines are PyTorch DDP: every op with the batch dimension is sharded on it (no replicated
//    full-batch compute, i.e. no sufficient factor broadcasting), so their only collectives are the
//    gradient All-Reduces.
#include "core/planners/planner.h"

namespace hetplan {

class HapPlanner : public Planner {
public:
    enum class Mode { Hap, DpEven, DpProportional };
    explicit HapPlanner(Mode mode) : mode_(mode) {}
    std::string name() const override;
    std::string description() const override;
    std::vector<PlannerOption> options() const override;
    Plan plan(const PlanRequest& request, const CostModel& costs, Progress& progress) const override;

private:
    Mode mode_;
};

} // namespace hetplan
