// Target: one iteration of a 64-stage × 128-micro-batch pipeline with 8 replicas (512 GPUs) simulated in
// < 50 ms on the fast scoring path planners use (no timeline). The same plan with its timeline is timed too.
#include "bench.h"
#include "scale_inputs.h"

#include "core/model/device.h"
#include "core/sim/simulator.h"

using namespace hetplan;

namespace {

constexpr int kStages = 64, kMicroBatches = 128, kReplicas = 8, kLayersPerStage = 2;

// 64 nodes of 8 GPUs, alternately V100 and A100 (each replica spans both types).
Plan pipelinePlan()
{
    Plan plan;
    plan.planner = "bench";
    plan.model = bench::makeScaleModel({kStages * kLayersPerStage - 2, 1600, 25, 1024});
    plan.job.globalBatchSize = kReplicas * kMicroBatches;
    plan.cluster.name = "bench-512";
    for (int n = 0; n < kStages * kReplicas / 8; ++n) {
        Node node;
        node.name = "node" + std::to_string(n);
        node.deviceType = n % 2 ? "A100-80GB" : "V100-32GB";
        node.gpus = 8;
        node.nicBandwidth = 12.5e9;
        plan.cluster.nodes.push_back(node);
    }
    Pipeline pl;
    pl.replicas = kReplicas;
    pl.microBatchSize = 1;
    pl.microBatches = kMicroBatches;
    for (int s = 0; s < kStages; ++s) {
        Stage st;
        st.firstLayer = s * kLayersPerStage;
        st.endLayer = (s + 1) * kLayersPerStage;
        for (int r = 0; r < kReplicas; ++r)
            st.gpus.push_back(r * kStages + s);
        pl.stages.push_back(st);
    }
    plan.pipelines.push_back(pl);
    return plan;
}

void simulatePipeline(benchmark::State& state, bool timeline, double targetMs)
{
    const Plan plan = pipelinePlan();
    const CostModel costs(plan.model, plan.job, Profile());
    SimResult r;
    for (auto _ : state)
        r = simulate(plan, costs, SimOptions{timeline});
    state.counters["iteration_s"] = r.iterationSeconds;
    if (timeline)
        state.counters["events"] = double(r.events.size());
    state.SetLabel(bench::targetLabel(targetMs));
}

} // namespace

BENCHMARK_CAPTURE(simulatePipeline, fast, false, 50.0)
    ->Name("simulate/64_stages/128_micro_batches/8_replicas")
    ->Apply(bench::wallMilliseconds);
BENCHMARK_CAPTURE(simulatePipeline, timeline, true, 0.0)
    ->Name("simulate_with_timeline/64_stages/128_micro_batches/8_replicas")
    ->Apply(bench::wallMilliseconds);
