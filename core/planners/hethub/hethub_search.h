#pragma once
// The whole HetHub search: every (tp, dp, micro-batch) config, the DFS over layer splits in each, the best
// leaves re-scored by the shared simulator (finishSearch), and optionally the best stage order for the
// chosen split (`order = best`).
#include "hethub_dfs.h"

#include "core/planners/common/strategy.h"

#include <optional>

namespace hetplan::hethub {

struct SearchSettings {
    int topK = 10;         // leaves re-scored by the simulator
    int maxMicroBatch = 4; // largest micro-batch searched
    bool bestOrder = true; // order = best: the simulator picks the chosen split's stage order
    int orderBudget = 120; // simulations order = best may spend
};

struct SearchResult {
    Plan plan;
    SpaceConfig config;
    std::vector<TypeGroup> groups;
    std::vector<StageSlot> order; // the chosen pipeline, in order
    long long orderingsTried = 0; // order = best: simulated orderings
};

// Throws InfeasibleError when no config or no leaf fits, CancelledError when stopped before any leaf.
SearchResult searchHetHub(const PlanRequest& req, const CostModel& costs, const Progress& progress,
                          const SearchSettings& settings);

// The strategy (placement, micro-batching, bounds) of a pipeline in `order`.
Strategy leafStrategy(const Predictor& predictor, const std::vector<StageSlot>& order, double plannerCost);

// Every distinct ordering of the stages (stages of one type with one layer count are interchangeable), or
// nullopt when there are more than `limit`.
std::optional<std::vector<std::vector<StageSlot>>> allOrderings(std::vector<StageSlot> stages, size_t limit);

// The simulator's best ordering of `order`'s stages: all distinct orderings up to `limit`, beyond that
// pairwise-swap hill climbing from `order` with at most `limit` simulations. Returns the order and its
// simulated plan; `tried` counts simulations. A stop of `progress` ends it with the best so far.
std::pair<std::vector<StageSlot>, Plan> bestOrdering(const Predictor& predictor, const PlanRequest& req,
                                                     const CostModel& costs, const std::vector<StageSlot>& order,
                                                     size_t limit, long long& tried,
                                                     const Progress* progress = nullptr);

} // namespace hetplan::hethub
