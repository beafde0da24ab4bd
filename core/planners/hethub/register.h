#pragma once
// Registers `hethub`: HetHub's non-uniform pipeline across device types.
#include "core/planners/planner.h"

namespace hetplan {

void registerHetHubPlanner(PlannerRegistry& registry);

} // namespace hetplan
