#include "memory.h"

#include <algorithm>
#include <cmath>

namespace hetplan {

StateBytesPerParam stateBytesPerParam(const Job& job)
{
    // Megatron-LM, docs/source/api-guide/dist_optimizer.md (the distributed optimizer's table of
    // theoretical bytes per parameter): fp16 params + fp16 grads 20, bf16 params + fp32 grads 18,
    // fp32 params + fp32 grads 16. Megatron keeps bf16 gradients in fp32 (accumulate-allreduce-grads-in-fp32
    // is forced on for bf16) and fp16 gradients in fp16. The optimizer part is the optimizer's own states
    // (Adam's moments: job.optimizerStateBytesPerParam) plus what mixed precision adds to them.
    StateBytesPerParam b;
    const double states = job.optimizerStateBytesPerParam;
    switch (job.precision) {
    case Precision::FP16:
        b.weights = 2;
        b.gradients = 2;
        b.optimizer = 4 + 4 + states; // fp32 master copy + fp32 copy of the fp16 gradients + states
        break;
    case Precision::BF16:
        b.weights = 2;
        b.gradients = 4;
        b.optimizer = 4 + states; // fp32 master copy + states
        break;
    case Precision::FP32:
        b.weights = 4;
        b.gradients = 4;
        b.optimizer = states; // the weights are the master copy
        break;
    }
    return b;
}

MemoryBreakdown modelStateMemory(const ModelSpec& model, int first, int end, int tp, int dpShards, const Job& job)
{
    double params = 0;
    for (int l = first; l < end; ++l) {
        const LayerSpec& s = model.layers[l];
        params += s.tensorParallel ? s.params / std::max(1, tp) : s.params;
    }
    // Tied embeddings: a stage holding the head but not the embedding keeps its own
    // copy of the word embedding (vocabulary-parallel, so split by tp) with gradients and optimizer states.
    params += model.tiedCopyParams(first, end) / std::max(1, tp);
    return paramStateMemory(params, dpShards, job);
}

MemoryBreakdown paramStateMemory(double params, int dpShards, const Job& job)
{
    const double shards = std::max(1, dpShards);
    const StateBytesPerParam per = stateBytesPerParam(job);
    MemoryBreakdown m;
    m.weights = params * per.weights;
    m.gradients = params * per.gradients;
    m.optimizer = params * per.optimizer;
    // ZeRO: stage 1 (Megatron's distributed optimizer) shards optimizer states, 2 also gradients, 3 also
    // the weights.
    if (job.zeroStage >= 1)
        m.optimizer /= shards;
    if (job.zeroStage >= 2)
        m.gradients /= shards;
    if (job.zeroStage >= 3)
        m.weights /= shards;
    return m;
}

double StageActivations::peak(int inFlight) const { return std::max(1, inFlight) * perMicroBatch + oncePerStage; }

LayerActivation layerActivation(const LayerSpec& s, int tp, double microBatch, const Job& job, bool sequenceParallel,
                                double measuredFull)
{
    const double t = s.tensorParallel ? std::max(1, tp) : 1;
    const double scale = microBatch * job.activationScale();
    const double replicated = sequenceParallel ? s.activationBytesReplicated / t : s.activationBytesReplicated;
    LayerActivation a;
    a.full = measuredFull >= 0 ? measuredFull : scale * (s.activationBytesSharded / t + replicated);
    if (job.recompute) // the stashed input; sequence parallelism keeps it split along the sequence
        a.kept = scale * (sequenceParallel ? s.inputBytes / t : s.inputBytes);
    else if (job.selectiveRecompute)
        a.kept = std::max(0.0, a.full - scale * s.attentionCoreBytes / t);
    else
        a.kept = a.full;
    return a;
}

StageActivations stageActivations(const ModelSpec& model, int first, int end, int tp, double microBatch, const Job& job,
                                  bool sp, std::span<const double> measuredFull)
{
    StageActivations a;
    double largestLayer = 0;
    for (int l = first; l < end; ++l) {
        const size_t i = size_t(l - first);
        const double measured = i < measuredFull.size() ? measuredFull[i] : -1;
        const LayerActivation la = layerActivation(model.layers[l], tp, microBatch, job, sp, measured);
        largestLayer = std::max(largestLayer, la.full);
        a.perMicroBatch += la.kept;
    }
    // Recomputation re-materialises one layer at a time during a backward; micro-batches do not run their
    // backwards concurrently, so that buffer exists once per stage.
    if (job.recompute)
        a.oncePerStage = largestLayer;
    a.largestLayer = largestLayer;
    return a;
}

StageActivations stageActivations(const ModelSpec& model, int first, int end, int tp, double microBatch, const Job& job,
                                  std::span<const double> measuredFull)
{
    const bool sp = job.runsSequenceParallel(tp, model.hasMoeLayers());
    return stageActivations(model, first, end, tp, microBatch, job, sp, measuredFull);
}

std::vector<StageActivations> layerStageActivations(const ModelSpec& model, int first, int end, int tp,
                                                    double microBatch, const Job& job)
{
    const bool sp = job.runsSequenceParallel(tp, model.hasMoeLayers());
    std::vector<StageActivations> out;
    out.reserve(size_t(std::max(0, end - first)));
    for (int l = first; l < end; ++l)
        out.push_back(stageActivations(model, l, l + 1, tp, microBatch, job, sp, {}));
    return out;
}

double activationMemory(const ModelSpec& model, int first, int end, int tp, double microBatch, const Job& job)
{
    return stageActivations(model, first, end, tp, microBatch, job).peak(1);
}

double gradientBufferMemory(double params, const Job& job)
{
    using namespace memdefaults;
    // Megatron's DDP keeps the gradients in one contiguous buffer and reduces them in place: the gradients
    // line is that buffer.
    if (job.framework != Framework::DeepSpeedPipe)
        return 0;
    // DeepSpeed without ZeRO: buffered_allreduce_fallback flattens up to 5e8 elements of gradients into a
    // new tensor (the reduction's dtype: fp16 stays fp16, bf16 reduces the optimizer's fp32 gradients).
    if (job.zeroStage == 0)
        return std::min(params, kDeepSpeedBucketElements) * job.gradReduceBytes();
    // ZeRO-1/2/3 with contiguous_gradients: the reduce bucket of reduce_bucket_size elements in the
    // parameters' dtype, allocated whole whatever the model's size (one; overlap_comm, off by default for
    // ZeRO-1/2, would double it).
    return kDeepSpeedBucketElements * job.bytesPerValue();
}

GpuMemory stageMemory(const ModelSpec& model, int first, int end, int tp, int dpShards, double microBatch, int inFlight,
                      const Job& job, std::span<const double> measuredFull)
{
    const bool sp = job.runsSequenceParallel(tp, model.hasMoeLayers());
    return stageMemory(model, first, end, tp, dpShards, microBatch, inFlight, job, sp, measuredFull);
}

GpuMemory stageMemory(const ModelSpec& model, int first, int end, int tp, int dpShards, double microBatch, int inFlight,
                      const Job& job, bool sequenceParallel, std::span<const double> measuredFull)
{
    // The parameters one GPU holds, summed as modelStateMemory sums them (one pass, not two: the template
    // planners call this O(L^2 log M) times).
    double params = 0;
    for (int l = first; l < end; ++l) {
        const LayerSpec& s = model.layers[l];
        params += s.tensorParallel ? s.params / std::max(1, tp) : s.params;
    }
    params += model.tiedCopyParams(first, end) / std::max(1, tp);
    const StageActivations a = stageActivations(model, first, end, tp, microBatch, job, sequenceParallel, measuredFull);
    return stageParts(params, dpShards, a, inFlight, microBatch, job);
}

GpuMemory stageParts(double params, int dpShards, const StageActivations& a, int inFlight, double microBatch,
                     const Job& job)
{
    const MemoryBreakdown states = paramStateMemory(params, dpShards, job);
    GpuMemory m;
    m.weights = states.weights;
    m.gradients = states.gradients;
    m.optimizer = states.optimizer;
    m.activations = a.peak(inFlight);
    m.gradientBuffer = gradientBufferMemory(params, job);
    m.allocatorReserve = microBatch > 0 ? a.largestLayer : 0;
    return m;
}

GpuMemory withExpertParallel(GpuMemory m, double expertParams, int ep, int dpShards, const Job& job)
{
    if (ep <= 1 || expertParams <= 0)
        return m;
    const MemoryBreakdown full = paramStateMemory(expertParams, dpShards, job);
    const MemoryBreakdown own = paramStateMemory(expertParams / ep, std::max(1, dpShards / ep), job);
    m.weights += own.weights - full.weights;
    m.gradients += own.gradients - full.gradients;
    m.optimizer += own.optimizer - full.optimizer;
    return m;
}

double stagePeakMemory(const ModelSpec& model, int first, int end, int tp, int dpShards, double microBatch,
                       int inFlight, const Job& job)
{
    return stageMemory(model, first, end, tp, dpShards, microBatch, inFlight, job).stagePart();
}

int ncclChannels(const Node& node, const DeviceType& device)
{
    using namespace memdefaults;
    const double bw = node.intraBandwidth > 0 ? node.intraBandwidth : device.intraNodeBandwidth;
    const double channels = std::ceil(std::max(0.0, bw) / kNcclChannelBandwidth);
    return int(std::clamp(channels, double(kNcclMinChannels), double(kNcclMaxChannels)));
}

namespace {
// Buffers of the communicators a rank at pipeline position `stage` of `g.stages` holds.
double communicatorsAt(const RankGroups& g, int stage, int channels, const Job& job)
{
    using namespace memdefaults;
    const double ring = channels * kNcclRingConnectionBytes; // one ring communicator of > 1 rank
    const int tp = std::max(1, g.tp), dp = std::max(1, g.dp), S = std::max(1, g.stages);
    const bool firstOrLast = stage == 0 || stage == S - 1;
    const int neighbours = S == 1 ? 0 : (firstOrLast ? 1 : 2);
    double bytes = 0;
    if (tp > 1)
        bytes += ring; // the tensor-parallel group
    if (dp > 1)
        bytes += ring; // the data-parallel group
    if (tp * S > 1)
        bytes += ring; // the model-parallel group (tp x pp): gradient norm and overflow checks
    if (g.tied && S > 1 && firstOrLast)
        bytes += ring; // the embedding group of the first and the last stage
    if (job.framework == Framework::DeepSpeedPipe)
        bytes += neighbours * ring; // DeepSpeed's pipeline sends are broadcasts in a 2-rank group per pair
    else
        bytes += neighbours * double(kNcclP2pChannelsPerPeer) * kNcclP2pBytesPerChannel; // Megatron's p2p
    return bytes;
}
} // namespace

double communicatorMemory(const RankGroups& g, const Node& node, const DeviceType& device, const Job& job)
{
    const int channels = ncclChannels(node, device);
    const int S = std::max(1, g.stages);
    if (g.stage >= 0)
        return communicatorsAt(g, std::min(g.stage, S - 1), channels, job);
    // Position not known: the worst of the first, a middle and the last stage.
    double worst = communicatorsAt(g, 0, channels, job);
    if (S > 2)
        worst = std::max(worst, communicatorsAt(g, 1, channels, job));
    return std::max(worst, communicatorsAt(g, S - 1, channels, job));
}

double runtimeOverhead(const Node& node, const DeviceType& device)
{
    return node.runtimeOverhead >= 0 ? node.runtimeOverhead : device.runtimeOverheadBytes;
}

double gpuOverhead(const Node& node, const DeviceType& device, const Job& job, const RankGroups& groups)
{
    return runtimeOverhead(node, device) + communicatorMemory(groups, node, device, job);
}

void addGpuTerms(GpuMemory& m, const Node& node, const DeviceType& device, const Job& job, const RankGroups& groups)
{
    m.communicators = communicatorMemory(groups, node, device, job);
    m.context = runtimeOverhead(node, device);
}

double gpuPeakMemory(double stagePeakBytes, const Node& node, const DeviceType& device, const Job& job,
                     const RankGroups& groups)
{
    return stagePeakBytes + gpuOverhead(node, device, job, groups);
}

double usableMemory(const Node& node, const DeviceType& device, const Job& job, const RankGroups& groups)
{
    return device.memoryBytes * (1 - job.memoryMargin) - gpuOverhead(node, device, job, groups);
}

bool fitsMemory(double stagePeakBytes, const Node& node, const DeviceType& device, const Job& job,
                const RankGroups& groups)
{
    return stagePeakBytes <= usableMemory(node, device, job, groups);
}

const Node& tightestNode(const Cluster& cluster, const std::vector<int>& nodes, const DeviceType& device)
{
    // Ranked by context + the communicators of a reference rank that has every group (tp, dp, a middle
    // pipeline stage, the embedding group), so a node override of either the context or the bandwidth counts.
    const Job megatron;
    const RankGroups reference = RankGroups::pipelineStage(2, 2, 3, -1, true);
    auto key = [&](const Node& n) { return gpuOverhead(n, device, megatron, reference); };
    const Node* tightest = &cluster.nodes.at(size_t(nodes.at(0)));
    for (int n : nodes)
        if (key(cluster.nodes[size_t(n)]) > key(*tightest))
            tightest = &cluster.nodes[size_t(n)];
    return *tightest;
}

} // namespace hetplan
