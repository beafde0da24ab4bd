#include "register.h"

#include "random_search.h"

namespace hetplan {

void registerRandomPlanner(PlannerRegistry& registry)
{
    registry.add("random", [] { return std::make_unique<RandomSearchPlanner>(); });
}

} // namespace hetplan
