#include "random_search.h"

#include "core/base/errors.h"
#include "core/planners/amp/amp_cost.h"
#include "core/planners/common/bounds.h"
#include "core/planners/common/search_tail.h"

#include <algorithm>
#include <random>

namespace hetplan {

std::vector<PlannerOption> RandomSearchPlanner::options() const
{
    return {PlannerOption::integer("trials", "Random draws", 100, 1, 10000000, "number of random strategies"),
            PlannerOption::integer("top_k", "Candidates kept", 10, 1, 100000, "candidates kept in the plan"),
            PlannerOption::boolean("keep_infeasible", "Keep memory misfits", false,
                                   "also simulate draws that do not fit GPU memory"),
            PlannerOption::boolean("cross_node_tp", "Tensor parallel across nodes", false,
                                   "place GPUs fully at random, splitting tensor-parallel groups across nodes "
                                   "(Megatron-LM and DeepSpeed keep tp inside a node)")};
}

Plan RandomSearchPlanner::plan(const PlanRequest& req, const CostModel& costs, Progress& progress) const
{
    const int trials = req.intOption("trials");
    const int topK = req.intOption("top_k");
    const bool keepInfeasible = req.boolOption("keep_infeasible");
    const int gbs = req.job.globalBatchSize;
    const int layers = req.model.layerCount();
    const bool crossNodeTp = req.boolOption("cross_node_tp");
    const std::vector<Degrees> all = enumerateDegrees(req.cluster.gpuCount(), layers, gbs,
                                                      allowedTensorDegrees(req.model, req.cluster, crossNodeTp));
    if (all.empty())
        throw InfeasibleError("random: no (pp, dp, tp) fits the cluster, model and global batch");

    std::mt19937_64 rng(req.seed);
    const AmpCostModel amp(req.cluster, costs);
    std::vector<Strategy> drawn;
    StopReason stopped = StopReason::None;
    for (int i = 0; i < trials; ++i) {
        if ((stopped = progress.stopReason()) != StopReason::None)
            break;
        const Degrees d = all[std::uniform_int_distribution<size_t>(0, all.size() - 1)(rng)];
        const std::vector<int> mbsChoices = divisors(gbs / d.dp);
        Strategy s;
        s.microBatchSize = mbsChoices[std::uniform_int_distribution<size_t>(0, mbsChoices.size() - 1)(rng)];
        s.microBatches = gbs / (d.dp * s.microBatchSize);
        s.placement = randomPlacement(req.cluster, d, rng, !crossNodeTp);
        s.layerBounds = randomBounds(layers, d.pp, rng);
        const AmpEstimate e = amp.estimate(s.placement, s.microBatchSize, s.microBatches, s.layerBounds);
        s.plannerCost = e.seconds;
        s.fitsMemory = e.fitsMemory;
        drawn.push_back(std::move(s));
    }
    SearchStats stats;
    stats.candidates = (long long)drawn.size();
    SearchTail tail;
    tail.simulate = 0; // every draw is "run", as in the paper's random baseline
    tail.keep = topK;
    tail.keepInfeasible = keepInfeasible;
    tail.orderBySimulation = true;
    tail.what = "draws";
    return finishSearch(std::move(drawn), tail, req, costs, progress, stopped, std::move(stats), "random");
}

} // namespace hetplan
