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
//  - memory is not a search constraint; the simulator reports each GPU's peak and flags misfits.
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
