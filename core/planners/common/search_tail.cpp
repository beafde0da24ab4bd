#include "search_tail.h"

#include "core/base/errors.h"
#include "core/sim/simulator.h"

#include <algorithm>
#include <numeric>

namespace hetplan {

namespace {

// Feasible beats infeasible, then faster beats slower; ties keep the earlier (better-ranked) plan.
bool betterPlan(const Plan& a, const Plan& b)
{
    if (a.estimate.feasible != b.estimate.feasible)
        return a.estimate.feasible;
    return a.estimate.iterationSeconds < b.estimate.iterationSeconds;
}

} // namespace

Plan finishSearch(std::vector<Strategy> strategies, const SearchTail& tail, const PlanRequest& req,
                  const CostModel& costs, const Progress& progress, StopReason stopped, SearchStats stats,
                  const std::string& plannerName)
{
    const size_t evaluated = strategies.size();
    std::erase_if(strategies,
                  [&](const Strategy& s) { return s.layerBounds.empty() || (!s.fitsMemory && !tail.keepInfeasible); });
    const size_t dropped = evaluated - strategies.size();
    // DeepSpeed refuses ZeRO-2/3 with pipeline parallelism, and so does the simulator: keep one-stage ones.
    const size_t beforeZero = strategies.size();
    if (req.job.zeroStage >= 2)
        std::erase_if(strategies, [](const Strategy& s) { return s.layerBounds.size() > 2; });
    const size_t droppedForZero = beforeZero - strategies.size();
    if (strategies.empty() && droppedForZero > 0 && stopped == StopReason::None)
        throw InfeasibleError(plannerName + ": ZeRO stage " + std::to_string(req.job.zeroStage) +
                              " cannot be combined with pipeline parallelism (DeepSpeed refuses it) and none of the " +
                              std::to_string(evaluated) + " " + tail.what + " has a single stage");
    if (strategies.empty()) {
        if (stopped != StopReason::None)
            throw CancelledError(plannerName + ": stopped (" + toString(stopped) + ") before any feasible plan");
        throw InfeasibleError(plannerName + ": none of the " + std::to_string(evaluated) + " " + tail.what +
                              " fits GPU memory (" + std::to_string(dropped) + " dropped)");
    }
    std::stable_sort(strategies.begin(), strategies.end(),
                     [](const Strategy& a, const Strategy& b) { return a.plannerCost < b.plannerCost; });
    size_t simulate = tail.simulate > 0 ? std::min(strategies.size(), size_t(tail.simulate)) : strategies.size();
    if (stopped != StopReason::None)
        simulate = 1;
    progress.report(0.8, plannerName + ": simulating " + std::to_string(simulate) + " " + tail.what);

    Plan best;
    std::vector<Candidate> candidates;
    size_t simulated = 0;
    for (size_t i = 0; i < simulate; ++i) {
        // A cancel during the trials keeps what is simulated so far (at least the best-ranked strategy).
        if (i > 0 && progress.stopReason() != StopReason::None) {
            stopped = progress.stopReason();
            break;
        }
        Plan plan = strategyPlan(strategies[i], req.cluster, req.model, req.job);
        scorePlan(plan, costs);
        ++simulated;
        Candidate c = strategyCandidate(strategies[i]);
        c.simulatedCost = plan.estimate.iterationSeconds;
        candidates.push_back(std::move(c));
        if (i == 0 || betterPlan(plan, best))
            best = std::move(plan);
    }
    if (tail.orderBySimulation)
        std::stable_sort(candidates.begin(), candidates.end(),
                         [](const Candidate& a, const Candidate& b) { return *a.simulatedCost < *b.simulatedCost; });
    candidates.resize(std::min(candidates.size(), size_t(std::max(tail.keep, 1))));

    best.candidates = std::move(candidates);
    best.search = std::move(stats);
    best.search.extra["dropped_for_memory"] += double(dropped);
    if (droppedForZero > 0)
        best.search.extra["dropped_for_zero"] = double(droppedForZero);
    best.search.extra["simulated"] = double(simulated);
    best.search.stopped = stopped;
    return best;
}

} // namespace hetplan
