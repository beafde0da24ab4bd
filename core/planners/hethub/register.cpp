// Registers `hethub`: HetHub's non-uniform pipeline across device types.
#include "core/planners/planner.h"

#include "hethub.h"

namespace hetplan {

void registerHetHubPlanner(PlannerRegistry& registry)
{
    registry.add([] { return std::make_unique<HetHubPlanner>(); });
}

} // namespace hetplan
