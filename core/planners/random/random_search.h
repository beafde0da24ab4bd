#pragma once
// `random`: the random-search baseline of the AMP paper (RS in table 4): strategies drawn uniformly from
// AMP's space without heuristics or a cost model — random (pp, dp, tmp) (tmp dividing every node's GPU
// count), random micro-batch size dividing gbs/dp, a random bijection of ranks to GPUs and a random
// contiguous layer split — each "run" (simulated); the fastest is returned. Seeded by the request's seed,
// `trials` draws. Draws that do not fit memory are dropped unless keep_infeasible=true (counted in
// search.extra["dropped_for_memory"]). Candidates' planner cost is AMP's eq. 3-5 estimate, for reference.
#include "core/planners/planner.h"

namespace hetplan {

class RandomSearchPlanner : public Planner {
public:
    std::string name() const override { return "random"; }
    std::string description() const override
    {
        return "Random search: random degrees, micro-batch, placement and layer split; best by the simulator";
    }
    std::vector<PlannerOption> options() const override;
    Plan plan(const PlanRequest& request, const CostModel& costs, Progress& progress) const override;
};

} // namespace hetplan
