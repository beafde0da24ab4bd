#pragma once
// Memory per GPU: weights, gradients and optimizer states (sharded per ZeRO stage across the data-parallel
// group) plus activations (Korthikanti et al. 2022; full recomputation keeps only layer inputs).
#include "core/model/device.h"
#include "core/model/job.h"
#include "core/model/model.h"

namespace hetplan {

struct MemoryBreakdown {
    double weights = 0, gradients = 0, optimizer = 0, activations = 0, buffers = 0;
    double total() const { return weights + gradients + optimizer + activations + buffers; }
};

// Model-state bytes of layers [first, end) on one GPU with tensor-parallel degree tp and ZeRO sharding
// over `dpShards` data-parallel ranks (zeroStage from the job).
MemoryBreakdown modelStateMemory(const ModelSpec& model, int first, int end, int tp, int dpShards, const Job& job);

// Activation bytes kept for one micro-batch of `microBatch` samples through layers [first, end).
double activationMemory(const ModelSpec& model, int first, int end, int tp, double microBatch, const Job& job);

// Peak of a pipeline stage: model states + `inFlight` micro-batches of activations
// (1F1B: min(S - s, M) for stage s of S; GPipe: M).
double stagePeakMemory(const ModelSpec& model, int first, int end, int tp, int dpShards, double microBatch,
                       int inFlight, const Job& job);

// Fixed per-GPU overhead (CUDA context, allocator fragmentation, workspace) not counted in the peaks above.
constexpr double kRuntimeReserveBytes = 1.0e9;

// The one feasibility rule every planner and the simulator use: peak + runtime reserve within capacity.
bool fitsMemory(double peakBytes, const DeviceType& device);

} // namespace hetplan
