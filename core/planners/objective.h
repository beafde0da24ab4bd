#pragma once
// What a search optimises and what a plan must meet, for every planner: minimise the iteration time (the
// default) or the dollars per million tokens, optionally under a $/hour budget and/or above a tokens/s
// floor. Prices are the catalog's per GPU-hour and the nodes' own price overrides (core/model/pricing.h);
// a GPU left idle costs nothing. The two goals with the two constraints give the four modes users ask for:
// fastest, cheapest, fastest within a budget, cheapest above a throughput floor.
#include "core/model/plan.h"

#include <optional>
#include <string>

namespace hetplan {

struct Objective {
    enum class Goal { Time, Cost };
    Goal goal = Goal::Time;
    double budgetDollarsPerHour = 0; // 0 = no budget
    double minTokensPerSecond = 0;   // 0 = no floor
    // Plain "fastest plan": nothing about prices is needed.
    bool isDefault() const { return goal == Goal::Time && budgetDollarsPerHour <= 0 && minTokensPerSecond <= 0; }
    bool needsPrices() const { return goal == Goal::Cost || budgetDollarsPerHour > 0; }
    bool operator==(const Objective&) const = default;
};

std::string toString(Objective::Goal g);                       // "time", "cost"
bool parseObjectiveGoal(const std::string& s, Objective::Goal& out); // false if unknown
// "fastest", "cheapest per token within $40/h", ... for messages and the plan's selection section.
std::string describe(const Objective& o);

// Why a scored plan does not meet the objective's constraints ("costs $52.1/h, over the $40/h budget"),
// or nothing when it does. A plan without a price cannot meet a budget or a cost goal.
std::optional<std::string> objectiveMiss(const Objective& o, const Estimate& e);
// Whether `a` is better than `b` under the goal (both meeting the constraints). Time: shorter iteration;
// cost: fewer dollars per million tokens, ties to the faster. Equal plans: false.
bool betterUnder(const Objective& o, const Estimate& a, const Estimate& b);
// Whether a search should keep plan `a` over plan `b`: one that fits memory before one that does not, one
// that meets the constraints before one that misses them, then betterUnder (among misses, the faster).
bool preferredPlan(const Objective& o, const Estimate& a, const Estimate& b);
// How far a plan is from meeting the constraints, as a ratio ≥ 1 (1: it meets them): its $/h over the
// budget, the floor over its tokens/s, the larger of the two; infinity without a price (when one is needed)
// or when it does not fit. Ranks the misses to name the closest.
double objectiveShortfall(const Objective& o, const Estimate& e);
// The figure the goal minimises (seconds or $/M tokens); infinity when the plan lacks it.
double objectiveValue(const Objective& o, const Estimate& e);

} // namespace hetplan
