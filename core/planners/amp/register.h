#pragma once
// Registers `amp`: AMP (Li et al., NeurIPS 2022).
#include "core/planners/planner.h"

namespace hetplan {

void registerAmpPlanner(PlannerRegistry& registry);

} // namespace hetplan
