// Registers `random`: random search over AMP's strategy space.
#include "core/planners/planner.h"

#include "random_search.h"

namespace hetplan {

void registerRandomPlanner(PlannerRegistry& registry)
{
    registry.add([] { return std::make_unique<RandomSearchPlanner>(); });
}

} // namespace hetplan
