#include "memory.h"

#include <algorithm>

namespace hetplan {

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
    const double shards = std::max(1, dpShards);
    MemoryBreakdown m;
    m.weights = params * job.bytesPerValue();
    m.gradients = params * job.bytesPerValue();
    m.optimizer = params * job.optimizerBytesPerParam;
    // ZeRO: stage 1 shards optimizer states, 2 also gradients, 3 also the weights.
    if (job.zeroStage >= 1)
        m.optimizer /= shards;
    if (job.zeroStage >= 2)
        m.gradients /= shards;
    if (job.zeroStage >= 3)
        m.weights /= shards;
    return m;
}

double activationMemory(const ModelSpec& model, int first, int end, int tp, double microBatch, const Job& job)
{
    const int t = std::max(1, tp);
    double kept = 0, largestLayer = 0;
    for (int l = first; l < end; ++l) {
        const LayerSpec& s = model.layers[l];
        const double full =
            (s.tensorParallel ? s.activationBytesSharded / t : s.activationBytesSharded) + s.activationBytesReplicated;
        largestLayer = std::max(largestLayer, full);
        kept += job.recompute ? s.inputBytes : full;
    }
    // Recomputation re-materialises one layer at a time during backward.
    if (job.recompute)
        kept += largestLayer;
    return kept * microBatch * job.activationScale();
}

double stagePeakMemory(const ModelSpec& model, int first, int end, int tp, int dpShards, double microBatch,
                       int inFlight, const Job& job)
{
    return modelStateMemory(model, first, end, tp, dpShards, job).total() +
           std::max(1, inFlight) * activationMemory(model, first, end, tp, microBatch, job);
}

bool fitsMemory(double peakBytes, const DeviceType& device)
{
    return peakBytes + kRuntimeReserveBytes <= device.memoryBytes;
}

} // namespace hetplan
