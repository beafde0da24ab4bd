// Poplar's allocation (online profiling against the models + algorithm 2) on the generated scale cluster
// of eight device types, 64 and 1024 GPUs, llama-0.5b at sequence 2048 with 16 samples per GPU. Timed is
// the planner itself (PoplarPlanner::plan), not the simulator's re-scoring that runPlanner adds.
// ZeRO-0 exercises the peak-speed allocation, ZeRO-3 the wall-time search. Targets: 64 GPUs < 10 ms,
// 1024 GPUs < 100 ms.
#include "bench.h"
#include "scale_inputs.h"

#include "core/io/examples.h"
#include "core/planners/poplar/poplar.h"

using namespace hetplan;

namespace {

void poplarAllocation(benchmark::State& state, int gpus, int stage, double targetMs)
{
    PlanRequest req;
    req.cluster = bench::makeScaleCluster(bench::scaleClusterShape(gpus));
    req.model = buildExampleModel("llama-0.5b");
    req.job.globalBatchSize = 16 * gpus;
    req.job.sequenceLength = 2048;
    req.job.zeroStage = stage;
    PoplarPlanner planner;
    req.options = resolveOptions(planner, {});
    const CostModel costs(req.model, req.job, req.profile);
    Plan plan;
    for (auto _ : state) {
        Progress progress;
        plan = planner.plan(req, costs, progress);
    }
    state.counters["zero_stage"] = plan.zero->stage;
    state.counters["planner_iteration_s"] = plan.plannerEstimate.value_or(0);
    state.SetLabel(bench::targetLabel(targetMs));
}

} // namespace

BENCHMARK_CAPTURE(poplarAllocation, gpus64_zero0, 64, 0, 10.0)->Apply(bench::wallMilliseconds);
BENCHMARK_CAPTURE(poplarAllocation, gpus64_zero3, 64, 3, 10.0)->Apply(bench::wallMilliseconds);
BENCHMARK_CAPTURE(poplarAllocation, gpus1024_zero0, 1024, 0, 100.0)->Apply(bench::wallMilliseconds);
BENCHMARK_CAPTURE(poplarAllocation, gpus1024_zero3, 1024, 3, 100.0)->Apply(bench::wallMilliseconds);
