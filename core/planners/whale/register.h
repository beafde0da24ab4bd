#pragma once
// Registers `whale`: ZeRO batches proportional to peak FLOP/s (Poplar's Whale baseline).
#include "core/planners/planner.h"

namespace hetplan {

void registerWhalePlanner(PlannerRegistry& registry);

} // namespace hetplan
