#include "register.h"

#include "poplar.h"

namespace hetplan {

void registerPoplarPlanner(PlannerRegistry& registry)
{
    registry.add("poplar", [] { return std::make_unique<PoplarPlanner>(); });
}

} // namespace hetplan
