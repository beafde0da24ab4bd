// Megatron-LM arguments and its pipeline layout syntax (see exporters.h).
#include "core/io/exporters.h"

#include "core/base/errors.h"
#include "core/base/quote.h"
#include "core/io/formats/export_util.h"

#include <algorithm>
#include <cctype>

namespace hetplan {

using namespace exportutil;

namespace {

bool isBlock(LayerKind k) { return k == LayerKind::Transformer || k == LayerKind::MoE; }

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

} // namespace

std::string formatMegatronLayout(const std::vector<int>& perStage)
{
    std::string out;
    for (size_t s = 0; s < perStage.size(); ++s) {
        if (s > 0)
            out += '|';
        if (s == 0)
            out += 'E';
        if (perStage[s] == 1)
            out += 't';
        else if (perStage[s] > 1)
            out += "t*" + std::to_string(perStage[s]);
        if (s + 1 == perStage.size())
            out += 'L';
    }
    return out;
}

namespace {

// Megatron's layout syntax, unrolled in three passes: "(group)*N", then "x*N", then stages.
class LayoutParser {
public:
    explicit LayoutParser(const std::string& layout) : layout_(layout) {}

    std::vector<int> parse() const
    {
        std::string s;
        for (char c : layout_)
            if (c != ',' && c != ' ')
                s += c;
        return stages(unrollRepeats(unrollGroups(s)));
    }

private:
    static constexpr size_t kMaxExpanded = 1 << 20;

    [[noreturn]] void fail(const std::string& reason) const
    {
        throw InputError("megatron-layout", "layout", reason + " in \"" + layout_ + "\"");
    }

    int readCount(const std::string& s, size_t& i) const
    {
        size_t j = i;
        while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j])))
            ++j;
        if (j == i || j - i > 6)
            fail("expected a repeat count after '*'");
        const int n = std::stoi(s.substr(i, j - i));
        i = j;
        return n;
    }

    // Groups do not nest, as in Megatron's parser.
    std::string unrollGroups(const std::string& s) const
    {
        std::string g;
        for (size_t i = 0; i < s.size();) {
            if (s[i] == ')')
                fail("unbalanced ')'");
            if (s[i] != '(') {
                g += s[i++];
                continue;
            }
            const size_t close = s.find(')', i + 1);
            if (close == std::string::npos)
                fail("unbalanced '('");
            const std::string body = s.substr(i + 1, close - i - 1);
            if (body.empty() || body.find('(') != std::string::npos)
                fail("empty or nested group");
            if (close + 1 >= s.size() || s[close + 1] != '*')
                fail("a group must be followed by '*N'");
            i = close + 2;
            const int n = readCount(s, i);
            if (body.size() * size_t(n) + g.size() > kMaxExpanded)
                fail("layout too long");
            for (int r = 0; r < n; ++r)
                g += body;
        }
        return g;
    }

    std::string unrollRepeats(const std::string& g) const
    {
        std::string flat;
        for (size_t i = 0; i < g.size();) {
            const char c = g[i++];
            if (c == '*')
                fail("'*' without a layer character");
            if (i >= g.size() || g[i] != '*') {
                flat += c;
                continue;
            }
            if (c == '|')
                fail("'|' cannot be repeated outside a group");
            ++i;
            const int n = readCount(g, i);
            if (flat.size() + size_t(n) > kMaxExpanded)
                fail("layout too long");
            flat.append(size_t(n), c);
        }
        return flat;
    }

    std::vector<int> stages(const std::string& flat) const
    {
        std::vector<int> perStage(1, 0);
        int embeddings = 0, losses = 0;
        for (size_t i = 0; i < flat.size(); ++i) {
            const char c = flat[i];
            switch (c) {
            case '|': perStage.push_back(0); break;
            case 't': ++perStage.back(); break;
            case 'm': break;
            case 'E':
                if (i != 0)
                    fail("the embedding 'E' must open the first stage");
                ++embeddings;
                break;
            case 'L':
                if (i + 1 != flat.size())
                    fail("the loss 'L' must close the last stage");
                ++losses;
                break;
            default: fail(std::string("unknown layer character '") + c + "' (known: E, L, t, m)");
            }
        }
        if (embeddings != 1)
            fail("the layout needs one embedding 'E' at the start");
        if (losses != 1)
            fail("the layout needs one loss 'L' at the end");
        return perStage;
    }

    const std::string& layout_;
};

