// Registers `hap` and its baselines `dp-even` and `dp-proportional`.
#include "core/planners/planner.h"

#include "hap_planner.h"

namespace hetplan {

void registerHapPlanner(PlannerRegistry& registry)
{
    registry.add([] { return std::make_unique<HapPlanner>(HapPlanner::Mode::Hap); });
    registry.add([] { return std::make_unique<HapPlanner>(HapPlanner::Mode::DpEven); });
    registry.add([] { return std::make_unique<HapPlanner>(HapPlanner::Mode::DpProportional); });
}

} // namespace hetplan
