#pragma once
// Registers the AMP planner and the baselines it is compared with in the AMP paper:
// "amp", "megatron", "random", "annealing".
#include "core/planners/planner.h"

namespace hetplan {

void registerAmpPlanners(PlannerRegistry& registry);

} // namespace hetplan
