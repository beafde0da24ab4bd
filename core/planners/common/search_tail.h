#pragma once
// The tail every strategy search shares (amp, annealing, random, megatron): drop what does not fit memory,
// rank by the planner's own cost, keep the best few, re-score them with the shared simulator (the AMP
// paper's "real trials", with the simulator standing in for the cluster), pick the best by the simulator
// and fill the plan's search statistics. A search that was stopped early passes its stop reason: the tail
// then simulates only its best-ranked strategy so a cancel returns at once, and marks the plan.
#include "core/planners/common/strategy.h"
#include "core/planners/planner.h"

#include <string>
#include <vector>

namespace hetplan {

struct SearchTail {
    int simulate = 10;               // strategies re-scored by the simulator, best planner cost first; 0 = all
    int keep = 10;                   // candidates kept in the plan
    bool keepInfeasible = false;     // rank strategies that do not fit memory too (AMP has no memory model)
    bool orderBySimulation = false;  // list kept candidates by simulated rather than planner cost
    std::string what = "strategies"; // noun for messages ("draws", "proposals")
};

// `strategies`: everything the search evaluated. A strategy without a layer split, or one that does not fit
// memory (unless keepInfeasible), is dropped and counted in search.extra["dropped_for_memory"].
// `stats`: the planner's own counters (candidates considered, extra); the tail adds "simulated" and, when
// `stopped` is not None, search.stopped. Throws InfeasibleError when nothing is left to rank, or
// CancelledError when the search was stopped before it found anything.
Plan finishSearch(std::vector<Strategy> strategies, const SearchTail& tail, const PlanRequest& request,
                  const CostModel& costs, const Progress& progress, StopReason stopped, SearchStats stats,
                  const std::string& plannerName);

} // namespace hetplan
