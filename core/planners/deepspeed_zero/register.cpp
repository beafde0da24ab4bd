// Registers `deepspeed-zero`: DeepSpeed's homogeneous ZeRO batches (Poplar's baseline).
#include "core/planners/planner.h"

#include "deepspeed_zero.h"

namespace hetplan {

void registerDeepSpeedZeroPlanner(PlannerRegistry& registry)
{
    registry.add([] { return std::make_unique<DeepSpeedZeroPlanner>(); });
}

} // namespace hetplan