// Megatron builds GPT/BERT-style models: embedding, transformer blocks, head.
} // namespace

std::vector<int> parseMegatronLayout(const std::string& layout) { return LayoutParser(layout).parse(); }

namespace {

// The flags that make Megatron build the planned model rather than its GPT-2-like default (LayerNorm,
// learned absolute positions, GELU, biases, tied output layer). Names as in Megatron-LM's
// megatron/training/arguments.py.
void appendArchitecture(const ModelSpec& m, std::vector<std::string>& a)
{
    if (m.arch.family == "llama")
        a.insert(a.end(), {"--swiglu", "--normalization", "RMSNorm", "--position-embedding-type", "rope",
                           "--disable-bias-linear"});
    if (!m.arch.tiedEmbeddings)
        a.push_back("--untie-embeddings-and-output-weights");
    if (m.arch.kvHeads > 0 && m.arch.kvHeads != m.arch.heads)
        a.insert(a.end(), {"--group-query-attention", "--num-query-groups", std::to_string(m.arch.kvHeads)});
}

} // namespace

std::vector<std::string> megatronArguments(const Plan& plan)
{
    requireFramework(plan, "megatron");
    const ModelSpec& m = plan.model;
    const int blocks = m.blockCount();

    int tp = 1, pp = 1, micro = 0, global = 0, zeroStage = 0;
    std::vector<int> perStage;
    if (!plan.pipelines.empty()) {
        const UniformPipeline u = uniformPipeline(plan);
        tp = u.tp;
        pp = u.stages;
        micro = u.microBatchPerGpu();
        global = u.microBatchSize * u.microBatches * u.replicas;
        zeroStage = plan.job.zeroStage;
        for (int s = 0; s < u.stages; ++s) {
            int n = 0;
            for (int l = u.bounds[s]; l < u.bounds[s + 1]; ++l)
                n += isBlock(m.layers[l].kind);
            perStage.push_back(n);
        }
    } else {
        const UniformZero u = uniformZero(plan);
        micro = u.microBatchSize;
        global = u.microBatchSize * u.accumulationSteps * u.gpus;
        zeroStage = u.stage;
    }

    std::vector<std::string> a{"--tensor-model-parallel-size",
                               std::to_string(tp),
                               "--pipeline-model-parallel-size",
                               std::to_string(pp),
                               "--micro-batch-size",
                               std::to_string(micro),
                               "--global-batch-size",
                               std::to_string(global),
                               "--num-layers",
                               std::to_string(blocks)};
    if (m.arch.hidden > 0)
        a.insert(a.end(), {"--hidden-size", std::to_string(m.arch.hidden)});
    if (m.arch.heads > 0)
        a.insert(a.end(), {"--num-attention-heads", std::to_string(m.arch.heads)});
    if (m.arch.ffn > 0)
        a.insert(a.end(), {"--ffn-hidden-size", std::to_string(m.arch.ffn)});
    a.insert(a.end(), {"--seq-length", std::to_string(plan.job.sequenceLength)});
    a.insert(a.end(),
             {"--max-position-embeddings", std::to_string(std::max(plan.job.sequenceLength, m.arch.sequence))});
    if (m.arch.experts > 0)
        a.insert(a.end(), {"--num-experts", std::to_string(m.arch.experts)});
    if (plan.job.precision == Precision::FP16)
        a.push_back("--fp16");
    else if (plan.job.precision == Precision::BF16)
        a.push_back("--bf16");
    if (zeroStage == 1)
        a.push_back("--use-distributed-optimizer");
    if (plan.job.recompute)
        a.insert(a.end(),
                 {"--recompute-granularity", "full", "--recompute-method", "uniform", "--recompute-num-layers", "1"});
    if (pp > 1 && std::any_of(perStage.begin(), perStage.end(), [&](int n) { return n != perStage.front(); }))
        a.insert(a.end(), {"--pipeline-model-parallel-layout", formatMegatronLayout(perStage)});
    appendArchitecture(m, a);
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
    for (const MegatronLaunchNode& n : nodes)
        if (n.gpus.size() != nodes.front().gpus.size())
            refuse("ranks", "in Megatron's rank order (tp fastest, then dp, then pp) the plan's GPUs form runs of " +
                                std::to_string(nodes.front().gpus.size()) + " and " + std::to_string(n.gpus.size()) +
                                " consecutive ranks on one host; torchrun needs the same number of processes on "
                                "every launch node — use the rank table (--format rank-table)");
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

} // namespace

