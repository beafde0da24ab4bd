#pragma once
// `ditto`: Ditto (hybrid parallelism on heterogeneous clusters). Node folding turns the cluster into a
// virtual homogeneous one of the weakest type (folding.h); Oobleck's template generation runs on it
// (common/oobleck_templates.h); the recovery turns the virtual template back into a real one (recovery.h).
//
// Options: `recovery` = dp (algorithm 2 on the template of V single-GPU stages) | greedy (algorithm 1 on
// Oobleck's best virtual template); `folding` = plain (5.3.1) | comm (5.3.2); `mbs` as the other template
// planners.
//
// Decisions: (1) the DP needs L ≥ V (one layer per virtual stage at least, the paper's limitation 6.4);
// when the folded cluster has more virtual GPUs than the model has layers we fall back to the finest
// template, L one-layer stages, and say so in the plan (`ditto.note`); the recovery then leaves some
// GPUs idle. (2) The virtual template ignores memory (virtual devices); the recovery enforces it on the
// real GPUs. (3) The plan keeps the virtual templates of every size up to V (`ditto.virtual_templates`), so
// a re-plan after node failures (--without with --reuse plan.json, or the GUI) folds the smaller cluster and
// runs only the recovery on the stored template of the new size.
#include "core/planners/planner.h"

namespace hetplan {

class DittoPlanner : public Planner {
public:
    std::string name() const override { return "ditto"; }
    std::string description() const override
    {
        return "Ditto: node folding to a virtual homogeneous cluster, Oobleck template, DP or greedy recovery";
    }
    std::vector<PlannerOption> options() const override;
    Plan plan(const PlanRequest& request, const CostModel& costs, Progress& progress) const override;
};

} // namespace hetplan
