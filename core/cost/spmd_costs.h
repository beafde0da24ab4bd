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
// on CUDA cores, or TF32 tensor cores where NVIDIA has them) at the device's saturated efficiency.
double spmdFlopsRate(const DeviceType& d, Precision precision);
// Seconds one GPU of type `d` needs for `flops` at `precision`.
double spmdComputeSeconds(double flops, const DeviceType& d, Precision precision);

// Per-GPU memory of an SPMD program, affine in the GPU's ratio in each segment: the parameters it holds
// (weights, gradients and optimizer states at Megatron's bytes per parameter, core/cost/memory.h) and every
// forward output and input kept for the backward, whole when replicated, times the ratio when sharded. The
// simulator charges this (plus the runtime overhead); the hap planner bounds it in its load balancer.
struct SpmdMemoryTerms {
    double fixedParamBytes = 0, fixedActivationBytes = 0; // replicated tensors (instruction bytes)
    std::vector<double> paramBytes, activationBytes;      // [segment] sharded tensors, bytes per unit of ratio
    // Parameter values one GPU holds at `ratios` ([segment] → its ratio there).
    double paramValues(const std::vector<double>& ratios, const Job& job) const;
    // States + activations at `ratios`, without the runtime overhead.
    double peakBytes(const std::vector<double>& ratios, const Job& job) const;
};
SpmdMemoryTerms spmdMemoryTerms(const std::vector<SpmdInstruction>& program, int segments);
// Bytes of model state per byte of parameter values at the job's precision (20 / 2 for fp16).
double spmdStateBytesPerValueByte(const Job& job);

} // namespace hetplan
