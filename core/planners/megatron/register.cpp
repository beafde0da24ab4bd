#include "register.h"

#include "megatron.h"

namespace hetplan {

void registerMegatronPlanner(PlannerRegistry& registry)
{
    registry.add("megatron", [] { return std::make_unique<MegatronPlanner>(); });
}

} // namespace hetplan
