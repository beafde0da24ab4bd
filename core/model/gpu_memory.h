#pragma once
// What one GPU holds at its peak, term by term (bytes): the memory model's answer (core/cost/memory.h), kept
// with a plan's estimate and summary so the plan says what its peaks are made of.

namespace hetplan {

struct GpuMemory {
    double weights = 0, gradients = 0, optimizer = 0;
    double activations = 0;      // micro-batches in flight (+ the recomputation buffer)
    double gradientBuffer = 0;   // the framework's gradient-reduction buffer beyond the gradients
    double allocatorReserve = 0; // backward transients the caching allocator keeps reserved
    double communicators = 0;    // NCCL buffers
    double context = 0;          // CUDA context + library workspaces (the device's or node's runtime_overhead)
    bool operator==(const GpuMemory&) const = default;
    // The stage's part: everything but communicators and context (what CostModel::stagePeak returns).
    double stagePart() const { return weights + gradients + optimizer + activations + gradientBuffer + allocatorReserve; }
    double total() const { return stagePart() + communicators + context; }
};

} // namespace hetplan
