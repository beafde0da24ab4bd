#include "register.h"

#include "exhaustive.h"

namespace hetplan {

void registerExhaustivePlanner(PlannerRegistry& registry)
{
    registry.add("exhaustive", [] { return std::make_unique<ExhaustivePlanner>(); });
}

} // namespace hetplan
