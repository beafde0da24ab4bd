#include "annealing.h"

#include "core/planners/amp/amp_cost.h"
#include "core/planners/amp/domino.h"
#include "core/planners/common/bounds.h"
#include "core/planners/common/search_tail.h"
#include "core/base/errors.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>

namespace hetplan {

std::vector<PlannerOption> AnnealingPlanner::options() const
{
    return {PlannerOption::integer("iterations", "Annealing steps", 300, 0, 10000000, "annealing steps"),
            PlannerOption::integer("top_k", "Strategies simulated", 10, 1, 100000,
                                   "recorded strategies re-scored by the simulator"),
            PlannerOption::real("temperature", "Initial temperature", 0.2, 0, 1000,
                                "initial temperature as a fraction of the first feasible cost"),
            PlannerOption::boolean("keep_infeasible", "Keep memory misfits", false,
                                   "accept strategies that do not fit GPU memory"),
            PlannerOption::boolean("repair_memory", "Repair memory misfits", true,
                                   "re-split layers with misfitting stages forbidden before rejecting a move"),
            PlannerOption::boolean("cross_node_tp", "Tensor parallel across nodes", false,
                                   "allow domino shapes that split a tensor-parallel group across nodes (as in the "
                                   "paper; Megatron-LM and DeepSpeed keep tp inside a node)")};
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
    const int iterations = req.intOption("iterations");
    const int topK = req.intOption("top_k");
    const double temperature = req.doubleOption("temperature");
    const bool keepInfeasible = req.boolOption("keep_infeasible");
    const bool repair = req.boolOption("repair_memory") && !keepInfeasible;

    const int gpus = req.cluster.gpuCount();
    const int layers = req.model.layerCount();
    const int gbs = req.job.globalBatchSize;
    const bool crossNodeTp = req.boolOption("cross_node_tp");
    const std::vector<Degrees> all =
        enumerateDegrees(gpus, layers, gbs, allowedTensorDegrees(req.model, req.cluster, crossNodeTp));
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
        auto placed = randomDominoPlacement(req.cluster, d, rng, !crossNodeTp);
        if (!placed)
            return s;   // no tiling for these degrees: no layer split, so the move is not usable
        s.placement = *placed;
        const AmpEstimate e = amp.evaluate(s.placement, s.microBatchSize, s.microBatches, LayerDpMethod::Fast, repair,
                                           [&] { return progress.stopReason() != StopReason::None; });
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

    StopReason stopped = StopReason::None;
    int steps = 0;
    for (int i = 0; i < iterations; ++i, ++steps) {
        if ((stopped = progress.stopReason()) != StopReason::None)
            break;
        if (i % 16 == 0)
            progress.report(0.8 * i / std::max(1, iterations), "annealing");
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
    std::vector<Strategy> recorded;
    for (auto& [key, strategy] : record)
        recorded.push_back(std::move(strategy));
    SearchStats stats;
    stats.candidates = steps + 1;
    stats.extra["dropped_for_memory"] = double(dropped);   // rejected moves; the tail adds none (all usable)
    stats.extra["recorded"] = double(recorded.size());
    SearchTail tail;
    tail.simulate = tail.keep = topK;
    tail.keepInfeasible = keepInfeasible;
    tail.what = "recorded strategies";
    return finishSearch(std::move(recorded), tail, req, costs, progress, stopped, std::move(stats), "annealing");
}

} // namespace hetplan
