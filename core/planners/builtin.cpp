// The built-in planners: one line per planner folder. Each folder's register.cpp defines
// `void register<Name>Planner(PlannerRegistry&)`, which adds its planner(s) under their own names; the
// registry calls the list below on its first use, and the CLI and the GUI list whatever it holds. A new
// planner is its folder plus one line here (docs/architecture.md, "Add a planner").
#include "planner.h"

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
    X(registerMetisPlanner)         \
    /* one line per planner folder, above this one */

namespace hetplan {

#define HETPLAN_DECLARE(fn) void fn(PlannerRegistry& registry);
HETPLAN_BUILTIN_PLANNERS(HETPLAN_DECLARE)
#undef HETPLAN_DECLARE

void addBuiltinPlanners(PlannerRegistry& registry)
{
#define HETPLAN_CALL(fn) fn(registry);
    HETPLAN_BUILTIN_PLANNERS(HETPLAN_CALL)
#undef HETPLAN_CALL
}

} // namespace hetplan
