// Registers `amp`: AMP (Li et al., NeurIPS 2022).
#include "core/planners/planner.h"

#include "amp_planner.h"

namespace hetplan {

void registerAmpPlanner(PlannerRegistry& registry)
{
    registry.add([] { return std::make_unique<AmpPlanner>(); });
}

} // namespace hetplan
