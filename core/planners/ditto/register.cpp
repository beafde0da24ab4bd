// Registers `ditto`: node folding, Oobleck's template on the virtual cluster, DP or greedy recovery.
#include "core/planners/planner.h"

#include "ditto.h"

namespace hetplan {

void registerDittoPlanner(PlannerRegistry& registry)
{
    registry.add([] { return std::make_unique<DittoPlanner>(); });
}

} // namespace hetplan
