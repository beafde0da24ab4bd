#pragma once
// `metis`: heterogeneous stage shapes, the space of Metis (Um et al., USENIX ATC '24). Each stage picks its
// own GPU type and its own data- and tensor-parallel degrees, layers are balanced by the stages' speeds,
// the pipeline is copied over the cluster and the micro-batch is searched. The search is ours: per
// (copies R, micro-batch b) an exact Pareto DP builds the best template on each type's R-th share
// (common/exact_pipeline.h), the best templates by that estimate are placed and simulated, and the best
// simulated plan under the request's objective wins. AMP's and HetHub's spaces (one shape for all
// stages) lie inside this one, so their best plans are scored beside the templates: metis is never beaten by
// either (docs/consistency.md).
#include "core/planners/planner.h"

namespace hetplan {

class MetisPlanner : public Planner {
public:
    std::string name() const override { return "metis"; }
    std::string description() const override
    {
        return "Metis's space (ATC '24): per-stage GPU type, dp and tp, copied pipelines, searched micro-batch";
    }
    std::vector<PlannerOption> options() const override;
    Plan plan(const PlanRequest& request, const CostModel& costs, Progress& progress) const override;
};

} // namespace hetplan
