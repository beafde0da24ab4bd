// Registers `metis`: per-stage shapes across GPU types (Metis's space, our own search).
#include "core/planners/planner.h"

#include "metis.h"

namespace hetplan {

void registerMetisPlanner(PlannerRegistry& registry)
{
    registry.add([] { return std::make_unique<MetisPlanner>(); });
}

} // namespace hetplan
