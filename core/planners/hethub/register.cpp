#include "register.h"

#include "hethub.h"

namespace hetplan {

void registerHetHubPlanner(PlannerRegistry& registry)
{
    registry.add("hethub", [] { return std::make_unique<HetHubPlanner>(); });
}

} // namespace hetplan
