#pragma once
// What one GPU holds during training, counted as the process reserves it (what nvidia-smi and
// torch.cuda.max_memory_reserved show). Each term's derivation, per framework and ZeRO stage, is in
// docs/architecture.md, "The memory model":
//   peak = weights + gradients + optimizer            (model states; ZeRO shards them)
//        + activations in flight                      (Korthikanti et al. 2022; recomputation keeps inputs)
//        + gradient buffer                            (the framework's gradient-reduction buffer)
//        + allocator reserve                          (the largest layer's backward transients)
//        + communicator buffers                       (NCCL, per communicator the rank belongs to)
//        + context                                    (runtime_overhead: the catalog's or the node's)
#include "core/model/cluster.h"
#include "core/model/device.h"
#include "core/model/gpu_memory.h"
#include "core/model/job.h"
#include "core/model/model.h"

#include <span>
#include <vector>

namespace hetplan {

struct MemoryBreakdown {
    double weights = 0, gradients = 0, optimizer = 0, activations = 0, buffers = 0;
    double total() const { return weights + gradients + optimizer + activations + buffers; }
};

// GpuMemory (core/model/gpu_memory.h): what one GPU holds, term by term; stageMemory fills the first six terms,
// addGpuTerms the communicators and the context.

// Framework defaults the memory terms are sized from (sources in docs/architecture.md, "The memory model").
namespace memdefaults {
// DeepSpeed: reduce_bucket_size / allgather_bucket_size default and the engine's MEMORY_OPT_ALLREDUCE_SIZE
// (elements).
constexpr double kDeepSpeedBucketElements = 5e8;
// NCCL (src/init.cc, src/include/device.h): per channel and connection.
constexpr double kNcclSimpleBytes = 4.0 * 1024 * 1024;  // DEFAULT_BUFFSIZE = 1 << 22
constexpr double kNcclLlBytes = 8.0 * 512 * 8 * 16;     // LL lines/thread x LL threads x steps x 16 B
constexpr double kNcclLl128Bytes = 120.0 * 640 * 8 * 8; // LL128 elems/thread x threads x steps x 8 B
constexpr double kNcclRingConnectionBytes = kNcclSimpleBytes + kNcclLlBytes + kNcclLl128Bytes;
constexpr double kNcclP2pBytesPerChannel = 8.0 * 512 * 1024; // NCCL_STEPS x P2P NVLink chunk (512 KiB)
constexpr int kNcclP2pChannelsPerPeer = 2;
constexpr double kNcclChannelBandwidth = 20e9; // NCCL's per-channel NVLink bandwidth (sm80)
constexpr int kNcclMinChannels = 2, kNcclMaxChannels = 32;
} // namespace memdefaults

// Megatron's bytes per parameter for the job's precision, before any sharding: weights, gradients, and the
// optimizer's part = the fp32 master copy when the weights are 16-bit + the fp32 copy of fp16 gradients +
// the optimizer's own states (job.optimizerStateBytesPerParam, Adam: 8).
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

// One layer's activations of one micro-batch on one tensor-parallel rank: `full` = everything its backward
// needs (the recompute buffer and allocator reserve are sized from it), `kept` = what stays in memory between
// its forward and its backward. Sequence parallelism (Job::runsSequenceParallel) splits the part every tp
// rank used to hold in full (norm inputs, dropout masks) tp ways; full recomputation keeps the layer's input
// only; selective recomputation drops the attention core (LayerSpec::attentionCoreBytes). `measuredFull` (>= 0)
// replaces the model's full size where a profile measured it.
struct LayerActivation {
    double full = 0, kept = 0;
};
LayerActivation layerActivation(const LayerSpec& layer, int tp, double microBatch, const Job& job,
                                bool sequenceParallel, double measuredFull = -1);

// Activations a stage keeps: `perMicroBatch` for each micro-batch in flight, `oncePerStage` once (the
// layer being recomputed under full recomputation; 0 otherwise). `largestLayer`: the largest layer's full
// activations of one micro-batch (what the allocator reserve is sized from).
struct StageActivations {
    double perMicroBatch = 0;
    double oncePerStage = 0;
    double largestLayer = 0;
    double peak(int inFlight) const;
};
// `measuredFull` (optional, one entry per layer of [first, end), bytes for this micro-batch, < 0 = not
// measured) replaces the model's full activations of a layer where a profile measured them.
StageActivations stageActivations(const ModelSpec& model, int first, int end, int tp, double microBatch, const Job& job,
                                  std::span<const double> measuredFull = {});

// The same with sequence parallelism decided by the caller (job.runsSequenceParallel(tp, model has MoE
// layers)): CostModel decides it once, where asking the model walks every layer on every call.
StageActivations stageActivations(const ModelSpec& model, int first, int end, int tp, double microBatch, const Job& job,
                                  bool sequenceParallel, std::span<const double> measuredFull);
// stageActivations of every layer of [first, end) on its own, in one pass (calling stageActivations per
// layer re-checks the whole model for MoE layers each time: quadratic in the layers).
std::vector<StageActivations> layerStageActivations(const ModelSpec& model, int first, int end, int tp,
                                                    double microBatch, const Job& job);

// Activation bytes with one micro-batch in flight (stageActivations(...).peak(1)).
double activationMemory(const ModelSpec& model, int first, int end, int tp, double microBatch, const Job& job);

// The framework's gradient-reduction buffer beyond the gradients of a GPU holding `params` parameters
// (job.framework: Megatron 0; deepspeed-pipe, and ZeRO plans, which set deepspeed-pipe: the bucket).
double gradientBufferMemory(double params, const Job& job);

// The stage's part of one GPU's memory: model states, `inFlight` micro-batches of activations (1F1B:
// min(S - s, M) for stage s of S; GPipe: M), the gradient buffer and the allocator reserve.
GpuMemory stageMemory(const ModelSpec& model, int first, int end, int tp, int dpShards, double microBatch, int inFlight,
                      const Job& job, std::span<const double> measuredFull = {});
GpuMemory stageMemory(const ModelSpec& model, int first, int end, int tp, int dpShards, double microBatch, int inFlight,
                      const Job& job, bool sequenceParallel, std::span<const double> measuredFull);
// The stage part of one GPU holding `params` parameters (ZeRO-sharded over `dpShards`) and activations `a`
// with `inFlight` micro-batches: what stageMemory and StagePeakScan both return, term by term.
GpuMemory stageParts(double params, int dpShards, const StageActivations& a, int inFlight, double microBatch,
                     const Job& job);
// Expert parallelism over `ep` ranks: `m` counted `expertParams` expert parameters (per tp rank) in full on
// every rank; each rank keeps 1/ep of them, and with a distributed optimizer their states shard over the
// expert-data-parallel ranks (dpShards / ep) rather than all dpShards, which leaves the same states per rank.
GpuMemory withExpertParallel(GpuMemory m, double expertParams, int ep, int dpShards, const Job& job);
// stageMemory(...).stagePart().
double stagePeakMemory(const ModelSpec& model, int first, int end, int tp, int dpShards, double microBatch,
                       int inFlight, const Job& job);

// The communicators one rank belongs to. tp: its tensor-parallel group; dp: the copies of its layers that
// reduce gradients together; stages / stage: its pipeline (stage < 0: not known, the worst position is
// counted); tied: the model ties its embeddings (first and last stage share a group when stages > 1).
struct RankGroups {
    int tp = 1, dp = 1, stages = 1, stage = 0;
    bool tied = false;
    static RankGroups pipelineStage(int tp, int dp, int stages, int stage, bool tied)
    {
        return RankGroups{tp, dp, stages, stage, tied};
    }
    // A ZeRO or SPMD plan: one data-parallel group of `ranks`.
    static RankGroups dataParallel(int ranks) { return RankGroups{1, ranks, 1, 0, false}; }
};
// NCCL channels of a communicator on `node`: its GPU-to-GPU bandwidth over NCCL's per-channel bandwidth,
// between NCCL's minimum (2) and maximum (32).
int ncclChannels(const Node& node, const DeviceType& device);
// NCCL buffers one rank of `node` holds for its communicators (job.framework says which it opens).
double communicatorMemory(const RankGroups& groups, const Node& node, const DeviceType& device, const Job& job);

// The context of one GPU of `node`: the node's runtime_overhead override, else its device type's catalog
// figure (CUDA context + library workspaces).
double runtimeOverhead(const Node& node, const DeviceType& device);
// What one GPU of `node` holds beyond its stage part: context + communicator buffers.
double gpuOverhead(const Node& node, const DeviceType& device, const Job& job, const RankGroups& groups);
// Fills the per-GPU terms (communicators, context) of `m`.
void addGpuTerms(GpuMemory& m, const Node& node, const DeviceType& device, const Job& job, const RankGroups& groups);
// What one GPU of `node` really holds at its peak: the stage part plus gpuOverhead.
double gpuPeakMemory(double stagePeakBytes, const Node& node, const DeviceType& device, const Job& job,
                     const RankGroups& groups);
// What one GPU of `node` can give to its stage: its memory less the job's safety margin and gpuOverhead.
double usableMemory(const Node& node, const DeviceType& device, const Job& job, const RankGroups& groups);
// The one feasibility rule every planner and the simulator use: a stage part within usableMemory (the same
// as gpuPeakMemory within memory x (1 - margin)).
bool fitsMemory(double stagePeakBytes, const Node& node, const DeviceType& device, const Job& job,
                const RankGroups& groups);
// The node among `nodes` (indices into cluster.nodes, all of device type `device`) with the least usable
// memory (context + the communicators of a rank in every group): what a planner that sizes stages or batches
// per device type must fit on, since any of them may be picked. `nodes` must not be empty.
const Node& tightestNode(const Cluster& cluster, const std::vector<int>& nodes, const DeviceType& device);

} // namespace hetplan
