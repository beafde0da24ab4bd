// The built-in planners: one line per planner folder. Each folder has a register.h declaring
// `void register<Name>Planner(PlannerRegistry&)` and a register.cpp adding its planner(s); the CLI and
// the GUI list whatever is registered, so a new planner needs its folder and one line here.
#include "planner.h"

#include <mutex>

#define HETPLAN_BUILTIN_PLANNERS(X) \
    X(registerUniformPlanner)       \
    X(registerDataParallelPlanner)  \
    X(registerAmpPlanner)           \
    X(registerMegatronPlanner)      \
    X(registerRandomPlanner)        \
    X(registerAnnealingPlanner)     \
    X(registerPoplarPlanner)        \
    X(registerDeepSpeedZeroPlanner) \
    X(registerWhalePlanner)         \
    X(registerExhaustivePlanner)    \
    X(registerOobleckPlanner)       \
    X(registerDittoPlanner)         \
    X(registerHetHubPlanner)        \
    X(registerHapPlanner)           \
    /* one line per planner folder, above this one */

namespace hetplan {

#define HETPLAN_DECLARE(fn) void fn(PlannerRegistry& registry);
HETPLAN_BUILTIN_PLANNERS(HETPLAN_DECLARE)
#undef HETPLAN_DECLARE

void registerBuiltinPlanners()
{
    static std::once_flag once;
    std::call_once(once, [] {
        PlannerRegistry& r = PlannerRegistry::instance();
#define HETPLAN_CALL(fn) fn(r);
        HETPLAN_BUILTIN_PLANNERS(HETPLAN_CALL)
#undef HETPLAN_CALL
    });
}

} // namespace hetplan
