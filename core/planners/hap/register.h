#pragma once
// Registers `hap` and its baselines `dp-even` and `dp-proportional`.
#include "core/planners/planner.h"

namespace hetplan {

void registerHapPlanner(PlannerRegistry& registry);

} // namespace hetplan
