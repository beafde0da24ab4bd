// Registers `oobleck`: Oobleck's pipeline templates on a homogeneous cluster.
#include "core/planners/planner.h"

#include "oobleck.h"

namespace hetplan {

void registerOobleckPlanner(PlannerRegistry& registry)
{
    registry.add([] { return std::make_unique<OobleckPlanner>(); });
}

} // namespace hetplan
