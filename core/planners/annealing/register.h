#pragma once
// Registers `annealing`: AMP's simulated annealing with domino placement.
#include "core/planners/planner.h"

namespace hetplan {

void registerAnnealingPlanner(PlannerRegistry& registry);

} // namespace hetplan
