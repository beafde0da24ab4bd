#pragma once
// Registers `deepspeed-zero`: DeepSpeed's homogeneous ZeRO batches (Poplar's baseline).
#include "core/planners/planner.h"

namespace hetplan {

void registerDeepSpeedZeroPlanner(PlannerRegistry& registry);

} // namespace hetplan
