// Registers `exhaustive`: the exact optimal heterogeneous pipeline (Ditto section 3).
#include "core/planners/planner.h"

#include "exhaustive.h"

namespace hetplan {

void registerExhaustivePlanner(PlannerRegistry& registry)
{
    registry.add([] { return std::make_unique<ExhaustivePlanner>(); });
}

} // namespace hetplan
