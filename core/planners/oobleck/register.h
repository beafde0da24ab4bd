#pragma once
// Registers `oobleck`: Oobleck's pipeline templates on a homogeneous cluster.
#include "core/planners/planner.h"

namespace hetplan {

void registerOobleckPlanner(PlannerRegistry& registry);

} // namespace hetplan
