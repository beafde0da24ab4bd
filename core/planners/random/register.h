#pragma once
// Registers `random`: random search over AMP's strategy space.
#include "core/planners/planner.h"

namespace hetplan {

void registerRandomPlanner(PlannerRegistry& registry);

} // namespace hetplan
