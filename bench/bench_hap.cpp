// Targets: HAP's program synthesis (one A* run, section 4.3) for a 24-layer ViT < 0.5 s and for a
// 48-layer ViT < 2 s on hap-testbed's two GPU types (the paper's fig. 19 reports a few seconds for 24
// layers). The tensor program is built outside the timed loop; the search is single-threaded, so the CPU
// time column is the figure to read on a loaded machine.
#include "bench.h"

#include "core/io/examples.h"
#include "core/planners/hap/graph_builders.h"
#include "core/planners/hap/load_balance.h"

using namespace hetplan;
using namespace hetplan::hap;

namespace {

void hapSynthesis(benchmark::State& state, int layers, double targetMs)
{
    ModelSpec vit = buildExampleModel("vit-base");
    vit.arch.layers = layers;
    const TensorGraph g = buildTensorProgram(vit, 64 * 64);
    SynthesisContext ctx;
    ctx.graph = &g;
    ctx.classes = {{"V100-16GB", 16, 125e12 * 0.45}, {"P100-16GB", 48, 18.7e12 * 0.6}};
    ctx.ranks = 64;
    ctx.link = {10.4e9 / 8, 50e-6};
    for (int s = 0; s < int(g.segments.size()); ++s)
        ctx.ratioSegmentOf.push_back(s);
    ctx.ratios.assign(g.segments.size(), proportionalRatios(ctx.classes));
    SynthesisStats st;
    for (auto _ : state)
        benchmark::DoNotOptimize(synthesize(ctx, &st));
    state.counters["forward_ops"] = g.forwardOps;
    state.counters["expanded"] = double(st.expanded);
    state.SetLabel(bench::targetLabel(targetMs));
}

} // namespace

BENCHMARK_CAPTURE(hapSynthesis, vit24, 24, 500.0)->Name("hap/synthesis/vit-24-layers")->Apply(bench::wallMilliseconds);
BENCHMARK_CAPTURE(hapSynthesis, vit48, 48, 2000.0)->Name("hap/synthesis/vit-48-layers")->Apply(bench::wallMilliseconds);
