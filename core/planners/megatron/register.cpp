// Registers `megatron`: the Megatron-LM heuristic, AMP's baseline.
#include "core/planners/planner.h"

#include "megatron.h"

namespace hetplan {

void registerMegatronPlanner(PlannerRegistry& registry)
{
    registry.add([] { return std::make_unique<MegatronPlanner>(); });
}

} // namespace hetplan
