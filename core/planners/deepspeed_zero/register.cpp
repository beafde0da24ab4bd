#include "register.h"

#include "deepspeed_zero.h"

namespace hetplan {

void registerDeepSpeedZeroPlanner(PlannerRegistry& registry)
{
    registry.add("deepspeed-zero", [] { return std::make_unique<DeepSpeedZeroPlanner>(); });
}

} // namespace hetplan
