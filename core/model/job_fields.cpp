#include "job_fields.h"

namespace hetplan {

namespace {

using D = OptionDecl;

std::vector<FieldSpec<Job>> makeJobFields()
{
    std::vector<FieldSpec<Job>> t;
    t.push_back(memberField(&Job::globalBatchSize,
                            D::integer("global_batch_size", "Global batch size", 32, 1, kMaxBatch,
                                       "Samples per training iteration across the whole cluster"))
                    .in("samples")
                    .cli("gbs"));
    t.push_back(memberField(&Job::sequenceLength,
                            D::integer("sequence_length", "Sequence length", 1024, 1, kMaxBatch,
                                       "Tokens per sample; a bundled example model is rebuilt for it"))
                    .in("tokens")
                    .cli("seq")
                    .defaultIs("the model's"));
    t.push_back(enumField(&Job::precision,
                          D::choice("precision", "Precision", "fp16", {"fp16", "bf16", "fp32"},
                                    "Number format of weights, activations and gradients (16-bit formats keep an "
                                    "fp32 master copy of the weights)"),
                          toString, parsePrecision)
                    .cli("precision"));
    t.push_back(memberField(&Job::zeroStage,
                            D::integer("zero_stage", "ZeRO stage", 0, 0, 3,
                                       "What data-parallel ranks shard: 1 optimizer states, 2 also gradients, "
                                       "3 also parameters"))
                    .cli("zero")
                    .shown({"", 1, {"0 — none", "1 — optimizer states", "2 — + gradients", "3 — + parameters"}}));
    t.push_back(enumField(&Job::schedule,
                          D::choice("schedule", "Schedule", "1f1b", {"1f1b", "gpipe"},
                                    "Pipeline schedule: 1F1B keeps at most one micro-batch per later stage in "
                                    "flight, GPipe runs all forwards first"),
                          toString, parseSchedule)
                    .cli("schedule")
                    .shown({"", 1, {"1F1B", "GPipe"}}));
    t.push_back(memberField(&Job::recompute,
                            D::boolean("recompute", "Activation recomputation", false,
                                       "Full activation recomputation: keep each layer's input only and run its "
                                       "forward again in backward"))
                    .cli("recompute"));
    t.push_back(memberField(&Job::selectiveRecompute,
                            D::boolean("selective_recompute", "Selective recomputation", false,
                                       "Megatron's selective recomputation: drop only the attention core's "
                                       "activations (scores, softmax, dropout) and recompute them in backward"))
                    .cli("selective-recompute"));
    t.push_back(memberField(&Job::tf32,
                            D::boolean("tf32", "TF32 for fp32 products", true,
                                       "fp32 jobs on NVIDIA Ampere and later: NVIDIA's PyTorch containers run "
                                       "matrix products on the TF32 tensor cores; plain PyTorch leaves TF32 off "
                                       "and runs them on the CUDA cores"))
                    .cli("no-tf32"));
    t.push_back(memberField(&Job::backwardFactor,
                            D::real("backward_factor", "Backward factor", 2.0, 0.01, 100,
                                    "Analytic backward time as a multiple of forward"))
                    .cli("backward-factor"));
    t.push_back(memberField(&Job::optimizerStateBytesPerParam,
                            D::real("optimizer_state_bytes_per_param", "Optimizer states", 8, 0, 1024,
                                    "The optimizer's own states per parameter (Adam's two fp32 moments: 8); the "
                                    "fp32 master copy of 16-bit weights and the fp32 copy of fp16 gradients are "
                                    "added from the precision"))
                    .in("B/param")
                    .cli("optimizer-state-bytes")
                    .shown({" B/param", 1, {}}));
    t.push_back(memberField(&Job::memoryMargin,
                            D::real("memory_margin", "Memory margin", 0, 0, 0.5,
                                    "Share of every GPU's memory the plan leaves free, on top of what the memory "
                                    "model counts (caching-allocator fragmentation, buffers it does not count)"))
                    .in("fraction")
                    .cli("memory-margin")
                    .shown({" %", 100, {}}));
    t.push_back(enumField(&Job::framework,
                          D::choice("framework", "Framework", "megatron-core",
                                    {"megatron-core", "megatron-legacy", "deepspeed-pipe"},
                                    "Whose pipeline sends the simulator models: Megatron-core sends the whole "
                                    "boundary tensor from every tensor-parallel rank; legacy Megatron "
                                    "(Megatron-DeepSpeed) and DeepSpeed's pipeline engine send 1/tp each and "
                                    "all-gather it at the receiver"),
                          toString, parseFramework)
                    .cli("framework"));
    t.push_back(memberField(&Job::sequenceParallel,
                            D::boolean("sequence_parallel", "Sequence parallelism", false,
                                       "Megatron's sequence parallelism: norms and dropout split along the "
                                       "sequence, pipeline sends of (s/tp, b, h) per rank"))
                    .cli("sequence-parallel"));
    t.push_back(memberField(&Job::moeCapacityFactor,
                            D::real("moe_capacity_factor", "MoE capacity factor", 0, 0, 16,
                                    "MoE layers: each expert takes this many times its balanced share of the "
                                    "tokens, padded (all-to-all bytes and expert FLOP scale by it); 0 = dropless"))
                    .cli("moe-capacity-factor")
                    .omittedAtDefault());
    return t;
}

} // namespace

const std::vector<FieldSpec<Job>>& jobFields()
{
    static const std::vector<FieldSpec<Job>> fields = makeJobFields();
    return fields;
}

} // namespace hetplan
