#pragma once
// Hand a plan to training frameworks and viewers: DeepSpeed config JSON, Megatron-LM arguments, a
// DeepSpeed-style hostfile, a rank table (CSV) and Chrome Trace Event JSON of the simulated iteration.
// Every exporter refuses (InputError "plan", field, reason) a plan the target cannot express rather than
// writing something that would silently run a different plan. The formats live in core/io/formats/, one
// file each, and register in ExporterRegistry.
#include "core/io/format_registry.h"
#include "core/model/plan.h"
#include "core/sim/simulator.h"

#include <QJsonObject>
#include <functional>
#include <string>
#include <vector>

namespace hetplan {

// ---- DeepSpeed
// The config: train_batch_size = train_micro_batch_size_per_gpu × gradient_accumulation_steps ×
// data-parallel size; zero_optimization.stage; fp16/bf16. DeepSpeed's engine takes the pipeline stage count,
// the tensor-parallel degree and the layer split from PipelineModule's topology and partition, not from the
// config, so for pipelines (pp > 1) or tp > 1 they go to a namespaced "hetplan" section
// (pipeline_stages, tensor_parallel, data_parallel, layer_boundaries = [first layer of each stage..., layer
// count]) with a pointer to the launcher module below. ZeRO plans with per-GPU batches: the "hetplan"
// section points to the rank file; the batch numbers multiply out to the global batch when gas × ranks
// divides it (exact) and are nominal otherwise (train_batch_size_exact false, and a note). Refuses ZeRO ≥ 2
// with pipeline stages (as DeepSpeed does), stages with different tensor/data-parallel degrees, different
// pipelines, ZeRO-2/3 plans whose ranks take different step counts and GPUs of several vendors.
QJsonObject deepSpeedConfig(const Plan& plan);
// A Python module for the training script (format deepspeed-launcher): WORLD_SIZE, PIPELINE_STAGES,
// TENSOR_PARALLEL, DATA_PARALLEL, the batch numbers, LAYER_NAMES (the plan's layers, quoted), PARTS (the
// layer boundaries), RANK_BATCHES (per-GPU ZeRO batches), and functions coordinates(rank) (pipe, data,
// model), topology() (PipeModelDataParallelTopology(num_pp, num_mp, num_dp)), pipeline_module(layers, ...)
// (a PipelineModule whose _partition_layers sets PARTS), rank_batches(rank) and
// correct_sample_counter(engine). Every text from the plan is a Python string literal of ASCII only.
std::string deepSpeedLauncher(const Plan& plan);

// ---- Megatron-LM
// Argument tokens, e.g. {"--tensor-model-parallel-size", "2", ..., "--pipeline-model-parallel-layout",
// "Et*10|t*6|t*8|t*8L"}: parallel degrees and batches, then the model (megatronModelArguments in
// core/model/megatron_model.h: sizes, architecture flags, RoPE base, MoE layer pattern, vocabulary padding),
// precision, distributed optimizer (ZeRO-1), recomputation, --sequence-parallel for MoE under tp, and the
// layout when stages hold different numbers of transformer layers. Refuses (InputError "plan",
// "frameworks.megatron", reasons) what checkMegatron refuses: SPMD plans, different tp/dp per stage,
// pipelines of different shapes, non-transformer models, an embedding outside the first or a head outside
// the last stage, ZeRO ≥ 2, per-GPU ZeRO batches, GPUs of several vendors, and models Megatron cannot build
// parameter for parameter.
std::vector<std::string> megatronArguments(const Plan& plan);
// torchrun launch nodes: the plan's ranks in Megatron's order cut into runs of consecutive ranks on one
// host; launch node i runs on `host` with CUDA_VISIBLE_DEVICES = `gpus` (local GPU indices in rank order)
// and starts gpus.size() processes. Several launch nodes may share a host (e.g. four 2-stage pipelines over
// two hosts give a/0,2 b/0,2 a/1,3 b/1,3), and runs may differ in length (torchrun takes a different
// --nproc_per_node on each node and numbers ranks node by node).
struct MegatronLaunchNode {
    std::string host;
    std::vector<int> gpus;
};
std::vector<MegatronLaunchNode> megatronLaunchNodes(const Plan& plan);
// A bash launch script: a header stating the parameters Megatron builds next to the plan's and every
// difference (vocabulary padding, BERT's norm placement and binary head, GPipe run as 1F1B, MoE routing
// defaults, the Megatron-core version the layout needs); HOSTS, GPUS and NPROC arrays (one launch node
// each); CUDA_VISIBLE_DEVICES from NODE_RANK; CUDA_DEVICE_MAX_CONNECTIONS=1; with a layout, a check that
// $MEGATRON_DIR's Megatron-core is 0.13 or later; ARGS (one argument per element); DATA_ARGS (GPT: mock data
// and a null tokenizer giving the model's vocabulary; BERT: DATA_PATH and VOCAB_FILE from the environment);
// TRAIN_ARGS; and `torchrun ... <pretrain_gpt.py | pretrain_bert.py> "${ARGS[@]}" ...`.
std::string megatronLaunchScript(const Plan& plan);

// Transformer layers per stage → Megatron's layout string: E (embedding) opens the first stage, L (loss/head)
// closes the last, stages separated by '|', "t*N" for N transformer layers: {10,6,8,8} → "Et*10|t*6|t*8|t*8L".
std::string formatMegatronLayout(const std::vector<int>& transformerLayersPerStage);
// Parses Megatron's layout syntax back to transformer layers per stage: '|' separates stages, E/L/t/m are
// embedding/loss/transformer/MTP, "x*N" repeats a character, "(...)*N" repeats a group, ',' is cosmetic.
// Requires exactly one E at the very start and one L at the very end. Throws InputError on bad syntax.
std::vector<int> parseMegatronLayout(const std::string& layout);

// ---- Launch files
// "host slots=N" per node the plan uses, N = GPUs used on that node, in rank order. A launcher numbers
// ranks host by host and gives local rank k to GPU k, so plans whose ranks are not contiguous per host in
// local-GPU order (e.g. random or annealed placements) are refused: use the rank table. Plans whose GPUs
// span two vendors are refused too (one launcher job cannot join CUDA and ROCm ranks).
std::string hostfile(const Plan& plan);
// CSV "rank,gpu,host,local_rank" from Plan::ranks().
std::string rankTable(const Plan& plan);

// ---- Chrome Trace Event JSON (chrome://tracing, Perfetto)
// "X" events with ts/dur in µs, ts counted from 1 µs (the simulated iteration's time 0 is ts 1: Chrome's
// trace engine ignores a window that starts at 0); pid = node index, tid = GPU × 2 + (0 compute | 1 communication);
// events that would overlap on one track (e.g. a GPU sending activations and gradients at once) go to
// extra tids (2·G·k + GPU × 2 + track for lane k ≥ 1, G = GPUs in the cluster); "M" events name every
// process (node) and thread (GPU track).
QJsonObject chromeTrace(const Plan& plan, const SimResult& result);

// ---- The registry: what the CLI's export command and the GUI's export menu offer
struct ExportFormat : FileFormat {
    std::function<std::string(const Plan& plan)> write = {}; // the file's text; refuses like the above
    // The file starts or configures a training run (launch script, framework config, hostfile, rank
    // table): a plan that would not fit is refused before it is written (launchRefusal), unless forced.
    bool launches = false;
};

// Why a plan should not be launched, or "" when it may be: simulated with its own inputs, some GPU's peak
// memory exceeds its capacity (named, with both figures), or the plan is marked infeasible.
std::string launchRefusal(const Plan& plan);

class ExporterRegistry : public FormatRegistry<ExportFormat> {
public:
    static ExporterRegistry& instance(); // with the built-in formats registered (formats/builtin.cpp)
};

// The plan in the registered format named `format` (an unknown name is InputError "--format").
// chrome-trace simulates the plan with its own inputs (builtin catalog).
std::string exportPlan(const Plan& plan, const std::string& format);

} // namespace hetplan
