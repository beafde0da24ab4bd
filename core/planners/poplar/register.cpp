// Registers `poplar`: heterogeneity-aware ZeRO with per-GPU batch allocation.
#include "core/planners/planner.h"

#include "poplar.h"

namespace hetplan {

void registerPoplarPlanner(PlannerRegistry& registry)
{
    registry.add([] { return std::make_unique<PoplarPlanner>(); });
}

} // namespace hetplan
