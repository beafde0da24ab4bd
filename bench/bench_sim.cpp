// Issue 3 target: one iteration of a 64-stage × 128-micro-batch pipeline with 8 replicas (512 GPUs)
// simulated in < 50 ms (the fast scoring path planners use, no timeline).
#include "bench.h"

#include "core/model/device.h"
#include "core/sim/simulator.h"

#include <cstdio>

using namespace hetplan;

void benchSimulator()
{
    const int S = 64, M = 128, R = 8, layersPerStage = 2;
    ModelSpec m = buildExampleModel("gpt2-xl");
    LayerSpec block = m.layers[1];
    std::vector<LayerSpec> layers{m.layers.front()};
    while (int(layers.size()) < S * layersPerStage - 1)
        layers.push_back(block);
    layers.push_back(m.layers.back());
    m.layers = layers;

    Plan plan;
    plan.planner = "bench";
    plan.model = m;
    plan.job.globalBatchSize = R * M;
    plan.cluster.name = "bench-512";
    for (int n = 0; n < S * R / 8; ++n) {
        Node node;
        node.name = "node" + std::to_string(n);
        node.deviceType = n % 2 ? "A100-80GB" : "V100-32GB";   // heterogeneous: replicas alternate types
        node.gpus = 8;
        node.nicBandwidth = 12.5e9;
        plan.cluster.nodes.push_back(node);
    }
    Pipeline pl;
    pl.replicas = R;
    pl.microBatchSize = 1;
    pl.microBatches = M;
    for (int s = 0; s < S; ++s) {
        Stage st;
        st.firstLayer = s * layersPerStage;
        st.endLayer = (s + 1) * layersPerStage;
        for (int r = 0; r < R; ++r)
            st.gpus.push_back(r * S + s);
        pl.stages.push_back(st);
    }
    plan.pipelines.push_back(pl);

    CostModel costs(plan.model, plan.job, Profile());
    double iteration = 0;
    const double fast = bench::timeBest([&] { iteration = simulate(plan, costs, SimOptions{false}).iterationSeconds; });
    size_t events = 0;
    const double withTimeline = bench::timeBest([&] { events = simulate(plan, costs).events.size(); }, 3);
    std::printf("sim 64x128x8: %.2f ms (target < 50 ms; iteration %.3f s; with timeline %.2f ms, %zu events)\n",
                fast * 1e3, iteration, withTimeline * 1e3, events);
}
