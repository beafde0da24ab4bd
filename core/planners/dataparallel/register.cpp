#include "register.h"

#include "dataparallel.h"

namespace hetplan {

void registerDataParallelPlanner(PlannerRegistry& registry)
{
    registry.add("data-parallel", [] { return std::make_unique<DataParallelPlanner>(); });
}

} // namespace hetplan
