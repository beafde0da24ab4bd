// Issue 2 target: analytic profile for a 96-layer model over 20 device types × 4 tp × 8 micro-batch sizes
// in < 20 ms.
#include "bench.h"

#include "core/cost/analytic.h"
#include "core/model/device.h"

#include <cstdio>

using namespace hetplan;

void benchAnalytic()
{
    ModelSpec m = buildExampleModel("gpt2-xl");
    // 96 layers: repeat the transformer block (GPT-3-175B depth).
    LayerSpec block = m.layers[1];
    std::vector<LayerSpec> layers{m.layers.front()};
    for (int i = 0; i < 94; ++i)
        layers.push_back(block);
    layers.push_back(m.layers.back());
    m.layers = layers;
    std::vector<DeviceType> devices(DeviceCatalog::builtin().all().begin(),
                                    DeviceCatalog::builtin().all().begin() +
                                        std::min<size_t>(20, DeviceCatalog::builtin().all().size()));
    Job job;
    size_t tables = 0;
    double s = bench::timeBest([&] {
        Profile p = generateAnalyticProfile(m, devices, {1, 2, 4, 8}, {1, 2, 4, 8, 16, 32, 64, 128}, job);
        tables = p.tables().size();
    });
    std::printf("analytic profile %zu layers x %zu devices x 4 tp x 8 mbs (%zu tables): %.2f ms (target < 20 ms)\n",
                m.layers.size(), devices.size(), tables, s * 1e3);
}
