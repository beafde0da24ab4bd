// Registers `annealing`: AMP's simulated annealing with domino placement.
#include "core/planners/planner.h"

#include "annealing.h"

namespace hetplan {

void registerAnnealingPlanner(PlannerRegistry& registry)
{
    registry.add([] { return std::make_unique<AnnealingPlanner>(); });
}

} // namespace hetplan
