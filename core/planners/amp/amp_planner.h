#pragma once
// `amp`: AMP (Li et al., NeurIPS 2022), sections 3 and 6.2. Enumerates every (pp, dp, tmp) with
// pp·dp·tmp = #GPUs (tmp dividing every node's GPU count so tensor groups stay inside a node, pp ≤ layers,
// dp dividing the global batch) and every micro-batch size dividing gbs/dp; places devices with
// Megatron's order (core/planners/common/placement.h); splits layers by the eq. 6-8 dynamic program and scores each
// strategy with eq. 3-5 (core/planners/amp/amp_cost.h). The paper's final "real trials" of the top predictions
// are replaced by the shared simulator: the top_k strategies by AMP's cost are simulated and the best by
// the simulator is returned; planner_estimate is AMP's own cost of that plan.
//
// AMP has no memory model. By default a strategy whose DP split does not fit GPU memory is first re-split
// by the same DP with the misfitting stages forbidden (repair_memory=true; counted in
// search.extra["repaired_for_memory"]) and dropped if no split fits (search.extra["dropped_for_memory"]).
// repair_memory=false drops memory-blind splits that do not fit; keep_infeasible=true ranks everything
// like the paper.
//
// Cost per candidate: one layout (O(L) per distinct (device, tp) signature, sharing the per-(device, tp,
// mbs) prefix sums computed once per run), one layer DP and O(N) for eq. 4. The DP is the threshold walk
// of solveLayerSplit: O(k·L²) per point of the (max stage, Σ) Pareto front it visits — usually a handful —
// against the paper's O(k·L⁴) table (dp=paper runs the paper's table, for checking). Candidates are
// evaluated in parallel (parallelFor, core/base/parallel_for.h).
#include "core/planners/planner.h"

namespace hetplan {

class AmpPlanner : public Planner {
public:
    std::string name() const override { return "amp"; }
    std::string description() const override
    {
        return "AMP: enumerate degrees and micro-batches, Megatron placement, DP layer split, AMP cost model, "
               "top-k re-scored by the simulator";
    }
    std::vector<PlannerOption> options() const override;
    Plan plan(const PlanRequest& request, const CostModel& costs, Progress& progress) const override;
};

} // namespace hetplan
