#include "random_search.h"

#include "core/planners/amp/amp_cost.h"
#include "core/planners/common/bounds.h"
#include "core/planners/common/strategy.h"
#include "core/base/errors.h"
#include "core/sim/simulator.h"

#include <algorithm>
#include <random>

namespace hetplan {

std::vector<PlannerOption> RandomSearchPlanner::options() const
{
    return {{"trials", "100", "number of random strategies"},
            {"top_k", "10", "candidates kept in the plan"},
            {"keep_infeasible", "false", "also simulate draws that do not fit GPU memory"}};
}

Plan RandomSearchPlanner::plan(const PlanRequest& req, const CostModel& costs, Progress& progress) const
{
    const int trials = req.intOption("trials", 100);
    if (trials < 1)
        throw InputError("--option", "trials", "must be at least 1");
    const int topK = req.intOption("top_k", 10);
    if (topK < 1)
        throw InputError("--option", "top_k", "must be at least 1");
    const bool keepInfeasible = req.boolOption("keep_infeasible", false);
    const int gbs = req.job.globalBatchSize;
    const int layers = req.model.layerCount();
    const std::vector<Degrees> all =
        enumerateDegrees(req.cluster.gpuCount(), layers, gbs, intraNodeTensorDegrees(req.cluster));
    if (all.empty())
        throw InfeasibleError("random: no (pp, dp, tp) fits the cluster, model and global batch");

    std::mt19937_64 rng(req.seed);
    const AmpCostModel amp(req.cluster, costs);
    std::vector<Strategy> drawn;
    long long dropped = 0;
    for (int i = 0; i < trials; ++i) {
        progress.checkpoint();
        const Degrees d = all[std::uniform_int_distribution<size_t>(0, all.size() - 1)(rng)];
        const std::vector<int> mbsChoices = divisors(gbs / d.dp);
        Strategy s;
        s.microBatchSize = mbsChoices[std::uniform_int_distribution<size_t>(0, mbsChoices.size() - 1)(rng)];
        s.microBatches = gbs / (d.dp * s.microBatchSize);
        s.placement = randomPlacement(req.cluster, d, rng);
        s.bounds = randomBounds(layers, d.pp, rng);
        const AmpEstimate e = amp.estimate(s.placement, s.microBatchSize, s.microBatches, s.bounds);
        s.plannerCost = e.seconds;
        s.fitsMemory = e.fitsMemory;
        if (!s.fitsMemory && !keepInfeasible) {
            ++dropped;
            continue;
        }
        drawn.push_back(std::move(s));
    }
    if (drawn.empty())
        throw InfeasibleError("random: none of the " + std::to_string(trials) + " draws fits GPU memory");

    progress.report(0.5, "random: simulating " + std::to_string(drawn.size()) + " draws");
    std::vector<Candidate> candidates;
    Plan best = pickBySimulation(
        drawn, req.cluster, req.model, req.job, [&](Plan& p) { scorePlan(p, costs); },
        [&] { progress.checkpoint(); }, candidates);
    std::stable_sort(candidates.begin(), candidates.end(),
                     [](const Candidate& a, const Candidate& b) { return *a.simulatedCost < *b.simulatedCost; });
    candidates.resize(std::min<size_t>(candidates.size(), size_t(topK)));
    best.candidates = std::move(candidates);
    best.search.candidates = trials;
    best.search.extra["dropped_for_memory"] = double(dropped);
    return best;
}

} // namespace hetplan
