#include "register.h"

#include "amp_planner.h"

namespace hetplan {

void registerAmpPlanner(PlannerRegistry& registry)
{
    registry.add("amp", [] { return std::make_unique<AmpPlanner>(); });
}

} // namespace hetplan
