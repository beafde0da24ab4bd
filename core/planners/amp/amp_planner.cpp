#include "amp_planner.h"

#include "core/planners/amp/amp_cost.h"
#include "core/planners/common/bounds.h"
#include "core/planners/common/strategy.h"
#include "core/base/errors.h"
#include "core/sim/simulator.h"

#include <QtConcurrent/QtConcurrentMap>

#include <algorithm>
#include <exception>
#include <mutex>
#include <numeric>

namespace hetplan {

std::vector<PlannerOption> AmpPlanner::options() const
{
    return {{"top_k", "10", "strategies re-scored by the simulator (the paper's real trials)"},
            {"keep_infeasible", "false", "rank strategies that do not fit GPU memory too (AMP has no memory model)"},
            {"repair_memory", "true",
             "re-split a strategy whose DP split does not fit memory, with the misfitting stages forbidden"},
            {"dp", "fast", "layer-assignment DP: fast (threshold walk) or paper (eq. 6-8 table); same optimum"}};
}

namespace {

struct Task {
    Degrees degrees;
    int mbs = 1;
};

} // namespace

Plan AmpPlanner::plan(const PlanRequest& req, const CostModel& costs, Progress& progress) const
{
    const int topK = req.intOption("top_k", 10);
    if (topK < 1)
        throw InputError("--option", "top_k", "must be at least 1");
    const bool keepInfeasible = req.boolOption("keep_infeasible", false);
    // Keeping misfits reproduces the paper, so there is nothing to repair then.
    const bool repair = req.boolOption("repair_memory", true) && !keepInfeasible;
    const std::string dpName = req.option("dp", "fast");
    if (dpName != "fast" && dpName != "paper")
        throw InputError("--option", "dp", "expected fast or paper, got '" + dpName + "'");
    const LayerDpMethod method = dpName == "paper" ? LayerDpMethod::Paper : LayerDpMethod::Fast;

    const int gpus = req.cluster.gpuCount();
    const int layers = req.model.layerCount();
    const int gbs = req.job.globalBatchSize;

    // Algorithm 1, lines 1-4: degrees × micro-batch sizes.
    std::vector<Task> tasks;
    for (const Degrees& d : enumerateDegrees(gpus, layers, gbs, intraNodeTensorDegrees(req.cluster)))
        for (int mbs : divisors(gbs / d.dp))
            tasks.push_back({d, mbs});
    if (tasks.empty())
        throw InfeasibleError("amp: no (pp, dp, tp) fits " + std::to_string(gpus) + " GPUs, " +
                              std::to_string(layers) + " layers and global batch " + std::to_string(gbs));

    const AmpCostModel amp(req.cluster, costs);
    std::vector<Strategy> results(tasks.size());
    std::vector<long long> steps(tasks.size(), 0);
    std::vector<char> repaired(tasks.size(), 0);
    std::exception_ptr failure;
    std::mutex failureMutex;
    auto evaluate = [&](const int& i) {
        if (progress.cancelled())
            return;
        try {
            const Task& t = tasks[i];
            Strategy& s = results[i];
            s.placement = megatronPlacement(req.cluster, t.degrees);
            s.microBatchSize = t.mbs;
            s.microBatches = gbs / (t.degrees.dp * t.mbs);
            const AmpEstimate e = amp.evaluate(s.placement, t.mbs, s.microBatches, method, repair);
            repaired[i] = e.repaired;
            s.bounds = e.bounds;
            s.plannerCost = e.seconds;
            s.fitsMemory = e.fitsMemory;
            steps[i] = e.dpSteps;
        } catch (...) {
            std::lock_guard<std::mutex> lock(failureMutex);
            if (!failure)
                failure = std::current_exception();
        }
    };

    // Evaluate in chunks so progress and cancellation are seen between them.
    const int chunk = 64;
    for (int first = 0; first < int(tasks.size()); first += chunk) {
        progress.checkpoint();
        progress.report(0.8 * first / tasks.size(), "amp: evaluating strategies");
        std::vector<int> idx(std::min<int>(chunk, int(tasks.size()) - first));
        std::iota(idx.begin(), idx.end(), first);
        QtConcurrent::blockingMap(idx, evaluate);
        if (failure)
            std::rethrow_exception(failure);
    }
    progress.checkpoint();

    // Rank by AMP's cost; drop memory misfits unless asked to keep them. A strategy without any layer
    // split (evaluate() reports it as not fitting) cannot be ranked either and counts as dropped, so that
    // ranked + dropped = strategies, in the message and in search.extra alike.
    std::vector<int> order;
    long long dropped = 0;
    for (int i = 0; i < int(results.size()); ++i) {
        if (results[i].bounds.empty() || (!results[i].fitsMemory && !keepInfeasible)) {
            ++dropped;
            continue;
        }
        order.push_back(i);
    }
    if (order.empty())
        throw InfeasibleError("amp: none of the " + std::to_string(tasks.size()) +
                              " strategies fits GPU memory (" + std::to_string(dropped) + " dropped)");
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return results[a].plannerCost < results[b].plannerCost; });
    order.resize(std::min<size_t>(order.size(), size_t(topK)));
    std::vector<Strategy> top;
    for (int i : order)
        top.push_back(results[i]);

    progress.report(0.8, "amp: simulating the top " + std::to_string(top.size()));
    std::vector<Candidate> candidates;
    Plan best = pickBySimulation(
        top, req.cluster, req.model, req.job, [&](Plan& p) { scorePlan(p, costs); },
        [&] { progress.checkpoint(); }, candidates);
    best.candidates = std::move(candidates);
    best.search.candidates = (long long)tasks.size();
    best.search.extra["dropped_for_memory"] = double(dropped);
    best.search.extra["repaired_for_memory"] = double(std::count(repaired.begin(), repaired.end(), 1));
    best.search.extra["dp_steps"] = double(std::accumulate(steps.begin(), steps.end(), 0LL));
    best.search.extra["simulated"] = double(top.size());
    return best;
}

} // namespace hetplan
