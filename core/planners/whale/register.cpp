// Registers `whale`: ZeRO batches proportional to peak FLOP/s (Poplar's Whale baseline).
#include "core/planners/planner.h"

#include "whale.h"

namespace hetplan {

void registerWhalePlanner(PlannerRegistry& registry)
{
    registry.add([] { return std::make_unique<WhalePlanner>(); });
}

} // namespace hetplan
