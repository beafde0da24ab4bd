// The list of built-in planners. Each planner folder exposes one register function; adding a planner
// means one line here and nothing in the CLI or GUI.
#include "planner.h"

#include "amp/register.h"
#include "dataparallel/dataparallel.h"
#include "uniform/uniform.h"

#include <mutex>

namespace hetplan {

void registerBuiltinPlanners()
{
    static std::once_flag once;
    std::call_once(once, [] {
        PlannerRegistry& r = PlannerRegistry::instance();
        registerUniformPlanners(r);
        registerDataParallelPlanner(r);
        registerAmpPlanners(r);
    });
}

} // namespace hetplan
