#include "analytic.h"

#include "collectives.h"
#include "core/model/cluster.h"

#include <algorithm>

namespace hetplan {

namespace {

// Element-wise backward reads the saved input and the output gradient and writes the input gradient: about
// twice the forward's traffic; it also launches about twice the kernels (input and weight gradients).
constexpr double kBackwardMemoryFactor = 2;
constexpr double kBackwardLaunchFactor = 2;

struct Dims {
    double m, n, k, batch;
};

// One product's dimensions at this micro-batch and tensor-parallel degree.
Dims dimsOf(const MatMul& mm, double split, double microBatch)
{
    Dims d{mm.m, mm.n, mm.k, mm.batch};
    if (mm.perSampleBatch)
        d.batch *= microBatch;
    else
        d.m *= microBatch;
    switch (mm.split) {
    case TpSplit::N: d.n /= split; break;
    case TpSplit::K: d.k /= split; break;
    case TpSplit::Batch: d.batch /= split; break;
    case TpSplit::None: break;
    }
    return d;
}

struct PassTimes {
    double forward = 0, backward = 0;
};

// Forward product C = A·B and its two gradient products dA = dC·Bᵀ (m×n·n×k) and dB = Aᵀ·dC (k×m·m×n).
PassTimes matmulPasses(const LayerSpec& layer, const DeviceType& device, double split, double microBatch,
                       const Job& job)
{
    PassTimes t;
    for (const MatMul& mm : layer.matmuls) {
        const Dims d = dimsOf(mm, split, microBatch);
        t.forward += matmulTime(device, job.precision, d.m, d.n, d.k, d.batch, job.tf32);
        t.backward += matmulTime(device, job.precision, d.m, d.k, d.n, d.batch, job.tf32) +
                      matmulTime(device, job.precision, d.k, d.n, d.m, d.batch, job.tf32);
    }
    t.backward *= job.backwardFactor / 2;
    return t;
}

// A layer known only by its FLOPs: the batch-efficiency curve, limited by streaming weights and activations.
double flopsOnlyForward(const LayerSpec& layer, const DeviceType& device, double split, double microBatch,
                        const Job& job)
{
    const double flops = layer.forwardFlops * microBatch / split;
    const double compute = flops / (matmulPeak(device, job.precision, job.tf32) * device.efficiency(microBatch));
    const double bytes = layer.weightBytesMoved / split * job.activationScale() +
                         (layer.inputBytes + layer.outputBytes) * microBatch * job.activationScale();
    return std::max(compute, bytes / device.memoryBandwidth);
}

// NCCL's own latency model (src/graph/tuning.h) charges a ring all-reduce a base latency per call of 3.6 us
// (LL), 10 us (LL128) or 8.4 us (Simple) before the per-step hardware latency; Simple is what it picks for
// the megabyte-sized activation all-reduces of a transformer layer.
constexpr double kNcclRingBaseLatency = 8.4e-6;

double tpAllReduceTime(const LayerSpec& layer, const DeviceType& device, int split, double microBatch, const Job& job,
                       const AnalyticContext& ctx)
{
    LinkParams link = analyticTpLink(device, split);
    if (ctx.tpBandwidth > 0)
        link = {ctx.tpBandwidth, ctx.tpLatency};
    return tpAllReduceSeconds(layer, device, split, microBatch, job, link,
                              job.runsSequenceParallel(split, ctx.moeModel));
}

// FlashAttention-style kernels take 16-bit inputs only; in fp32 the scores go through memory.
bool scoresInMemory(const LayerSpec& layer, const Job& job)
{
    return !layer.fusedAttention || job.precision == Precision::FP32;
}

} // namespace

double precisionPeakFlops(const DeviceType& device, const Job& job)
{
    return matmulPeak(device, job.precision, job.tf32);
}

double collectiveCallSeconds(const DeviceType& device) { return device.launchOverhead + kNcclRingBaseLatency; }

double tpAllReduceSeconds(const LayerSpec& layer, const DeviceType& device, int tp, double microBatch,
                          const Job& job, const LinkParams& link, bool sequenceParallel)
{
    if (tp <= 1 || !layer.tensorParallel || layer.tpAllReduceBytes <= 0)
        return 0;
    const double bytesPerCall = layer.tpAllReduceBytes * microBatch * job.activationScale() / kTpAllReducesPerPass;
    const double ring = sequenceParallel ? ringReduceScatter(bytesPerCall, tp, link) + ringAllGather(bytesPerCall, tp, link)
                                         : ringAllReduce(bytesPerCall, tp, link);
    const int calls = sequenceParallel ? 2 : 1;
    return kTpAllReducesPerPass * (ring + calls * collectiveCallSeconds(device));
}

double attentionCoreSeconds(const LayerSpec& layer, const DeviceType& device, int tp, double microBatch, const Job& job)
{
    const double split = layer.tensorParallel ? std::max(1, tp) : 1;
    double seconds = 0;
    for (const MatMul& mm : layer.matmuls)
        if (mm.perSampleBatch) {
            const Dims d = dimsOf(mm, split, microBatch);
            seconds += matmulTime(device, job.precision, d.m, d.n, d.k, d.batch, job.tf32);
        }
    if (scoresInMemory(layer, job))
        seconds += memoryTime(device, layer.attentionScoreBytes / split * microBatch * job.activationScale());
    return seconds;
}


LinkParams analyticTpLink(const DeviceType& device, int tp)
{
    LinkParams link{device.intraNodeBandwidth, AnalyticContext{}.tpLatency};
    if (tp < 2 || device.intraNodeLink.rfind("PCIe", 0) != 0)
        return link;
    std::vector<std::pair<int, int>> ring;
    for (int i = 0; i < tp; ++i)
        ring.push_back({i, (i + 1) % tp});
    for (double bw : pcieHopBandwidths(ring, device.intraNodeBandwidth, kDefaultGpusPerPcieSwitch, device.pcieP2p))
        link.bandwidth = std::min(link.bandwidth, bw);
    return link;
}

double matmulPeak(const DeviceType& device, Precision precision, bool tf32)
{
    if (precision != Precision::FP32)
        return device.peakFlops;
    if (!tf32 && device.peakFlopsFp32CudaCores > 0)
        return device.peakFlopsFp32CudaCores;
    return device.peakFlopsFp32 > 0 ? device.peakFlopsFp32 : device.peakFlops / 4;
}

double matmulEfficiency(const DeviceType& device, double m, double n, double k)
{
    const double h = device.gemmHalfDim;
    return device.effMax * (m / (m + h)) * (n / (n + h)) * (k / (k + h));
}

double matmulTime(const DeviceType& device, Precision precision, double m, double n, double k, double batch, bool tf32)
{
    const double compute =
        2 * m * n * k * batch / (matmulPeak(device, precision, tf32) * matmulEfficiency(device, m, n, k));
    const double bytesPerValue = precision == Precision::FP32 ? 4 : 2;
    return std::max(compute, memoryTime(device, (m * k + k * n + m * n) * batch * bytesPerValue));
}

double memoryTime(const DeviceType& device, double bytes)
{
    return bytes / (device.memoryBandwidth * device.memoryEfficiency);
}

LayerTiming analyticLayerTiming(const LayerSpec& layer, const DeviceType& device, int tp, double microBatch,
                                const Job& job, const AnalyticContext& ctx)
{
    const int split = layer.tensorParallel ? std::max(1, tp) : 1;
    PassTimes work;
    if (layer.matmuls.empty()) {
        work.forward = flopsOnlyForward(layer, device, split, microBatch, job);
        work.backward = job.backwardFactor * work.forward;
    } else {
        work = matmulPasses(layer, device, split, microBatch, job);
    }
    const double sharded = layer.memoryBytesSharded + (scoresInMemory(layer, job) ? layer.attentionScoreBytes : 0);
    // Sequence parallelism runs the norms, dropouts and residual adds on 1/tp of the sequence.
    const bool sp = job.runsSequenceParallel(split, ctx.moeModel);
    const double replicated = sp ? layer.memoryBytesReplicated / split : layer.memoryBytesReplicated;
    const double bytes = (replicated + sharded / split) * microBatch * job.activationScale();
    const double launches = layer.kernels * device.launchOverhead;
    work.forward += memoryTime(device, bytes) + launches;
    work.backward += kBackwardMemoryFactor * memoryTime(device, bytes) + kBackwardLaunchFactor * launches;

    const double tpComm = tpAllReduceTime(layer, device, split, microBatch, job, ctx);
    LayerTiming t;
    t.forward = work.forward + tpComm;
    t.backward = work.backward + tpComm;
    if (job.recompute)
        t.backward += work.forward;
    else if (job.selectiveRecompute)
        t.backward += attentionCoreSeconds(layer, device, split, microBatch, job);
    // Adam step over this rank's shard: read and write fp16 weights, fp32 master copy and both moments.
    const double stateBytes = layer.params / split * (job.bytesPerValue() * 2 + job.updateOptimizerBytes());
    t.update = 2 * stateBytes / device.memoryBandwidth;
    return t;
}

Profile generateAnalyticProfile(const ModelSpec& model, const std::vector<DeviceType>& devices,
                                const std::vector<int>& tps, const std::vector<int>& microBatches, const Job& job,
                                const AnalyticContext& ctx)
{
    Profile p;
    p.model = model.name;
    p.source = "analytic";
    std::vector<LayerTiming> table(model.layers.size());
    for (const DeviceType& d : devices)
        for (int tp : tps)
            for (int mbs : microBatches) {
                for (size_t l = 0; l < model.layers.size(); ++l)
                    table[l] = analyticLayerTiming(model.layers[l], d, tp, mbs, job, ctx);
                p.set({d.name, tp, mbs}, table);
            }
    return p;
}

} // namespace hetplan
