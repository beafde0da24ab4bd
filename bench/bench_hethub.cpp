// Targets: `hethub` on a 64-GPU, 4-type cluster with llama2-13b < 1 s, and on the generated
// 1024-GPU, 8-type scale cluster < 5 s. Each is timed twice: the search alone (metrics=false) and with the
// paper's metrics, whose additive upper bound runs one more search per device type.
//
// Why it is fast: each device type's layer times are prefix sums built once per (tp, micro-batch), so a
// stage's time is O(1); the DFS prunes with the bottleneck bound (M · slowest stage ≥ the k-th best
// iteration found), walking each type's layer count outwards from its speed-proportional share; only
// the top-k leaves (10) are simulated.
#include "bench.h"
#include "scale_inputs.h"

#include "core/io/examples.h"
#include "core/planners/hethub/hethub.h"

#include <string>

using namespace hetplan;

namespace {

// 4 device types × 2 nodes × 8 GPUs (the scale cluster's first four types).
Cluster cluster64()
{
    bench::ScaleClusterShape shape;
    shape.types.resize(4);
    shape.nodesPerType = 2;
    return bench::makeScaleCluster(shape);
}

void hethubPlan(benchmark::State& state, const Cluster& cluster, const ModelSpec& model, bool metrics, double targetMs)
{
    const HetHubPlanner planner;
    PlanRequest req;
    req.cluster = cluster;
    req.model = model;
    req.job.globalBatchSize = 1024;
    req.job.sequenceLength = model.arch.sequence;
    req.options = resolveOptions(planner, {{"metrics", metrics ? "true" : "false"}});
    const CostModel costs(req.model, req.job, req.profile);
    Plan plan;
    std::string outcome;
    for (auto _ : state) {
        Progress progress;
        try {
            plan = planner.plan(req, costs, progress);
        } catch (const std::exception& e) {
            outcome = e.what();
        }
    }
    if (!plan.pipelines.empty()) {
        const Pipeline& pl = plan.pipelines[0];
        state.counters["leaves"] = plan.search.extra["leaves_scored"];
        state.counters["pruned"] = plan.search.extra["subtrees_pruned"];
        state.counters["iteration_s"] = plan.estimate.iterationSeconds;
        outcome = "pp " + std::to_string(pl.stages.size()) + " dp " + std::to_string(pl.replicas) + " tp " +
                  std::to_string(pl.stages[0].tensorParallel) + " mbs " + std::to_string(pl.microBatchSize);
    }
    state.SetLabel(bench::targetLabel(targetMs, outcome));
}

} // namespace

BENCHMARK_CAPTURE(hethubPlan, c64_search, cluster64(), buildExampleModel("llama2-13b", 1024), false, 1000.0)
    ->Name("hethub/64_gpus_4_types/llama2-13b/search")
    ->Apply(bench::wallMilliseconds);
BENCHMARK_CAPTURE(hethubPlan, c64_metrics, cluster64(), buildExampleModel("llama2-13b", 1024), true, 1000.0)
    ->Name("hethub/64_gpus_4_types/llama2-13b/search+metrics")
    ->Apply(bench::wallMilliseconds);
BENCHMARK_CAPTURE(hethubPlan, c1024_search, bench::makeScaleCluster(), buildExampleModel("llama2-13b", 1024), false,
                  5000.0)
    ->Name("hethub/1024_gpus_8_types/llama2-13b/search")
    ->Apply(bench::wallMilliseconds);
BENCHMARK_CAPTURE(hethubPlan, c1024_metrics, bench::makeScaleCluster(), buildExampleModel("llama2-13b", 1024), true,
                  5000.0)
    ->Name("hethub/1024_gpus_8_types/llama2-13b/search+metrics")
    ->Apply(bench::wallMilliseconds);
BENCHMARK_CAPTURE(hethubPlan, c1024_gpt, bench::makeScaleCluster(), bench::makeScaleModel(), true, 5000.0)
    ->Name("hethub/1024_gpus_8_types/gpt-200/search+metrics")
    ->Apply(bench::wallMilliseconds);
