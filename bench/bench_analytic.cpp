// Target: the analytic profile of a 96-layer model over 20 device types × 4 tp × 8 micro-batch sizes in
// < 20 ms.
#include "bench.h"
#include "scale_inputs.h"

#include "core/cost/analytic.h"
#include "core/model/device.h"

using namespace hetplan;

namespace {

void analyticProfile(benchmark::State& state)
{
    // gpt2-xl's embedding and head around 94 copies of its block (GPT-3-175B depth).
    const ModelSpec m = bench::makeScaleModel({94, 1600, 25, 1024});
    const auto& all = DeviceCatalog::builtin().all();
    const std::vector<DeviceType> devices(all.begin(), all.begin() + std::min<size_t>(20, all.size()));
    const Job job;
    size_t tables = 0;
    for (auto _ : state) {
        const Profile p = generateAnalyticProfile(m, devices, {1, 2, 4, 8}, {1, 2, 4, 8, 16, 32, 64, 128}, job);
        tables = p.tables().size();
    }
    state.counters["layers"] = double(m.layers.size());
    state.counters["devices"] = double(devices.size());
    state.counters["tables"] = double(tables);
    state.SetLabel(bench::targetLabel(20));
}

} // namespace

BENCHMARK(analyticProfile)->Name("analytic_profile/96_layers/20_devices/4_tp/8_mbs")->Apply(bench::wallMilliseconds);
