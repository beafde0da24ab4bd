#pragma once
// `annealing`: AMP's alternative optimiser (sec. 4.2 and algorithm 2 in sec. 6.3), simulated annealing over
// the strategy space with the domino-tiling device placement (core/planners/amp/domino.h,
// randomDominoPlacement). A move changes either tmp (keeping dp) or dp (keeping tmp) with probability ½
// each, then draws a micro-batch size dividing gbs/dp and a random domino tiling for the new degrees; the
// layer split is AMP's DP on that placement and the cost is AMP's eq. 3-5. A worse move is accepted with
// probability exp((cost − next)/t). Readings of what the paper leaves open:
// - tmp ranges over the divisors of #GPUs up to the largest node (a domino may put a tp group across
//   nodes; the cost model charges for that);
// - temperature: t starts at `temperature` × the first feasible cost (the paper's t = 1.0 in seconds is
//   scale-dependent) and cools linearly to 0 over `iterations`;
// - a move whose layer split does not fit GPU memory is first re-split with the misfitting stages
//   forbidden (repair_memory, as in `amp`), else rejected and counted in
//   search.extra["dropped_for_memory"] (AMP has no memory model; keep_infeasible=true accepts it). Until
//   a first feasible state is found the walk moves on regardless, so it can leave an infeasible corner.
// Every accepted state is recorded; the top_k recorded states by AMP's cost are simulated (the paper's
// "run(record, budget)") and the best by the simulator is returned. Deterministic for a given seed.
#include "core/planners/planner.h"

namespace hetplan {

class AnnealingPlanner : public Planner {
public:
    std::string name() const override { return "annealing"; }
    std::string description() const override
    {
        return "AMP's simulated annealing over degrees, micro-batch and domino-tiling placement";
    }
    std::vector<PlannerOption> options() const override;
    Plan plan(const PlanRequest& request, const CostModel& costs, Progress& progress) const override;
};

} // namespace hetplan
