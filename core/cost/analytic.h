#pragma once
// The analytic profile generator: per-layer times from FLOPs and bytes (roofline) scaled by the device's
// batch-efficiency curve, tensor-parallel split plus its all-reduces, backward = factor × forward.
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
};

// The peak FLOP/s a device runs the job's precision at (the catalog's fp16/bf16 tensor peak, a fraction of
// it for fp32). Analytic layer times and utilisation metrics (MFU) share it.
double precisionPeakFlops(const DeviceType& device, Precision precision);

// The link analytic layer times assume for tensor-parallel all-reduces: the device's usual intra-node link.
LinkParams analyticTpLink(const DeviceType& device);

LayerTiming analyticLayerTiming(const LayerSpec& layer, const DeviceType& device, int tp, double microBatch,
                                const Job& job, const AnalyticContext& ctx = {});

// Fills `out` with one table per (device, tp, micro-batch) for every layer.
Profile generateAnalyticProfile(const ModelSpec& model, const std::vector<DeviceType>& devices,
                                const std::vector<int>& tps, const std::vector<int>& microBatches, const Job& job);

} // namespace hetplan
