#pragma once
// Costs of SPMD programs (HAP), shared by the hap planner and the simulator so both price a program alike.
//
// Collectives run over every GPU of the plan with tensors sharded by per-GPU ratios B_j. The ones whose
// buffers are shards (padded all-gather, reduce-scatter, all-to-all) are bottlenecked by the largest shard,
// so their time is affine in z = max_j B_j (HAP section 3.2); all-reduce works on full tensors and grouped
// broadcast sends every shard once (no padding, one launch per rank), so neither depends on z.
#include "collectives.h"

#include "core/model/job.h"
#include "core/model/plan.h"

#include <string>
#include <vector>

namespace hetplan {

struct DeviceType;
class CostModel;
struct ModelSpec;

// Rebalance: the All-To-All at a ratio-segment boundary (section 5.2); it moves only the rows whose owner
// changes, so its time is affine in the largest ratio change max_j |B_j - B'_j| (pass that as the share),
// with no latency term so that a boundary between equal ratios costs nothing.
enum class SpmdCollective { AllReduce, AllGather, GroupedBroadcast, ReduceScatter, AllToAll, Slice, Rebalance };
std::string toString(SpmdCollective c);                              // "all-reduce", "all-gather", ...
bool parseSpmdCollective(const std::string& s, SpmdCollective& out); // false if unknown

struct AffineCost {
    double fixed = 0, perMaxShare = 0; // seconds, seconds per unit of max share
    double at(double maxShare) const { return fixed + perMaxShare * maxShare; }
};

// Time of collective `c` on a tensor of `fullBytes` (the unsharded size) over `ranks` GPUs whose ring
// bottleneck is `link`. Slice (a local re-shard of a replicated tensor) is free.
AffineCost spmdCollectiveCost(SpmdCollective c, double fullBytes, int ranks, LinkParams link);

// FLOP/s one GPU of type `d` sustains at `precision`: the matrix-product peak of that precision (fp32 runs
// on CUDA cores, or TF32 tensor cores where NVIDIA has them) at the device's saturated efficiency. Only
// for program instructions that belong to no layer of the layer-level model (spmdSecondsPerFlop).
double spmdFlopsRate(const DeviceType& d, const Job& job);
// Seconds one GPU of type `d` needs for `flops` at `precision`.
double spmdComputeSeconds(double flops, const DeviceType& d, const Job& job);

// The layer of the layer-level model an instruction group (SpmdInstruction::group) belongs to: the index
// of the layer of that name in `model`, -1 if none.
int spmdLayerOf(const ModelSpec& model, const std::string& group);

// Seconds per FLOP of one GPU of type `device` on layer `layer` of the cost model's model, in the forward
// or the backward pass, when it runs `samples` samples of that layer: the layer-level cost model's time
// of that pass for a micro-batch of `samples` (CostModel::layer, the one analytic or measured profile),
// times global batch / samples, over `programFlops`, the layer's FLOP of that pass in the tensor program at
// the job's global batch. A data-parallel program (every op of the layer sharded on the batch, `samples`
// samples on this GPU) so costs exactly the layer-level time of one micro-batch of `samples`, whatever
// FLOP count the tensor program gives the layer; other programs are priced at the same seconds per FLOP.
// `samples` below 1 is taken as 1 (a GPU with no samples of the layer only runs its replicated ops).
// Falls back to spmdComputeSeconds's rate when `layer` < 0 or `programFlops` is 0.
double spmdSecondsPerFlop(const CostModel& costs, int layer, const std::string& device, double samples,
                          bool backward, double programFlops);

// Bytes one GPU holds of a set of an SPMD program's tensors: the replicated ones whole, the ones sharded on a
// segment times the GPU's ratio there, the ones sharded on a whole-unit dimension (SpmdPlan::dimensions)
// times its share of the units.
struct SpmdShares {
    double fixed = 0;
    std::vector<double> perSegment;   // [segment] bytes per unit of ratio
    std::vector<double> perDimension; // [dimension] bytes per unit of share; empty when the program has none
    // At `ratios` ([segment] → the GPU's ratio there; dimensions not counted).
    double at(const std::vector<double>& ratios) const;
    // On GPU g of `plan`.
    double onGpu(const SpmdPlan& plan, int g) const;
};

// Per-GPU memory of an SPMD program, affine in the GPU's ratio in each segment: the parameters it holds
// (weights, gradients and optimizer states at Megatron's bytes per parameter, core/cost/memory.h), the
// activations kept for the backward, the allocator reserve and the gradient buffer. Activations are the
// layer-level memory model's (core/cost/memory.h, Korthikanti et al.): each layer's forward outputs and
// inputs in the program are scaled by spmdActivationScale, so a data-parallel program holds exactly
// stagePeakMemory of its samples (the program's tensors do not say which a fused kernel frees or keeps).
// The gradients are reduced in DeepSpeed's buckets (as the simulator times them), so the terms hold the
// same flattened buffer and allocator reserve as the ZeRO simulator's DeepSpeed engine. The simulator
// charges this (plus the communicators and the context, as for every plan); the hap planner bounds it in its
// load balancer.
// The gradient-reduction buffer of a GPU holding `paramValues` parameters: DeepSpeed's flattened bucket
// without ZeRO (memory.h), min(parameters, 5e8) in the reduction's dtype; PyTorch DDP's buckets
// (gradient_as_bucket_view off) copy every gradient, the same bytes below 5e8 parameters.
double spmdGradientBuffer(double paramValues, const Job& job);

struct SpmdMemoryTerms {
    SpmdShares params;      // parameter values' bytes (instruction bytes)
    SpmdShares activations; // activations kept for the backward
    // The allocator reserve (memory.h): the largest layer's activations once more, shared as that layer is.
    SpmdShares reserve;
    // The gradient buffer of all the program's parameters: the most any GPU holds (every GPU's when the
    // parameters are replicated, as in data parallelism), the constant the load balancer's rows use; the
    // methods below charge each GPU spmdGradientBuffer of its own parameters.
    double gradientBufferBytes = 0;
    // Parameter values one GPU holds at `ratios` ([segment] → its ratio there).
    double paramValues(const std::vector<double>& ratios, const Job& job) const;
    // Everything above at `ratios`, without the communicators and the context.
    double peakBytes(const std::vector<double>& ratios, const Job& job) const;
    // The same on GPU g of `plan`: segment ratios, and the dimensions' whole units where instructions have them.
    double paramValuesOnGpu(const SpmdPlan& plan, int g, const Job& job) const;
    double peakBytesOnGpu(const SpmdPlan& plan, int g, const Job& job) const;
};
SpmdMemoryTerms spmdMemoryTerms(const std::vector<SpmdInstruction>& program, int segments, const ModelSpec& model,
                                const Job& job, int dimensions = 0);
// The factor that turns the activation bytes a layer's instructions keep in the tensor program
// (`programBytes`, at the global batch, every forward output and non-parameter input of group `group`) into
// the layer-level model's activations of the global batch for that layer (no recomputation: an SPMD program
// keeps its activations). 1 when the group is no layer of `model` or `programBytes` is 0.
double spmdActivationScale(const ModelSpec& model, const Job& job, const std::string& group, double programBytes);
// Whether an instruction's output is kept for the backward (its bytes count as activation or state).
bool spmdKept(const SpmdInstruction& ins);
// Bytes of model state per byte of parameter values at the job's precision (20 / 2 for fp16).
double spmdStateBytesPerValueByte(const Job& job);

} // namespace hetplan
