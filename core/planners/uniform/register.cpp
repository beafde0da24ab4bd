// Registers `uniform`: the uniform reference planner.
#include "core/planners/planner.h"

#include "uniform.h"

namespace hetplan {

void registerUniformPlanner(PlannerRegistry& registry)
{
    registry.add([] { return std::make_unique<UniformPlanner>(); });
}

} // namespace hetplan
