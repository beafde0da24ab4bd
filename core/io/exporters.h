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
// train_batch_size = train_micro_batch_size_per_gpu × gradient_accumulation_steps × data-parallel size;
// zero_optimization.stage; fp16/bf16; for pipelines of more than one stage DeepSpeed's "pipeline" section
// with only its real keys: "stages" and, when every stage has the same number of layers, "partition":
// "uniform". DeepSpeed's partition methods cannot name arbitrary boundaries, so the exact split goes to a
// namespaced top-level "hetplan" section: "layer_boundaries" = [first of each stage..., layer count] and a
// "note" (the user passes them to their PipelineModule partitioning). Refuses ZeRO ≥ 2 with pipeline stages (as
// DeepSpeed does), stages with different tensor/data-parallel degrees, different pipelines, and ZeRO plans
// whose GPUs have different batches (DeepSpeed needs one micro-batch and accumulation count for all ranks).
QJsonObject deepSpeedConfig(const Plan& plan);

// ---- Megatron-LM
// Argument tokens, e.g. {"--tensor-model-parallel-size", "2", ..., "--pipeline-model-parallel-layout",
// "Et*10|t*6|t*8|t*8L"}. The layout is given only when stages hold different numbers of transformer layers.
// Refuses plans Megatron cannot express: SPMD plans, different tp/dp per stage, pipelines with different
// shapes, non-transformer models, an embedding outside the first or a head outside the last stage,
// ZeRO ≥ 2 and heterogeneous per-GPU ZeRO batches. Adds the model's architecture flags (Llama family:
// --swiglu, --normalization RMSNorm, --position-embedding-type rope, --disable-bias-linear; untied
// embeddings: --untie-embeddings-and-output-weights; grouped-query attention: --group-query-attention
// --num-query-groups N).
std::vector<std::string> megatronArguments(const Plan& plan);
// torchrun launch nodes: the plan's ranks in Megatron's order cut into runs of consecutive ranks on one
// host; launch node i runs on `host` with CUDA_VISIBLE_DEVICES = `gpus` (local GPU indices in rank order).
// Several launch nodes may share a host (e.g. four 2-stage pipelines over two hosts give a/0,2 b/0,2 a/1,3
// b/1,3). Refuses (field "ranks") when the runs differ in length: torchrun runs the same number of
// processes on every launch node.
struct MegatronLaunchNode {
    std::string host;
    std::vector<int> gpus;
};
std::vector<MegatronLaunchNode> megatronLaunchNodes(const Plan& plan);
// A bash launch script: HOSTS and GPUS arrays (one launch node each), CUDA_VISIBLE_DEVICES from NODE_RANK,
// ARGS (one argument per element), DATA_ARGS (mock data, null tokenizer), TRAIN_ARGS, and
// `torchrun ... pretrain_gpt.py "${ARGS[@]}" ...`.
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
// local-GPU order (e.g. random or annealed placements) are refused: use the rank table.
std::string hostfile(const Plan& plan);
// CSV "rank,gpu,host,local_rank" from Plan::ranks().
std::string rankTable(const Plan& plan);

// ---- Chrome Trace Event JSON (chrome://tracing, Perfetto)
// "X" events with ts/dur in µs; pid = node index, tid = GPU × 2 + (0 compute | 1 communication);
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
