#pragma once
// Registers `data-parallel`: the ZeRO data-parallel reference planner.
#include "core/planners/planner.h"

namespace hetplan {

void registerDataParallelPlanner(PlannerRegistry& registry);

} // namespace hetplan
