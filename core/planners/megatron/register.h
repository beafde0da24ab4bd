#pragma once
// Registers `megatron`: the Megatron-LM heuristic, AMP's baseline.
#include "core/planners/planner.h"

namespace hetplan {

void registerMegatronPlanner(PlannerRegistry& registry);

} // namespace hetplan
