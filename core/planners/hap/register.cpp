#include "register.h"

#include "hap_planner.h"

namespace hetplan {

void registerHapPlanner(PlannerRegistry& registry)
{
    registry.add("hap", [] { return std::make_unique<HapPlanner>(HapPlanner::Mode::Hap); });
    registry.add("dp-even", [] { return std::make_unique<HapPlanner>(HapPlanner::Mode::DpEven); });
    registry.add("dp-proportional", [] { return std::make_unique<HapPlanner>(HapPlanner::Mode::DpProportional); });
}

} // namespace hetplan