std::string megatronLaunchScript(const Plan& plan)
{
    const std::vector<std::string> args = megatronArguments(plan);
    requirePlainNames(plan); // the planner is named in a comment, the node names are the hosts
    const std::vector<MegatronLaunchNode> nodes = megatronLaunchNodes(plan);
    std::vector<std::string> hosts, gpus;
    for (const MegatronLaunchNode& n : nodes) {
        hosts.push_back(n.host);
        gpus.push_back(joined(n.gpus));
    }
    const std::string vocab = std::to_string(std::max(1, plan.model.arch.vocab));
    std::string out = "#!/usr/bin/env bash\n"
                      "# Megatron-LM launch written by hetplan (planner " +
                      plan.planner +
                      "). Run it once per launch node i of HOSTS, on that host, with NODE_RANK=i.\n"
                      "# Ranks follow Megatron's order (tp fastest, then dp, then pp); each launch node sees only\n"
                      "# the GPUs listed for it, in that order, so every rank runs where the plan put it.\n"
                      "set -euo pipefail\n"
                      "MEGATRON_DIR=${MEGATRON_DIR:-.}\n";
    out += bashArray("HOSTS", hosts, false);
    out += bashArray("GPUS", gpus, false);
    out += "NODE_RANK=${NODE_RANK:?set NODE_RANK to the index of this launch node in HOSTS}\n"
           "export CUDA_VISIBLE_DEVICES=\"${GPUS[$NODE_RANK]}\"\n";
    out += bashArray("ARGS", args, true);
    out += "# Synthetic data and a null tokenizer: replace with --data-path/--tokenizer-type for real data.\n";
    out += bashArray("DATA_ARGS", {"--mock-data", "--tokenizer-type", "NullTokenizer", "--vocab-size", vocab}, true);
    out += bashArray("TRAIN_ARGS", {"--train-iters", "100", "--lr", "1.0e-4", "--lr-decay-style", "constant"}, true);
    out += "torchrun --nnodes \"${#HOSTS[@]}\" --node-rank \"$NODE_RANK\" --nproc-per-node " +
           std::to_string(nodes.front().gpus.size()) +
           " \\\n    --master-addr \"${HOSTS[0]}\" --master-port \"${MASTER_PORT:-6000}\" \\\n"
           "    \"$MEGATRON_DIR/pretrain_gpt.py\" \"${ARGS[@]}\" \"${DATA_ARGS[@]}\" \"${TRAIN_ARGS[@]}\"\n";
    return out;
}

void registerMegatronExporter(ExporterRegistry& registry)
{
    // It used to be called "megatron" when it wrote only the argument list; that name stays an alias.
    registry.add(
        {{"megatron-launch", "Megatron-LM launch script (.sh)", "*.sh", ".sh", {"megatron"}}, megatronLaunchScript, true});
}

} // namespace hetplan
