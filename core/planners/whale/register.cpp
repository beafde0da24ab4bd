#include "register.h"

#include "whale.h"

namespace hetplan {

void registerWhalePlanner(PlannerRegistry& registry)
{
    registry.add("whale", [] { return std::make_unique<WhalePlanner>(); });
}

} // namespace hetplan
