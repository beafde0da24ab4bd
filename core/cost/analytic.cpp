#include "analytic.h"

#include "collectives.h"

#include <algorithm>

namespace hetplan {

namespace {
// Without tensor cores fp32 runs at a fraction of the fp16/bf16 tensor peak; TF32 is about half and plain
// fp32 about an eighth on recent parts. We take a quarter as the middle ground.
constexpr double kFp32Fraction = 0.25;
} // namespace

double precisionPeakFlops(const DeviceType& device, Precision precision)
{
    return device.peakFlops * (precision == Precision::FP32 ? kFp32Fraction : 1.0);
}

LinkParams analyticTpLink(const DeviceType& device) { return {device.intraNodeBandwidth, AnalyticContext{}.tpLatency}; }

LayerTiming analyticLayerTiming(const LayerSpec& layer, const DeviceType& device, int tp, double microBatch,
                                const Job& job, const AnalyticContext& ctx)
{
    const int split = layer.tensorParallel ? std::max(1, tp) : 1;
    const double peak = precisionPeakFlops(device, job.precision);
    const double flops = layer.forwardFlops * microBatch / split;
    const double compute = flops / (peak * device.efficiency(microBatch));
    // Roofline: a layer cannot run faster than streaming its weights and its input/output activations.
    const double bytes = layer.weightBytesMoved / split * job.activationScale() +
                         (layer.inputBytes + layer.outputBytes) * microBatch * job.activationScale();
    const double memory = bytes / device.memoryBandwidth;
    double forward = std::max(compute, memory);

    double tpComm = 0;
    if (split > 1 && layer.tpAllReduceBytes > 0) {
        LinkParams link = analyticTpLink(device);
        if (ctx.tpBandwidth > 0)
            link = {ctx.tpBandwidth, ctx.tpLatency};
        tpComm = ringAllReduce(layer.tpAllReduceBytes * microBatch * job.activationScale(), split, link);
    }

    LayerTiming t;
    t.forward = forward + tpComm;
    t.backward = job.backwardFactor * forward + tpComm + (job.recompute ? forward : 0);
    // Adam step over this rank's shard: read and write fp16 weights, fp32 master copy and both moments.
    const double stateBytes = layer.params / split * (job.bytesPerValue() * 2 + job.optimizerBytesPerParam);
    t.update = 2 * stateBytes / device.memoryBandwidth;
    return t;
}

Profile generateAnalyticProfile(const ModelSpec& model, const std::vector<DeviceType>& devices,
                                const std::vector<int>& tps, const std::vector<int>& microBatches, const Job& job)
{
    Profile p;
    p.model = model.name;
    p.source = "analytic";
    std::vector<LayerTiming> table(model.layers.size());
    for (const DeviceType& d : devices)
        for (int tp : tps)
            for (int mbs : microBatches) {
                for (size_t l = 0; l < model.layers.size(); ++l)
                    table[l] = analyticLayerTiming(model.layers[l], d, tp, mbs, job);
                p.set({d.name, tp, mbs}, table);
            }
    return p;
}

} // namespace hetplan
