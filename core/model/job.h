#pragma once
// One training job: batch, precision, memory-saving settings, schedule.
#include <string>

namespace hetplan {

enum class Precision { FP16, BF16, FP32 };
enum class Schedule { OneFOneB, GPipe };
// The training framework whose pipeline point-to-point traffic the simulator models: what each sends per
// tensor-parallel rank is in core/cost/pipeline_p2p.h, why in docs/architecture.md ("Pipeline boundary sends").
enum class Framework { MegatronCore, MegatronLegacy, DeepSpeedPipe };

// Largest global batch / sequence length accepted (keeps derived counts far from integer overflow).
constexpr int kMaxBatch = 10'000'000;

struct Job {
    int globalBatchSize = 32;
    int sequenceLength = 1024;
    Precision precision = Precision::FP16;
    // What the optimizer itself keeps per parameter, in bytes (job JSON `optimizer_state_bytes_per_param`):
    // Adam's two fp32 moments = 8 (SGD with momentum: 4). Not in it: the fp32 master copy of 16-bit
    // weights (4) and the fp32 copy of fp16 gradients (4), which the memory model adds from the precision
    // (core/cost/memory.h), so one number means the same thing for every precision.
    double optimizerStateBytesPerParam = 8;
    // The older field `optimizer_bytes_per_param` as a file gave it (< 0: not given). It meant the
    // mixed-precision optimizer's share, fp32 master copy included (Adam: 12), and fp32 jobs had the master
    // copy subtracted from it: it is read as optimizerStateBytesPerParam = max(0, value - 4), the same numbers
    // as before for every precision when value >= 4, and jobWarnings() says so. Writers write
    // optimizer_state_bytes_per_param only, so a job read back from a written file has -1 here.
    double legacyOptimizerBytesPerParam = -1;
    int zeroStage = 0; // 0..3
    Schedule schedule = Schedule::OneFOneB;
    bool recompute = false;      // full activation recomputation
    // Megatron's selective recomputation (--recompute-granularity selective): only the attention core's
    // activations (scores, softmax, dropout) are dropped and recomputed in backward. Excludes `recompute`.
    bool selectiveRecompute = false;
    // fp32 matrix products on the TF32 tensor cores (NVIDIA Ampere and later). NVIDIA's PyTorch containers
    // turn TF32 on (TORCH_ALLOW_TF32_CUBLAS_OVERRIDE); plain PyTorch since 1.12 leaves
    // torch.backends.cuda.matmul.allow_tf32 off, and then fp32 products run on the CUDA cores. Only fp32 jobs.
    bool tf32 = true;
    double backwardFactor = 2.0; // analytic backward time = factor × forward
    // Share of every GPU's memory kept free, on top of what the memory model counts (caching-allocator
    // fragmentation, buffers it does not count): 0 .. 0.5. Planners and the simulator judge "fits" against
    // memory × (1 − margin) − communicator buffers − context (core/cost/memory.h).
    double memoryMargin = 0;
    // Default: Megatron-core without sequence parallelism, what the megatron-launch exporter runs for
    // pipeline plans (and the simulator's behaviour before the setting existed).
    Framework framework = Framework::MegatronCore;
    // Megatron's --sequence-parallel (megatron-core or megatron-legacy; DeepSpeed's pipeline engine has none).
    // With tensor parallelism 1 it changes nothing (Megatron turns it off with a warning).
    bool sequenceParallel = false;
    // MoE: Megatron's --moe-expert-capacity-factor with its input padded to capacity (the exporter writes
    // --moe-pad-expert-input-to-capacity): every expert takes factor × its balanced share of the tokens, so
    // the all-to-all bytes and the experts' FLOP scale by it. 0 = dropless (Megatron's default): routing is
    // taken as balanced, each expert gets its share.
    double moeCapacityFactor = 0;
    bool operator==(const Job&) const = default;

    // Whether Megatron's sequence parallelism runs for a tensor-parallel degree `tp`: asked for, or forced
    // because Megatron-core requires it for MoE layers under tensor parallelism (the megatron-launch exporter
    // then adds --sequence-parallel); never with tp 1 (Megatron turns it off) nor on DeepSpeed's pipe engine.
    bool runsSequenceParallel(int tp, bool moeModel) const
    {
        if (tp <= 1 || framework == Framework::DeepSpeedPipe)
            return false;
        return sequenceParallel || (moeModel && framework == Framework::MegatronCore);
    }
    // The optimizer's fp32 bytes per parameter the update streams besides weights and gradients: the master
    // copy and the states (the older optimizer_bytes_per_param's meaning; Adam: 12).
    double updateOptimizerBytes() const { return optimizerStateBytesPerParam + 4; }
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
std::string toString(Framework f);
bool parsePrecision(const std::string& s, Precision& out);
bool parseSchedule(const std::string& s, Schedule& out);
bool parseFramework(const std::string& s, Framework& out);

} // namespace hetplan
