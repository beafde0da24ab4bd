// Targets: `amp` on amp-het-cluster + gpt2-amp (gbs 32) < 50 ms, on amp-scale-16x16 < 0.5 s (AMP's own
// table 2 reports 1627 s for 16 × 16).
//
// How the per-candidate cost stays below the paper's O(k·L⁴):
// - layer times: one CostModel::layers() call per (device type, tp, micro-batch) for the whole run, kept as
//   prefix sums (LayerTimeTable), so any stage time is O(1) per device signature;
// - layer DP: solveLayerSplit walks the stage-time threshold downwards over the (max stage, Σ) Pareto
//   front — O(k·L²) per step, a handful of steps — instead of filling the O(k·L·|M|·L) table of eq. 6-8;
//   it stops as soon as (gas−1)·m_lb + Σ can no longer beat the best split found;
// - eq. 4 on the split is O(#GPUs); candidates run in parallel (parallelFor);
// - only the top-k (10) strategies are simulated.
// For comparison the paper's own DP (option dp=paper) is timed too.
#include "bench.h"

#include "core/io/examples.h"
#include "core/planners/amp/amp_planner.h"

#include <string>

using namespace hetplan;

namespace {

// The planner alone (cost model built beforehand), as a search inside the app would call it.
void ampPlan(benchmark::State& state, const std::string& cluster, const std::string& dp, double targetMs)
{
    const AmpPlanner planner;
    PlanRequest req;
    req.cluster = exampleCluster(cluster);
    req.model = buildExampleModel("gpt2-amp");
    req.job.globalBatchSize = 32;
    req.options = resolveOptions(planner, {{"dp", dp}});
    const CostModel costs(req.model, req.job, req.profile);
    Plan plan;
    for (auto _ : state) {
        Progress progress;
        plan = planner.plan(req, costs, progress);
    }
    const Pipeline& pl = plan.pipelines.at(0);
    state.counters["candidates"] = double(plan.search.candidates);
    state.counters["dp_steps"] = plan.search.extra["dp_steps"];
    state.counters["iteration_s"] = plan.estimate.iterationSeconds;
    state.SetLabel(bench::targetLabel(
        targetMs, "best pp " + std::to_string(pl.stages.size()) + " dp " + std::to_string(pl.replicas) + " tp " +
                      std::to_string(pl.stages[0].tensorParallel) + " mbs " + std::to_string(pl.microBatchSize)));
}

} // namespace

BENCHMARK_CAPTURE(ampPlan, het, std::string("amp-het-cluster"), std::string("fast"), 50.0)
    ->Name("amp/amp-het-cluster/gpt2-amp")
    ->Apply(bench::wallMilliseconds);
BENCHMARK_CAPTURE(ampPlan, het_paper, std::string("amp-het-cluster"), std::string("paper"), 0.0)
    ->Name("amp_paper_dp/amp-het-cluster/gpt2-amp")
    ->Apply(bench::wallMilliseconds);
BENCHMARK_CAPTURE(ampPlan, scale, std::string("amp-scale-16x16"), std::string("fast"), 500.0)
    ->Name("amp/amp-scale-16x16/gpt2-amp")
    ->Apply(bench::wallMilliseconds);
BENCHMARK_CAPTURE(ampPlan, scale_paper, std::string("amp-scale-16x16"), std::string("paper"), 0.0)
    ->Name("amp_paper_dp/amp-scale-16x16/gpt2-amp")
    ->Apply(bench::wallMilliseconds);
