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
//  - the batch dimension is rounded to whole samples per GPU (section 5.1); the plan stores those ratios;
//  - compute time is FLOP at each GPU's sustained rate (peak × efficiency_max); the layer-level profile is
//    not used, since HAP prices individual ops;
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
