#pragma once
// One training job: batch, precision, memory-saving settings, schedule.
#include <string>

namespace hetplan {

enum class Precision { FP16, BF16, FP32 };
enum class Schedule { OneFOneB, GPipe };

// Largest global batch / sequence length accepted (keeps derived counts far from integer overflow).
constexpr int kMaxBatch = 10'000'000;

struct Job {
    int globalBatchSize = 32;
    int sequenceLength = 1024;
    Precision precision = Precision::FP16;
    // Optimizer state per parameter in bytes: Adam in mixed precision keeps an fp32 master copy plus two
    // fp32 moments = 12 bytes.
    double optimizerBytesPerParam = 12;
    int zeroStage = 0; // 0..3
    Schedule schedule = Schedule::OneFOneB;
    bool recompute = false;      // full activation recomputation
    double backwardFactor = 2.0; // analytic backward time = factor × forward
    // Share of every GPU's memory kept free, on top of the runtime overhead (allocator fragmentation, a
    // framework's buffers the memory model does not count): 0 .. 0.5. Planners and the simulator judge
    // "fits" against memory × (1 − margin) − runtime overhead.
    double memoryMargin = 0;
    bool operator==(const Job&) const = default;

    int bytesPerValue() const { return precision == Precision::FP32 ? 4 : 2; }
    // Bytes per gradient value in the data-parallel reduction: with bf16, Megatron accumulates and reduces
    // gradients in fp32 (it turns on accumulate_allreduce_grads_in_fp32 for --bf16); fp16 reduces in fp16.
    int gradReduceBytes() const { return precision == Precision::FP16 ? 2 : 4; }
    // Model activation sizes (LayerSpec byte counts) are stated for 16-bit values; fp32 doubles them.
    double activationScale() const { return bytesPerValue() / 2.0; }
    void validate(const std::string& file) const;
};

std::string toString(Precision p);
std::string toString(Schedule s);
bool parsePrecision(const std::string& s, Precision& out);
bool parseSchedule(const std::string& s, Schedule& out);

} // namespace hetplan
