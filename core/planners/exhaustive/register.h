#pragma once
// Registers `exhaustive`: the exact optimal heterogeneous pipeline (Ditto section 3).
#include "core/planners/planner.h"

namespace hetplan {

void registerExhaustivePlanner(PlannerRegistry& registry);

} // namespace hetplan
