#pragma once
// What one GPU holds during training (docs/architecture.md, "The memory model"):
//   peak = model states + activations in flight + runtime overhead.
// * Model states per parameter follow Megatron-LM's own accounting (docs/source/api-guide/dist_optimizer.md,
//   "theoretical number of bytes per parameter", d = data-parallel size):
//       fp16 params, fp16 grads : 20 bytes   (distributed optimizer: 4 + 16/d)
//       bf16 params, fp32 grads : 18 bytes   (6 + 12/d)   -- Megatron accumulates bf16 grads in fp32
//       fp32 params, fp32 grads : 16 bytes   (8 + 8/d)
//   i.e. weights + gradients + what the optimizer holds (fp32 master copy when the weights are 16-bit, an
//   fp32 copy of 16-bit gradients, Adam's two fp32 moments). ZeRO-1 / the distributed optimizer shards the
//   optimizer part, ZeRO-2 also the gradients, ZeRO-3 also the weights.
// * Activations per micro-batch follow Korthikanti et al. 2022 (the LayerSpec byte counts). A stage keeps
//   one micro-batch's activations per micro-batch in flight. With full recomputation it keeps only each
//   layer's input per micro-batch in flight, plus one layer's full activations once (the layer being
//   recomputed during a backward), not once per micro-batch.
// * The runtime overhead (CUDA context, NCCL buffers, allocator fragmentation) is a per-device catalog
//   figure, overridable per node; the reported peak and the feasibility check both include it.
#include "core/model/cluster.h"
#include "core/model/device.h"
#include "core/model/job.h"
#include "core/model/model.h"

#include <span>

namespace hetplan {

struct MemoryBreakdown {
    double weights = 0, gradients = 0, optimizer = 0, activations = 0, buffers = 0;
    double total() const { return weights + gradients + optimizer + activations + buffers; }
};

// Megatron's bytes per parameter for the job's precision, before any sharding. job.optimizerBytesPerParam
// is the mixed-precision optimizer's share (Adam: fp32 master + two moments = 12): fp32 training needs no
// master copy (4 bytes less); fp16 gradients need an fp32 copy in the optimizer (4 bytes more).
struct StateBytesPerParam {
    double weights = 0, gradients = 0, optimizer = 0;
    double total() const { return weights + gradients + optimizer; }
};
StateBytesPerParam stateBytesPerParam(const Job& job);

// Model-state bytes of `params` parameters on one GPU: weights, gradients and optimizer states at the job's
// precision, ZeRO-sharded over `dpShards` data-parallel ranks (zeroStage from the job).
MemoryBreakdown paramStateMemory(double params, int dpShards, const Job& job);

// Model-state bytes of layers [first, end) on one GPU with tensor-parallel degree tp and ZeRO sharding
// over `dpShards` data-parallel ranks (zeroStage from the job).
MemoryBreakdown modelStateMemory(const ModelSpec& model, int first, int end, int tp, int dpShards, const Job& job);

// Activations a stage keeps: `perMicroBatch` for each micro-batch in flight, `oncePerStage` once (the
// layer being recomputed under full recomputation; 0 otherwise).
struct StageActivations {
    double perMicroBatch = 0;
    double oncePerStage = 0;
    double peak(int inFlight) const;
};
// `measuredFull` (optional, one entry per layer of [first, end), bytes for this micro-batch, < 0 = not
// measured) replaces the model's full activations of a layer where a profile measured them.
StageActivations stageActivations(const ModelSpec& model, int first, int end, int tp, double microBatch, const Job& job,
                                  std::span<const double> measuredFull = {});

// Activation bytes with one micro-batch in flight (stageActivations(...).peak(1)).
double activationMemory(const ModelSpec& model, int first, int end, int tp, double microBatch, const Job& job);

// Peak of a pipeline stage without the runtime overhead: model states + `inFlight` micro-batches of
// activations (1F1B: min(S - s, M) for stage s of S; GPipe: M).
double stagePeakMemory(const ModelSpec& model, int first, int end, int tp, int dpShards, double microBatch,
                       int inFlight, const Job& job);

// Runtime overhead of one GPU of `node`: the node's override, else its device type's catalog figure.
double runtimeOverhead(const Node& node, const DeviceType& device);
// What one GPU of `node` really holds at its peak: the stage peak plus the runtime overhead.
double gpuPeakMemory(double stagePeakBytes, const Node& node, const DeviceType& device);
// What one GPU of `node` can give to training: its memory less the job's safety margin and the node's
// runtime overhead.
double usableMemory(const Node& node, const DeviceType& device, const Job& job);
// The one feasibility rule every planner and the simulator use: a stage peak within usableMemory (the same
// as gpuPeakMemory within memory × (1 − margin)).
bool fitsMemory(double stagePeakBytes, const Node& node, const DeviceType& device, const Job& job);
// The node among `nodes` (indices into cluster.nodes, all of device type `device`) with the least usable
// memory: what a planner that sizes stages or batches per device type must fit on, since any of them may
// be picked. `nodes` must not be empty.
const Node& tightestNode(const Cluster& cluster, const std::vector<int>& nodes, const DeviceType& device);
// tightestNode over the nodes of device type `type` in `cluster` (a default node of the type when none).
Node tightestNodeOfType(const Cluster& cluster, const std::string& type, const DeviceType& device);

} // namespace hetplan
