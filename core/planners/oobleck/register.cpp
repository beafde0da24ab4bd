#include "register.h"

#include "oobleck.h"

namespace hetplan {

void registerOobleckPlanner(PlannerRegistry& registry)
{
    registry.add("oobleck", [] { return std::make_unique<OobleckPlanner>(); });
}

} // namespace hetplan
