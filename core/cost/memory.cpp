#include "memory.h"

#include <algorithm>

namespace hetplan {

StateBytesPerParam stateBytesPerParam(const Job& job)
{
    // Megatron-LM, docs/source/api-guide/dist_optimizer.md (the distributed optimizer's table of
    // theoretical bytes per parameter): fp16 params + fp16 grads 20, bf16 params + fp32 grads 18,
    // fp32 params + fp32 grads 16. Megatron keeps bf16 gradients in fp32 (accumulate-allreduce-grads-in-fp32
    // is forced on for bf16) and fp16 gradients in fp16.
    StateBytesPerParam b;
    switch (job.precision) {
    case Precision::FP16:
        b.weights = 2;
        b.gradients = 2;
        b.optimizer = job.optimizerBytesPerParam + 4; // + the fp32 copy of the fp16 gradients
        break;
    case Precision::BF16:
        b.weights = 2;
        b.gradients = 4;
        b.optimizer = job.optimizerBytesPerParam;
        break;
    case Precision::FP32:
        b.weights = 4;
        b.gradients = 4;
        b.optimizer = std::max(0.0, job.optimizerBytesPerParam - 4); // the weights are the master copy
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
    // Tied embeddings (sim9, issue 9 item 4): a stage holding the head but not the embedding keeps its own
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

StageActivations stageActivations(const ModelSpec& model, int first, int end, int tp, double microBatch, const Job& job,
                                  std::span<const double> measuredFull)
{
    const int t = std::max(1, tp);
    const double scale = microBatch * job.activationScale();
    StageActivations a;
    double largestLayer = 0;
    for (int l = first; l < end; ++l) {
        const LayerSpec& s = model.layers[l];
        const size_t i = size_t(l - first);
        const bool measured = i < measuredFull.size() && measuredFull[i] >= 0;
        const double full =
            measured ? measuredFull[i]
                     : scale * ((s.tensorParallel ? s.activationBytesSharded / t : s.activationBytesSharded) +
                                s.activationBytesReplicated);
        largestLayer = std::max(largestLayer, full);
        a.perMicroBatch += job.recompute ? scale * s.inputBytes : full;
    }
    // Recomputation re-materialises one layer at a time during a backward; micro-batches do not run their
    // backwards concurrently, so that buffer exists once per stage.
    if (job.recompute)
        a.oncePerStage = largestLayer;
    return a;
}

double activationMemory(const ModelSpec& model, int first, int end, int tp, double microBatch, const Job& job)
{
    return stageActivations(model, first, end, tp, microBatch, job).peak(1);
}

double stagePeakMemory(const ModelSpec& model, int first, int end, int tp, int dpShards, double microBatch,
                       int inFlight, const Job& job)
{
    return modelStateMemory(model, first, end, tp, dpShards, job).total() +
           stageActivations(model, first, end, tp, microBatch, job).peak(inFlight);
}

double runtimeOverhead(const Node& node, const DeviceType& device)
{
    return node.runtimeOverhead >= 0 ? node.runtimeOverhead : device.runtimeOverheadBytes;
}

double gpuPeakMemory(double stagePeakBytes, const Node& node, const DeviceType& device)
{
    return stagePeakBytes + runtimeOverhead(node, device);
}

double usableMemory(const Node& node, const DeviceType& device, const Job& job)
{
    return device.memoryBytes * (1 - job.memoryMargin) - runtimeOverhead(node, device);
}

bool fitsMemory(double stagePeakBytes, const Node& node, const DeviceType& device, const Job& job)
{
    return stagePeakBytes <= usableMemory(node, device, job);
}

const Node& tightestNode(const Cluster& cluster, const std::vector<int>& nodes, const DeviceType& device)
{
    const Node* tightest = &cluster.nodes.at(size_t(nodes.at(0)));
    for (int n : nodes)
        if (runtimeOverhead(cluster.nodes[size_t(n)], device) > runtimeOverhead(*tightest, device))
            tightest = &cluster.nodes[size_t(n)];
    return *tightest;
}

Node tightestNodeOfType(const Cluster& cluster, const std::string& type, const DeviceType& device)
{
    std::vector<int> nodes;
    for (size_t n = 0; n < cluster.nodes.size(); ++n)
        if (cluster.nodes[n].deviceType == type)
            nodes.push_back(int(n));
    if (nodes.empty()) {
        Node n;
        n.deviceType = type;
        return n;
    }
    return tightestNode(cluster, nodes, device);
}

} // namespace hetplan
