#include "hethub_search.h"

#include "core/base/errors.h"
#include "core/planners/common/search_tail.h"
#include "core/sim/simulator.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace hetplan::hethub {

Strategy leafStrategy(const Predictor& predictor, const std::vector<StageSlot>& order, double plannerCost)
{
    const SpaceConfig& c = predictor.config();
    Strategy s;
    s.placement.degrees = {int(order.size()), c.dp, c.tp};
    for (const std::vector<int>& gpus : predictor.stageGpus(order))
        s.placement.gpus.insert(s.placement.gpus.end(), gpus.begin(), gpus.end());
    s.microBatchSize = c.microBatchSize;
    s.microBatches = c.microBatches;
    s.layerBounds = predictor.bounds(order);
    s.plannerCost = plannerCost;
    return s;
}

namespace {

// Leaves each config may score in the seeding pass.
constexpr long long kSeedLeaves = 256;

// The DFS over every config into one pool of the best leaves, in two passes. The time bounds prune only
// once the pool holds k feasible leaves, and a config whose splits rarely fit memory (many stages, a big
// model: 1024 GPUs, 200 layers) can enumerate millions of leaves without finding one; searched first, it
// would spend the whole time limit before any other config ran. So a seeding pass first gives every config
// kSeedLeaves leaves (its speed-proportional splits and their neighbours), and the full pass then searches
// the configs best seed first, with the pool already bounded. The full pass is still exhaustive (the pool
// keeps a leaf once), so the result equals one pass's; only the order of work changes.
StopReason searchConfigs(const PlanRequest& req, const CostModel& costs, const Progress& progress,
                         const std::vector<TypeGroup>& groups, const std::vector<SpaceConfig>& configs, LeafPool& pool)
{
    const size_t n = configs.size();
    std::vector<double> seed(n, std::numeric_limits<double>::infinity());
    for (size_t i = 0; i < n; ++i) {
        if (progress.stopReason() != StopReason::None)
            return progress.stopReason();
        progress.report(0.1 * double(i) / double(n), "hethub: seeding layer splits");
        LeafPool own(1);
        const Predictor predictor(req.cluster, costs, groups, configs[i]);
        if (StopReason r = searchSplits(predictor, int(i), own, progress, true, kSeedLeaves); r != StopReason::None)
            return r;
        for (const ScoredLeaf& l : own.sorted()) {
            seed[i] = l.seconds;
            pool.offer(l);
        }
        pool.leaves += own.leaves;
        pool.pruned += own.pruned;
        pool.prunedMemory += own.prunedMemory;
        pool.droppedMemory += own.droppedMemory;
    }
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return seed[a] < seed[b]; });
    for (size_t k = 0; k < n; ++k) {
        if (progress.stopReason() != StopReason::None)
            return progress.stopReason();
        progress.report(0.1 + 0.6 * double(k) / double(n), "hethub: searching layer splits");
        const Predictor predictor(req.cluster, costs, groups, configs[order[k]]);
        if (StopReason r = searchSplits(predictor, int(order[k]), pool, progress); r != StopReason::None)
            return r;
    }
    return StopReason::None;
}

SearchStats statsOf(const LeafPool& pool, size_t configs)
{
    SearchStats stats;
    stats.candidates = pool.leaves;
    stats.extra["configs"] = double(configs);
    stats.extra["leaves_scored"] = double(pool.leaves);
    stats.extra["subtrees_pruned"] = double(pool.pruned);
    stats.extra["subtrees_pruned_for_memory"] = double(pool.prunedMemory);
    stats.extra["dropped_for_memory"] = double(pool.droppedMemory);
    return stats;
}

} // namespace

