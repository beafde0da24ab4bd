// Megatron-LM arguments and its torchrun launch script (see exporters.h).
#include "core/io/exporters.h"

#include "core/base/fields.h"
#include "core/base/quote.h"
#include "core/io/formats/export_util.h"
#include "core/model/megatron_model.h"

#include <algorithm>

namespace hetplan {

using namespace exportutil;

namespace {

bool isTransformerBlock(LayerKind k) { return k == LayerKind::Transformer || k == LayerKind::MoE; }

// One shell word. Single quotes keep everything literal but a NUL (bash cannot hold one) and control
// characters (a terminal showing the script could act on them): those are refused, not quoted.
std::string shellQuote(const std::string& s)
{
    for (char c : s)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
            refuse("megatron-launch", "a value for the launch script contains a control character: " + quotedInput(s));
    if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.=/:") ==
                          std::string::npos)
        return s;
    std::string out = "'";
    for (char c : s)
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

struct Grid {
    int tp = 1, pp = 1, micro = 0, global = 0, zeroStage = 0;
    int vpp = 1;               // model chunks per stage (interleaved 1F1B)
    int cp = 1, ep = 1;        // context- and expert-parallel sizes
    std::vector<int> perStage; // transformer layers per virtual stage, in Megatron's order (chunk-major)
};

Grid gridOf(const Plan& plan)
{
    Grid g;
    if (plan.pipelines.empty()) {
        const UniformZero u = uniformZero(plan);
        g.micro = u.microBatchSize;
        g.global = u.microBatchSize * u.accumulationSteps * u.gpus;
        g.zeroStage = u.stage;
        return g;
    }
    const UniformPipeline u = uniformPipeline(plan);
    g.tp = u.tp;
    g.pp = u.stages;
    g.micro = u.microBatchPerGpu();
    g.global = u.microBatchSize * u.microBatches * u.replicas;
    g.zeroStage = plan.job.zeroStage;
    g.cp = u.cp;
    g.ep = u.ep;
    g.vpp = plan.pipelines.front().virtualStages;
    for (const ModelChunk& c : plan.pipelines.front().chunks(plan.model)) {
        int n = 0;
        for (int l = c.firstLayer; l < c.endLayer; ++l)
            n += isTransformerBlock(plan.model.layers[l].kind);
        g.perStage.push_back(n);
    }
    return g;
}

// Stages (or virtual stages) of different transformer layer counts: Megatron takes them as a layout only.
bool unevenStages(const Grid& g)
{
    return g.pp > 1 && std::any_of(g.perStage.begin(), g.perStage.end(), [&](int n) { return n != g.perStage[0]; });
}

// MoE parallelism: the expert-parallel size and the token dispatcher the simulator models (all-to-all; Megatron
// takes a capacity factor only with it), and a capacity factor padded to capacity as the job states it.
std::vector<std::string> moeArguments(const Plan& plan, const Grid& g)
{
    std::vector<std::string> a;
    if (!plan.model.hasMoeLayers())
        return a;
    if (g.ep > 1)
        a.insert(a.end(), {"--expert-model-parallel-size", std::to_string(g.ep)});
    if (g.ep > 1 || plan.job.moeCapacityFactor > 0)
        a.insert(a.end(), {"--moe-token-dispatcher-type", "alltoall"});
    if (plan.job.moeCapacityFactor > 0)
        a.insert(a.end(), {"--moe-expert-capacity-factor", numberText(plan.job.moeCapacityFactor),
                           "--moe-pad-expert-input-to-capacity"});
    return a;
}

} // namespace

std::vector<std::string> megatronArguments(const Plan& plan)
{
    requireFramework(plan, "megatron");
    const Grid g = gridOf(plan);
    std::vector<std::string> a{"--tensor-model-parallel-size",  std::to_string(g.tp),
                               "--pipeline-model-parallel-size", std::to_string(g.pp),
                               "--micro-batch-size",             std::to_string(g.micro),
                               "--global-batch-size",            std::to_string(g.global)};
    const std::vector<std::string> model = megatronModelArguments(plan.model, plan.job.sequenceLength);
    a.insert(a.end(), model.begin(), model.end());
    if (plan.job.precision == Precision::FP16)
        a.push_back("--fp16");
    else if (plan.job.precision == Precision::BF16)
        a.push_back("--bf16");
    if (g.zeroStage == 1)
        a.push_back("--use-distributed-optimizer");
    if (plan.job.recompute)
        a.insert(a.end(),
                 {"--recompute-granularity", "full", "--recompute-method", "uniform", "--recompute-num-layers", "1"});
    else if (plan.job.selectiveRecompute)
        a.insert(a.end(), {"--recompute-granularity", "selective"});
    // The job's sequence parallelism; Megatron's MoE layers under tensor parallelism need it anyway (it splits
    // the activations tp ways between the tensor-parallel regions: no more memory than planned). With tp 1
    // Megatron would turn it off: not written (the header says so).
    if (plan.job.runsSequenceParallel(g.tp, plan.model.hasMoeLayers()))
        a.push_back("--sequence-parallel");
    // Interleaving: equal chunks as a chunk size; otherwise the layout lists every virtual stage, which also
    // gives Megatron the virtual pipeline size (its stages over the pipeline size).
    if (unevenStages(g))
        a.insert(a.end(), {"--pipeline-model-parallel-layout", formatMegatronLayout(g.perStage)});
    else if (g.vpp > 1)
        a.insert(a.end(), {"--num-layers-per-virtual-pipeline-stage", std::to_string(g.perStage.front())});
    if (g.cp > 1)
        a.insert(a.end(), {"--context-parallel-size", std::to_string(g.cp)});
    const std::vector<std::string> moe = moeArguments(plan, g);
    a.insert(a.end(), moe.begin(), moe.end());
    return a;
}

std::vector<MegatronLaunchNode> megatronLaunchNodes(const Plan& plan)
{
    std::vector<MegatronLaunchNode> nodes;
    for (const RankInfo& r : plan.ranks()) {
        if (nodes.empty() || nodes.back().host != r.host)
            nodes.push_back({r.host, {}});
        nodes.back().gpus.push_back(r.localRank);
    }
    return nodes;
}

namespace {

// `name=(...)`: one element per argument; with `optionLines`, each "--option" starts a line and its values
// follow on that line.
std::string bashArray(const std::string& name, const std::vector<std::string>& elements, bool optionLines)
{
    std::string out = name + "=(";
    for (size_t i = 0; i < elements.size(); ++i) {
        const bool newLine = optionLines && (i == 0 || elements[i].rfind("--", 0) == 0);
        out += (newLine ? "\n    " : (i == 0 ? "" : " ")) + shellQuote(elements[i]);
    }
    return out + (optionLines ? "\n)\n" : ")\n");
}

std::string joined(const std::vector<int>& v)
{
    std::string out;
    for (int x : v)
        out += (out.empty() ? "" : ",") + std::to_string(x);
    return out;
}

std::string commentLines(const std::vector<std::string>& lines)
{
    std::string out;
    for (const std::string& l : lines)
        out += "#   - " + l + "\n";
    return out;
}

// What the header says about the model Megatron builds and what it runs differently from the plan.
std::string modelHeader(const Plan& plan, const Grid& g)
{
    const MegatronModelMatch m = matchMegatronModel(plan.model, plan.job.sequenceLength, g.tp);
    const long long built = (long long)(m.megatron.total() + 0.5), planned = (long long)(m.planned + 0.5);
    std::string out = "# Model: " + megatronEntry(plan.model) + " builds " + std::to_string(built) +
                      " parameters from ARGS and DATA_ARGS; the plan's model has " + std::to_string(planned) + ".\n";
    std::vector<std::string> notes = m.differences;
    if (plan.job.schedule == Schedule::GPipe)
        notes.push_back("the plan was simulated with GPipe; Megatron-LM has no GPipe schedule and runs 1F1B, which has "
                        "the same pipeline bubble and keeps at most as many micro-batches' activations");
    if (plan.job.sequenceParallel && g.tp <= 1)
        notes.push_back("the job asks for sequence parallelism, which does nothing with tensor parallelism 1 (Megatron "
                        "turns it off with a warning): --sequence-parallel is not written");
    if (plan.model.hasMoeLayers())
        notes.push_back("MoE routing uses Megatron's defaults (top-2, auxiliary-loss balancing); the model file does "
                        "not state its top-k");
    if (!notes.empty())
        out += "# Differences from the plan:\n" + commentLines(notes);
    if (unevenStages(g))
        out += "# The uneven stages use --pipeline-model-parallel-layout, which needs Megatron-core 0.13 or later\n"
               "# (checked below from $MEGATRON_DIR/megatron/core/package_info.py).\n";
    return out;
}

// Exits with the reason when the checkout's Megatron-core is older than 0.13 (reads its version file
// without importing torch).
const char* const kLayoutVersionCheck =
    "python3 - \"$MEGATRON_DIR/megatron/core/package_info.py\" <<'PY'\n"
    "import sys\n"
    "try:\n"
    "    info = {}\n"
    "    exec(open(sys.argv[1]).read(), info)\n"
    "except OSError as e:\n"
    "    sys.exit(f\"cannot read {sys.argv[1]} ({e.strerror}): set MEGATRON_DIR to a Megatron-LM checkout\")\n"
    "if (info[\"MAJOR\"], info[\"MINOR\"]) < (0, 13):\n"
    "    sys.exit(\"--pipeline-model-parallel-layout needs Megatron-core 0.13 or later; \" + sys.argv[1] +\n"
    "             \" is \" + str(info.get(\"__version__\", \"older\")))\n"
    "PY\n";

std::string dataArrays(const Plan& plan)
{
    if (megatronEntry(plan.model) == "pretrain_bert.py")
        return "# BERT trains on a real corpus (Megatron has no mock BERT data): DATA_PATH is a Megatron BERT dataset\n"
               "# prefix (tools/preprocess_data.py --split-sentences), VOCAB_FILE its word-piece vocabulary with the\n"
               "# model's " +
               std::to_string(plan.model.arch.vocab) +
               " entries (Megatron's BERT tokenizer appends [BOS] and [EOS] when the file lacks them).\n"
               "DATA_PATH=${DATA_PATH:?set DATA_PATH to a Megatron BERT dataset prefix}\n"
               "VOCAB_FILE=${VOCAB_FILE:?set VOCAB_FILE to the word-piece vocabulary file}\n"
               "DATA_ARGS=(\n    --data-path \"$DATA_PATH\"\n    --vocab-file \"$VOCAB_FILE\"\n"
               "    --tokenizer-type BertWordPieceLowerCase\n    --split 949,50,1\n)\n";
    std::vector<std::string> data{"--mock-data"};
    const std::vector<std::string> tokenizer = megatronMockTokenizerArguments(plan.model);
    data.insert(data.end(), tokenizer.begin(), tokenizer.end());
    return "# Mock data and a null tokenizer, which adds an end-of-document token to --vocab-size: the model gets\n"
           "# the plan's vocabulary. For real data use --data-path and your tokenizer (its vocabulary sets the rows).\n" +
           bashArray("DATA_ARGS", data, true);
}

} // namespace

std::string megatronLaunchScript(const Plan& plan)
{
    const std::vector<std::string> args = megatronArguments(plan);
    requirePlainNames(plan); // the planner is named in a comment, the node names are the hosts
    const Grid g = gridOf(plan);
    const std::vector<MegatronLaunchNode> nodes = megatronLaunchNodes(plan);
    std::vector<std::string> hosts, gpus, nproc;
    for (const MegatronLaunchNode& n : nodes) {
        hosts.push_back(n.host);
        gpus.push_back(joined(n.gpus));
        nproc.push_back(std::to_string(n.gpus.size()));
    }
    std::string out = "#!/usr/bin/env bash\n"
                      "# Megatron-LM launch written by hetplan (planner " +
                      plan.planner +
                      "). Run it once per launch node i of HOSTS, on that host, with NODE_RANK=i.\n"
                      "# Ranks follow Megatron's order (tp fastest, then cp, ep and dp, then pp); launch node i starts\n"
                      "# NPROC[i] processes that see only the GPUS[i] of its host, in that order, so every rank runs\n"
                      "# where the plan put it (torchrun numbers ranks node by node, so launch nodes may start\n"
                      "# different counts).\n";
    out += modelHeader(plan, g);
    out += "set -euo pipefail\n"
           "MEGATRON_DIR=${MEGATRON_DIR:-.}\n";
    out += bashArray("HOSTS", hosts, false);
    out += bashArray("GPUS", gpus, false);
    out += bashArray("NPROC", nproc, false);
    out += "NODE_RANK=${NODE_RANK:?set NODE_RANK to the index of this launch node in HOSTS}\n"
           "export CUDA_VISIBLE_DEVICES=\"${GPUS[$NODE_RANK]}\"\n"
           "# Megatron's validate_args requires it with tensor parallelism on GPUs before Blackwell (one hardware\n"
           "# queue keeps its communication kernels in issue order); its own example scripts always set it.\n"
           "export CUDA_DEVICE_MAX_CONNECTIONS=1\n";
    if (unevenStages(g))
        out += kLayoutVersionCheck;
    out += bashArray("ARGS", args, true);
    out += dataArrays(plan);
    out += bashArray("TRAIN_ARGS", {"--train-iters", "100", "--lr", "1.0e-4", "--lr-decay-style", "constant"}, true);
    // torchrun's underscore spellings: the ones every version accepts (Megatron's examples use them too).
    out += "torchrun --nnodes \"${#HOSTS[@]}\" --node_rank \"$NODE_RANK\" --nproc_per_node \"${NPROC[$NODE_RANK]}\" "
           "\\\n    --master_addr \"${HOSTS[0]}\" --master_port \"${MASTER_PORT:-6000}\" \\\n"
           "    \"$MEGATRON_DIR/" +
           megatronEntry(plan.model) + "\" \"${ARGS[@]}\" \"${DATA_ARGS[@]}\" \"${TRAIN_ARGS[@]}\"\n";
    return out;
}

void registerMegatronExporter(ExporterRegistry& registry)
{
    // It used to be called "megatron" when it wrote only the argument list; that name stays an alias.
    registry.add(
        {{"megatron-launch", "Megatron-LM launch script (.sh)", "*.sh", ".sh", {"megatron"}}, megatronLaunchScript, true});
}

} // namespace hetplan
