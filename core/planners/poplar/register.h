#pragma once
// Registers `poplar`: heterogeneity-aware ZeRO with per-GPU batch allocation.
#include "core/planners/planner.h"

namespace hetplan {

void registerPoplarPlanner(PlannerRegistry& registry);

} // namespace hetplan