SearchResult searchHetHub(const PlanRequest& req, const CostModel& costs, const Progress& progress,
                          const SearchSettings& settings)
{
    SearchResult out;
    out.groups = typeGroups(req.cluster);
    const std::vector<SpaceConfig> configs =
        enumerateConfigs(req.cluster, req.model, out.groups, req.job.globalBatchSize, settings.maxMicroBatch);
    if (configs.empty())
        throw InfeasibleError("hethub: no uniform dp·tp divides every device type's GPU count with at least one "
                              "decoder layer per stage and an equal batch per replica");
    LeafPool pool(settings.topK);
    const StopReason stopped = searchConfigs(req, costs, progress, out.groups, configs, pool);
    const std::vector<ScoredLeaf> leaves = pool.sorted();
    if (leaves.empty() && stopped == StopReason::None)
        throw InfeasibleError("hethub: none of the " + std::to_string(pool.leaves) + " layer splits fits GPU memory (" +
                              std::to_string(pool.droppedMemory) + " dropped)");
    std::vector<Strategy> strategies;
    for (const ScoredLeaf& l : leaves)
        strategies.push_back(
            leafStrategy(Predictor(req.cluster, costs, out.groups, configs[l.config]), l.order, l.seconds));
    SearchTail tail;
    tail.simulate = settings.topK;
    tail.keep = settings.topK;
    tail.what = "layer splits";
    out.plan = finishSearch(strategies, tail, req, costs, progress, stopped, statsOf(pool, configs.size()), "hethub");
    // Which leaf the simulator picked: the one whose pipeline the plan holds.
    for (size_t i = 0; i < strategies.size(); ++i)
        if (strategyPlan(strategies[i], req.cluster, req.model, req.job).pipelines == out.plan.pipelines) {
            out.config = configs[leaves[i].config];
            out.order = leaves[i].order;
            break;
        }
    if (settings.bestOrder && out.plan.search.stopped == StopReason::None) {
        const Predictor predictor(req.cluster, costs, out.groups, out.config);
        auto [order, plan] =
            bestOrdering(predictor, req, costs, out.order, size_t(settings.orderBudget), out.orderingsTried, &progress);
        if (plan.estimate.iterationSeconds < out.plan.estimate.iterationSeconds) {
            plan.search = out.plan.search;
            plan.candidates = out.plan.candidates;
            out.plan = std::move(plan);
            out.order = std::move(order);
        }
        out.plan.search.extra["orderings_simulated"] = double(out.orderingsTried);
    }
    return out;
}

std::optional<std::vector<std::vector<StageSlot>>> allOrderings(std::vector<StageSlot> stages, size_t limit)
{
    auto less = [](const StageSlot& a, const StageSlot& b) {
        return a.type != b.type ? a.type < b.type : a.layers < b.layers;
    };
    std::sort(stages.begin(), stages.end(), less);
    std::vector<std::vector<StageSlot>> out;
    do {
        if (out.size() == limit)
            return std::nullopt;
        out.push_back(stages);
    } while (std::next_permutation(stages.begin(), stages.end(), less));
    return out;
}

namespace {

Plan simulateOrder(const Predictor& predictor, const PlanRequest& req, const CostModel& costs,
                   const std::vector<StageSlot>& order, long long& tried)
{
    Plan plan = strategyPlan(leafStrategy(predictor, order, 0), req.cluster, req.model, req.job);
    plan.plannerEstimate = predictor.score(order).seconds;
    scorePlan(plan, costs);
    ++tried;
    return plan;
}

bool betterOrderPlan(const Plan& a, const Plan& b)
{
    if (a.estimate.feasible != b.estimate.feasible)
        return a.estimate.feasible;
    return a.estimate.iterationSeconds < b.estimate.iterationSeconds;
}

} // namespace

std::pair<std::vector<StageSlot>, Plan> bestOrdering(const Predictor& predictor, const PlanRequest& req,
                                                     const CostModel& costs, const std::vector<StageSlot>& order,
                                                     size_t limit, long long& tried, const Progress* progress)
{
    auto stopped = [&] { return progress && progress->stopReason() != StopReason::None; };
    std::vector<StageSlot> best = order;
    Plan bestPlan = simulateOrder(predictor, req, costs, order, tried);
    if (auto all = allOrderings(order, limit)) {
        for (const std::vector<StageSlot>& o : *all)
            if (o != order && !stopped())
                if (Plan p = simulateOrder(predictor, req, costs, o, tried); betterOrderPlan(p, bestPlan)) {
                    bestPlan = std::move(p);
                    best = o;
                }
        return {best, bestPlan};
    }
    // Too many orderings: take the best improving swap until none improves or the budget is spent.
    for (bool improved = true; improved && size_t(tried) < limit && !stopped();) {
        improved = false;
        const std::vector<StageSlot> base = best;
        for (size_t i = 0; i < base.size() && size_t(tried) < limit; ++i)
            for (size_t j = i + 1; j < base.size() && size_t(tried) < limit; ++j) {
                if (base[i] == base[j])
                    continue;
                std::vector<StageSlot> o = base;
                std::swap(o[i], o[j]);
                if (Plan p = simulateOrder(predictor, req, costs, o, tried); betterOrderPlan(p, bestPlan)) {
                    bestPlan = std::move(p);
                    best = std::move(o);
                    improved = true;
                }
            }
    }
    return {best, bestPlan};
}

} // namespace hetplan::hethub
