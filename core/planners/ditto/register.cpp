#include "register.h"

#include "ditto.h"

namespace hetplan {

void registerDittoPlanner(PlannerRegistry& registry)
{
    registry.add("ditto", [] { return std::make_unique<DittoPlanner>(); });
}

} // namespace hetplan
