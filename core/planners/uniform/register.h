#pragma once
// Registers `uniform`: the uniform reference planner.
#include "core/planners/planner.h"

namespace hetplan {

void registerUniformPlanner(PlannerRegistry& registry);

} // namespace hetplan
