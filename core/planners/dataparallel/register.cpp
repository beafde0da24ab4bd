// Registers `data-parallel`: the ZeRO data-parallel reference planner.
#include "core/planners/planner.h"

#include "dataparallel.h"

namespace hetplan {

void registerDataParallelPlanner(PlannerRegistry& registry)
{
    registry.add([] { return std::make_unique<DataParallelPlanner>(); });
}

} // namespace hetplan
