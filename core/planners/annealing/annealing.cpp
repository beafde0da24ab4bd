#include "annealing.h"

#include "core/planners/amp/amp_cost.h"
#include "core/planners/amp/domino.h"
#include "core/planners/common/bounds.h"
#include "core/planners/common/strategy.h"
#include "core/base/errors.h"
#include "core/sim/simulator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>

namespace hetplan {

std::vector<PlannerOption> AnnealingPlanner::options() const
{
    return {{"iterations", "300", "annealing steps"},
            {"top_k", "10", "recorded strategies re-scored by the simulator"},
            {"temperature", "0.2", "initial temperature as a fraction of the first feasible cost"},
            {"keep_infeasible", "false", "accept strategies that do not fit GPU memory"},
            {"repair_memory", "true", "re-split layers with misfitting stages forbidden before rejecting a move"}};
}

namespace {

template <typename T>
const T& pick(const std::vector<T>& v, std::mt19937_64& rng)
{
    return v[std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng)];
}

std::vector<int> strategyKey(const Strategy& s)
{
    const Degrees d = s.placement.degrees;
    std::vector<int> k{d.pp, d.dp, d.tp, s.microBatchSize};
    k.insert(k.end(), s.placement.gpus.begin(), s.placement.gpus.end());
    k.insert(k.end(), s.bounds.begin(), s.bounds.end());
    return k;
}

} // namespace

Plan AnnealingPlanner::plan(const PlanRequest& req, const CostModel& costs, Progress& progress) const
{
    const int iterations = req.intOption("iterations", 300);
    if (iterations < 0)
        throw InputError("--option", "iterations", "must not be negative");
    const int topK = req.intOption("top_k", 10);
    if (topK < 1)
        throw InputError("--option", "top_k", "must be at least 1");
    const double temperature = req.doubleOption("temperature", 0.2);
    if (!(temperature >= 0) || !std::isfinite(temperature))
        throw InputError("--option", "temperature", "must be a non-negative number");
    const bool keepInfeasible = req.boolOption("keep_infeasible", false);
    const bool repair = req.boolOption("repair_memory", true) && !keepInfeasible;

    const int gpus = req.cluster.gpuCount();
    const int layers = req.model.layerCount();
    const int gbs = req.job.globalBatchSize;
    int maxNode = 0;
    for (const Node& n : req.cluster.nodes)
        maxNode = std::max(maxNode, n.gpus);
    std::vector<int> tps;
    for (int t : divisors(gpus))
        if (t <= maxNode)
            tps.push_back(t);
    const std::vector<Degrees> all = enumerateDegrees(gpus, layers, gbs, tps);
    if (all.empty())
        throw InfeasibleError("annealing: no (pp, dp, tp) fits the cluster, model and global batch");

    std::mt19937_64 rng(req.seed);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    const AmpCostModel amp(req.cluster, costs);
    constexpr double kInf = std::numeric_limits<double>::infinity();
    long long dropped = 0;

    // Draw micro-batch and domino placement for given degrees, split layers by the DP, cost by eq. 3-5.
    auto realise = [&](const Degrees& d) {
        Strategy s;
        s.microBatchSize = pick(divisors(gbs / d.dp), rng);
        s.microBatches = gbs / (d.dp * s.microBatchSize);
        auto placed = randomDominoPlacement(req.cluster, d, rng);
        s.placement = placed ? *placed : megatronPlacement(req.cluster, d);
        const AmpEstimate e = amp.evaluate(s.placement, s.microBatchSize, s.microBatches, LayerDpMethod::Fast, repair);
        s.bounds = e.bounds;
        s.plannerCost = e.seconds;
        s.fitsMemory = e.fitsMemory && !e.bounds.empty();
        return s;
    };
    auto usable = [&](const Strategy& s) { return !s.bounds.empty() && (s.fitsMemory || keepInfeasible); };

    std::map<std::vector<int>, Strategy> record;
    Strategy current = realise(pick(all, rng));   // initialize_strategy()
    double cost = usable(current) ? current.plannerCost : kInf;
    if (usable(current))
        record.emplace(strategyKey(current), current);
    else
        ++dropped;
    double t0 = std::isfinite(cost) ? temperature * cost : -1;

    for (int i = 0; i < iterations; ++i) {
        if (i % 16 == 0) {
            progress.checkpoint();
            progress.report(0.8 * i / std::max(1, iterations), "annealing");
        }
        // Neighbour: vary tmp with dp fixed, or dp with tmp fixed (falls back to any degrees if stuck).
        const Degrees cur = current.placement.degrees;
        const bool varyTp = unit(rng) > 0.5;
        std::vector<Degrees> moves;
        for (const Degrees& d : all)
            if (varyTp ? (d.dp == cur.dp && d.tp != cur.tp) : (d.tp == cur.tp && d.dp != cur.dp))
                moves.push_back(d);
        if (moves.empty())
            moves = all;
        Strategy next = realise(pick(moves, rng));
        if (!usable(next)) {
            ++dropped;
            if (!std::isfinite(cost))
                current = next;   // nothing feasible yet: keep wandering instead of circling the start
            continue;
        }
        if (t0 < 0)
            t0 = temperature * next.plannerCost;   // first feasible state sets the scale
        const double t = t0 * (1.0 - double(i) / iterations);
        const double delta = std::min(cost - next.plannerCost, 0.0);   // ≤ 0; −inf never happens here
        const double accept = !std::isfinite(cost) ? 1.0 : (t > 0 ? std::exp(delta / t) : (delta < 0 ? 0.0 : 1.0));
        if (unit(rng) < accept) {
            current = next;
            cost = next.plannerCost;
            record.emplace(strategyKey(current), current);
        }
    }
    progress.checkpoint();
    if (record.empty())
        throw InfeasibleError("annealing: no visited strategy fits GPU memory");

    std::vector<Strategy> ranked;
    for (const auto& [k, s] : record)
        ranked.push_back(s);
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const Strategy& a, const Strategy& b) { return a.plannerCost < b.plannerCost; });
    ranked.resize(std::min<size_t>(ranked.size(), size_t(topK)));

    progress.report(0.8, "annealing: simulating the top " + std::to_string(ranked.size()));
    std::vector<Candidate> candidates;
    Plan best = pickBySimulation(
        ranked, req.cluster, req.model, req.job, [&](Plan& p) { scorePlan(p, costs); },
        [&] { progress.checkpoint(); }, candidates);
    best.candidates = std::move(candidates);
    best.search.candidates = iterations + 1;
    best.search.extra["dropped_for_memory"] = double(dropped);
    best.search.extra["recorded"] = double(record.size());
    return best;
}

} // namespace hetplan
