#include "amp_planner.h"

#include "core/base/errors.h"
#include "core/base/parallel_for.h"
#include "core/planners/amp/amp_cost.h"
#include "core/planners/common/bounds.h"
#include "core/planners/common/search_tail.h"
#include "core/planners/megatron_space.h"

#include <algorithm>
#include <exception>
#include <mutex>

namespace hetplan {

std::vector<PlannerOption> AmpPlanner::options() const
{
    return withMegatronSpace(
        {PlannerOption::integer("top_k", "Strategies simulated", 10, 1, 100000,
                                "strategies re-scored by the simulator (the paper's real trials)"),
         PlannerOption::boolean("keep_infeasible", "Keep memory misfits", false,
                                "rank strategies that do not fit GPU memory too (AMP has no memory model)"),
         PlannerOption::boolean("repair_memory", "Repair memory misfits", true,
                                "re-split a strategy whose DP split does not fit memory, with the misfitting "
                                "stages forbidden"),
         PlannerOption::choice("dp", "Layer DP", "fast", {"fast", "paper"},
                               "layer-assignment DP: fast (threshold walk) or paper (eq. 6-8 table); same optimum")});
}

namespace {

struct Task {
    Degrees degrees;
    int mbs = 1;
};

} // namespace

Plan AmpPlanner::plan(const PlanRequest& req, const CostModel& costs, Progress& progress) const
{
    const int topK = req.intOption("top_k");
    const bool keepInfeasible = req.boolOption("keep_infeasible");
    // Keeping misfits reproduces the paper, so there is nothing to repair then.
    const bool repair = req.boolOption("repair_memory") && !keepInfeasible;
    const LayerDpMethod method = req.option("dp") == "paper" ? LayerDpMethod::Paper : LayerDpMethod::Fast;

    const int gpus = req.cluster.gpuCount();
    const int layers = req.model.layerCount();
    const int gbs = req.job.globalBatchSize;

    // Algorithm 1, lines 1-4: degrees × micro-batch sizes.
    std::vector<Task> tasks;
    for (const Degrees& d : enumerateDegrees(gpus, layers, gbs, allowedTensorDegrees(req.model, req.cluster)))
        for (int mbs : divisors(gbs / d.dp))
            tasks.push_back({d, mbs});
    if (tasks.empty())
        throw InfeasibleError("amp: no (pp, dp, tp) fits " + std::to_string(gpus) + " GPUs, " + std::to_string(layers) +
                              " layers and global batch " + std::to_string(gbs));

    const AmpCostModel amp(req.cluster, costs);
    std::vector<Strategy> results(tasks.size());
    std::vector<long long> steps(tasks.size(), 0);
    std::vector<char> repaired(tasks.size(), 0);
    std::vector<char> evaluated(tasks.size(), 0);
    std::exception_ptr failure;
    std::mutex failureMutex;
    auto evaluate = [&](const int& i) {
        // Each task is polled: on a model of thousands of layers one task's memory limits take tens of
        // milliseconds, a chunk of them seconds.
        if (progress.stopReason() != StopReason::None)
            return;
        try {
            const Task& t = tasks[i];
            Strategy& s = results[i];
            s.placement = megatronPlacement(req.cluster, t.degrees);
            s.microBatchSize = t.mbs;
            s.microBatches = gbs / (t.degrees.dp * t.mbs);
            const AmpEstimate e = amp.evaluate(s.placement, t.mbs, s.microBatches, method, repair,
                                               [&] { return progress.stopReason() != StopReason::None; });
            if (e.stopped)
                return;
            repaired[i] = e.repaired;
            s.layerBounds = e.bounds;
            s.plannerCost = e.seconds;
            s.fitsMemory = e.fitsMemory;
            steps[i] = e.dpSteps;
            evaluated[i] = 1;
        } catch (...) {
            std::lock_guard<std::mutex> lock(failureMutex);
            if (!failure)
                failure = std::current_exception();
        }
    };

    // Evaluate in chunks so progress and stop requests are seen between them; a stop keeps the chunks done.
    const int chunk = 64;
    int done = 0;
    StopReason stopped = StopReason::None;
    while (done < int(tasks.size())) {
        if ((stopped = progress.stopReason()) != StopReason::None)
            break;
        progress.report(0.8 * done / tasks.size(), "amp: evaluating strategies");
        const int n = std::min<int>(chunk, int(tasks.size()) - done);
        parallelFor(n, [&](int k) { evaluate(done + k); });
        if (failure)
            std::rethrow_exception(failure);
        done += n;
    }
    // The strategies evaluated: every one before a stop, and those of the last chunk that ran before it.
    std::vector<Strategy> kept;
    for (int i = 0; i < done; ++i)
        if (evaluated[size_t(i)])
            kept.push_back(std::move(results[size_t(i)]));
    if (stopped == StopReason::None && int(kept.size()) < done)
        stopped = progress.stopReason(); // the stop came during the last chunk
    done = int(kept.size());
    results = std::move(kept);

    SearchStats stats;
    stats.candidates = done;
    stats.extra["repaired_for_memory"] = double(std::count(repaired.begin(), repaired.end(), 1));
    stats.extra["dp_steps"] = double(std::accumulate(steps.begin(), steps.end(), 0LL));
    SearchTail tail;
    tail.simulate = tail.keep = topK;
    tail.keepInfeasible = keepInfeasible;
    return finishSearch(std::move(results), tail, req, costs, progress, stopped, std::move(stats), "amp");
}

} // namespace hetplan
