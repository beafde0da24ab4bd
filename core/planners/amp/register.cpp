#include "register.h"

#include "amp_planner.h"
#include "core/planners/megatron/megatron.h"
#include "core/planners/search/annealing.h"
#include "core/planners/search/random_search.h"

namespace hetplan {

void registerAmpPlanners(PlannerRegistry& registry)
{
    registry.add("amp", [] { return std::make_unique<AmpPlanner>(); });
    registry.add("megatron", [] { return std::make_unique<MegatronPlanner>(); });
    registry.add("random", [] { return std::make_unique<RandomSearchPlanner>(); });
    registry.add("annealing", [] { return std::make_unique<AnnealingPlanner>(); });
}

} // namespace hetplan
