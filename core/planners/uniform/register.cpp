#include "register.h"

#include "uniform.h"

namespace hetplan {

void registerUniformPlanner(PlannerRegistry& registry)
{
    registry.add("uniform", [] { return std::make_unique<UniformPlanner>(); });
}

} // namespace hetplan
