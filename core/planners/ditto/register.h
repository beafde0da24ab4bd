#pragma once
// Registers `ditto`: node folding, Oobleck's template on the virtual cluster, DP or greedy recovery.
#include "core/planners/planner.h"

namespace hetplan {

void registerDittoPlanner(PlannerRegistry& registry);

} // namespace hetplan
