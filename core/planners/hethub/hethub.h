#pragma once
// `hethub`: HetHub (heterogeneous distributed hybrid training). Data parallelism and intra-node tensor
// parallelism inside homogeneous nodes, a non-uniform pipeline across device types found by the paper's
// DFS (hethub_dfs.h), the best leaves re-scored by the shared simulator, and the paper's metrics (eq. 2-4)
// in the plan's "hethub" section (hethub_metrics.h).
#include "core/planners/planner.h"

namespace hetplan {

class HetHubPlanner : public Planner {
public:
    std::string name() const override { return "hethub"; }
    std::string description() const override
    {
        return "HetHub: DP + intra-node TP per device type, non-uniform pipeline across types (DFS with "
               "load-balance, bottleneck and stage-order rules)";
    }
    std::vector<PlannerOption> options() const override;
    Plan plan(const PlanRequest& request, const CostModel& costs, Progress& progress) const override;
};

} // namespace hetplan
