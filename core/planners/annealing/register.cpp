#include "register.h"

#include "annealing.h"

namespace hetplan {

void registerAnnealingPlanner(PlannerRegistry& registry)
{
    registry.add("annealing", [] { return std::make_unique<AnnealingPlanner>(); });
}

} // namespace hetplan
