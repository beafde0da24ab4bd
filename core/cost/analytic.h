#pragma once
// The analytic profile generator: per-layer times from a physical device model (docs/calibration.md).
//
// A layer's forward pass is the sum of kernels that run one after another on the GPU:
//  * each matrix product (LayerSpec::matmuls) runs at the slower of its compute time,
//      2·m·n·k / (peak(precision) · eff(m, n, k)),  eff = efficiency_max · f(m)·f(n)·f(k),
//      f(x) = x / (x + gemm_half_dim)
//    (small matrices leave tensor cores and SMs idle; the fraction saturates as every dimension grows),
//    and its memory time, bytes of A, B and C / (memory_bandwidth · memory_efficiency);
//  * element-wise work (norms, activations, dropout, residuals, softmax over the attention scores) is bound by
//    memory bandwidth: memoryBytes / (memory_bandwidth · memory_efficiency); a fused attention kernel
//    (FlashAttention) removes the score passes in 16-bit jobs only;
//  * every kernel costs launch_overhead;
//  * tensor parallelism divides the split dimension of each product (columns, inner dimension or heads) and
//    the sharded element-wise bytes, and adds the layer's all-reduces over the device's intra-node link.
// Backward: the input- and weight-gradient products of every forward product (the same FLOPs each, with the
// dimensions permuted; `Job::backwardFactor` is their FLOP ratio to the forward, 2), twice the element-wise
// traffic (read the saved input and the output gradient, write the input gradient) and twice the launches.
// A layer without matmuls (custom models, the vision examples) runs forwardFlops at the device's batch
// efficiency curve, limited by streaming its weights and activations (the older roofline).
#include "collectives.h"
#include "core/model/device.h"
#include "core/model/job.h"
#include "core/model/model.h"
#include "core/model/profile.h"

#include <vector>

namespace hetplan {

struct AnalyticContext {
    double tpBandwidth = 0; // bytes/s between the tp ranks (0 = device's intra-node default)
    double tpLatency = 5e-6;
    // The model has MoE layers: Megatron-core then runs sequence parallelism under tp whatever the job says
    // (Job::runsSequenceParallel).
    bool moeModel = false;
};

// The peak FLOP/s a device runs the job's matrix products at (matmulPeak at its precision and TF32 setting).
// Analytic layer times and utilisation metrics (MFU) share it.
double precisionPeakFlops(const DeviceType& device, const Job& job);

// The link analytic layer times assume for tensor-parallel all-reduces: a ring over `tp` GPUs of a server
// with the device's usual intra-node link. On NVLink that is the link itself; on PCIe the bottleneck hop
// of pcieHopBandwidths() with the catalog defaults (4 GPUs per switch, the device's pcie_p2p).
LinkParams analyticTpLink(const DeviceType& device, int tp);

// Seconds of one pass's tensor-parallel all-reduces of `layer` (forward or backward: the same calls) over
// `link`: Megatron issues kTpAllReducesPerPass separate all-reduces (attention output, MLP output; their
// input-gradient twins in backward), each of half the layer's tpAllReduceBytes, and each one pays the
// ring's bandwidth and latency terms plus a fixed per-call cost (collectiveCallSeconds(), the framework's
// host-side dispatch of the collective and NCCL's own launch latency). 0 when tp <= 1. Under sequence
// parallelism each all-reduce becomes a reduce-scatter and an all-gather of the same tensor: the ring moves
// the same bytes with the same steps, but there are two calls to pay for.
constexpr int kTpAllReducesPerPass = 2;
double tpAllReduceSeconds(const LayerSpec& layer, const DeviceType& device, int tp, double microBatch,
                          const Job& job, const LinkParams& link, bool sequenceParallel = false);
// The forward time of the layer's attention core (the per-head score products and the passes over the
// scores): what selective recomputation runs again in backward.
double attentionCoreSeconds(const LayerSpec& layer, const DeviceType& device, int tp, double microBatch,
                            const Job& job);
// The fixed cost of one collective call on `device`: the framework dispatches it from Python like a kernel
// (the device's launch_overhead) and NCCL's kernel needs its base latency before the first byte moves.
double collectiveCallSeconds(const DeviceType& device);

// Peak FLOP/s of matrix products at `precision`: the 16-bit tensor rate; for fp32 the TF32 rate when `tf32`
// (Job::tf32), else the CUDA-core rate.
double matmulPeak(const DeviceType& device, Precision precision, bool tf32);
// Fraction of that peak one m×n×k product reaches.
double matmulEfficiency(const DeviceType& device, double m, double n, double k);
// Seconds of `batch` (m × k)·(k × n) products at `precision` (2- or 4-byte values), fp32 on TF32 if `tf32`.
double matmulTime(const DeviceType& device, Precision precision, double m, double n, double k, double batch,
                  bool tf32 = true);
// Seconds to stream `bytes` through device memory.
double memoryTime(const DeviceType& device, double bytes);

LayerTiming analyticLayerTiming(const LayerSpec& layer, const DeviceType& device, int tp, double microBatch,
                                const Job& job, const AnalyticContext& ctx = {});

// Fills `out` with one table per (device, tp, micro-batch) for every layer.
Profile generateAnalyticProfile(const ModelSpec& model, const std::vector<DeviceType>& devices,
                                const std::vector<int>& tps, const std::vector<int>& microBatches, const Job& job,
                                const AnalyticContext& ctx = {});

} // namespace hetplan
