// Which Megatron-LM arguments describe a plan's model, and whether Megatron then builds that model (see
// megatron_model.h; the parameter count itself is in megatron_params.cpp).
#include "megatron_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace hetplan {

namespace {

bool isMegatronLayer(LayerKind k) { return k == LayerKind::Transformer || k == LayerKind::MoE; }
std::string decimal(long long v) { return std::to_string(v); }

// Exact counts: the messages are there to be compared with the plan's and with Megatron's own log.
std::string paramText(double n)
{
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.0f", n);
    return buf;
}

// Megatron's --moe-layer-freq as a list literal (its parser admits digits, commas and brackets): 1 where
// the block is MoE; "1" when every block is.
std::string moeLayerPattern(const ModelSpec& m)
{
    std::string list;
    bool all = true;
    for (const LayerSpec& l : m.layers)
        if (isMegatronLayer(l.kind)) {
            list += std::string(list.empty() ? "[" : ",") + (l.kind == LayerKind::MoE ? "1" : "0");
            all &= l.kind == LayerKind::MoE;
        }
    return all ? "1" : list + "]";
}

} // namespace

std::vector<std::string> megatronModelProblems(const ModelSpec& m)
{
    std::vector<std::string> out;
    const ModelArch& a = m.arch;
    if (a.family == "vit" || a.family == "vgg" || a.family == "transgan")
        out.push_back("pretrain_gpt.py and pretrain_bert.py build language models; '" + a.family +
                      "' is an image model");
    if (a.hidden <= 0 || a.heads <= 0 || a.vocab <= 0)
        out.push_back("Megatron needs the hidden size, attention heads and vocabulary (arch.hidden, arch.heads, "
                      "arch.vocab), and the model does not state them all");
    else if (a.hidden % a.heads != 0)
        out.push_back("the heads (" + decimal(a.heads) + ") do not divide the hidden size (" + decimal(a.hidden) + ")");
    if (a.embedDim > 0 && a.embedDim != a.hidden)
        out.push_back("the word embedding is " + decimal(a.embedDim) + " wide and projected to the hidden size " +
                      decimal(a.hidden) + " (OPT-350m's project_in/out); Megatron's embedding is hidden-wide");
    if (a.family == "opt") {
        out.push_back("OPT's MLP uses ReLU; Megatron's activations are GeLU, SwiGLU, squared ReLU and quick GeGLU");
        if (a.embedDim > 0)
            out.push_back("OPT-350m's blocks are post-norm and end without a final norm; Megatron's GPT is pre-norm "
                          "with a final norm");
    }
    if (a.family == "bert" && m.hasMoeLayers())
        out.push_back("pretrain_bert.py builds dense layers only (its layer spec has no experts, and Megatron refuses "
                      "--spec together with --num-experts)");
    if (m.hasMoeLayers() && a.experts < 1)
        out.push_back("the model has MoE blocks but states no expert count (arch.experts)");
    return out;
}

std::string megatronEntry(const ModelSpec& m) { return m.arch.family == "bert" ? "pretrain_bert.py" : "pretrain_gpt.py"; }

std::vector<std::string> megatronModelArguments(const ModelSpec& m, int sequence)
{
    const ModelArch& a = m.arch;
    std::vector<std::string> out{"--num-layers",          decimal(m.blockCount()),
                                 "--hidden-size",         decimal(a.hidden),
                                 "--num-attention-heads", decimal(a.heads)};
    if (a.ffn > 0)
        out.insert(out.end(), {"--ffn-hidden-size", decimal(a.ffn)});
    // Learned positions: the model's table; rotary ones store nothing, Megatron still wants the bound.
    out.insert(out.end(), {"--seq-length", decimal(sequence), "--max-position-embeddings",
                           decimal(std::max(sequence, a.positions > 0 ? a.positions : a.sequence))});
    if (a.family == "llama") {
        // Llama: SwiGLU, RMSNorm, rotary positions, no biases (Qwen2 keeps them on Q/K/V), no dropout.
        out.insert(out.end(), {"--swiglu", "--normalization", "RMSNorm", "--position-embedding-type", "rope",
                               "--rotary-base", decimal(a.ropeBase > 0 ? a.ropeBase : 10000), "--disable-bias-linear"});
        if (a.qkvBias)
            out.push_back("--add-qkv-bias");
        out.insert(out.end(), {"--attention-dropout", "0", "--hidden-dropout", "0"});
    }
    if (!a.tiedEmbeddings)
        out.push_back("--untie-embeddings-and-output-weights");
    if (a.kvHeads > 0 && a.kvHeads != a.heads)
        out.insert(out.end(), {"--group-query-attention", "--num-query-groups", decimal(a.kvHeads)});
    if (m.hasMoeLayers())
        out.insert(out.end(), {"--num-experts", decimal(a.experts), "--moe-ffn-hidden-size",
                               decimal(a.ffn > 0 ? a.ffn : 4 * a.hidden), "--moe-layer-freq", moeLayerPattern(m)});
    // Megatron pads the vocabulary to a multiple of this × tp (default 128); 1 keeps the model's rows.
    out.insert(out.end(), {"--make-vocab-size-divisible-by", "1"});
    return out;
}

std::vector<std::string> megatronMockTokenizerArguments(const ModelSpec& m)
{
    if (megatronEntry(m) != "pretrain_gpt.py")
        return {};
    return {"--tokenizer-type", "NullTokenizer", "--vocab-size", decimal(std::max(1, m.arch.vocab) - 1)};
}

namespace {

struct PlanParts {
    double embedding = 0, head = 0;
    std::vector<double> blocks;
};
PlanParts planParts(const ModelSpec& m)
{
    PlanParts p;
    for (const LayerSpec& l : m.layers) {
        if (isMegatronLayer(l.kind))
            p.blocks.push_back(l.params);
        else if (l.kind == LayerKind::Embedding)
            p.embedding += l.params;
        else
            p.head += l.params;
    }
    return p;
}

// The first layer whose size differs, as a sentence; "" when all match.
std::string layerMismatch(const std::vector<double>& megatron, const std::vector<double>& planned)
{
    if (megatron.size() != planned.size())
        return "Megatron builds " + decimal(long(megatron.size())) + " layers, the plan's model has " +
               decimal(long(planned.size())) + " blocks";
    for (size_t i = 0; i < planned.size(); ++i)
        if (std::abs(megatron[i] - planned[i]) > 0.5)
            return "Megatron's layer " + decimal(long(i)) + " has " + paramText(megatron[i]) + " parameters, the plan's block " +
                   decimal(long(i)) + " " + paramText(planned[i]);
    return {};
}

} // namespace

MegatronModelMatch matchMegatronModel(const ModelSpec& m, int sequence, int tp)
{
    MegatronModelMatch r;
    std::vector<std::string> args = megatronModelArguments(m, sequence);
    args.insert(args.end(), {"--tensor-model-parallel-size", decimal(tp)});
    const std::vector<std::string> tokenizer = megatronMockTokenizerArguments(m);
    args.insert(args.end(), tokenizer.begin(), tokenizer.end());
    const std::string entry = megatronEntry(m);
    // BERT's vocabulary comes from its word-piece file: assumed to hold the model's vocabulary.
    r.megatron = megatronParameterCount(entry, args, m.arch.vocab);
    r.planned = m.totalParams();
    const PlanParts plan = planParts(m);
    const MegatronParameterCount& c = r.megatron;
    if (c.vocabPadding > 0)
        r.differences.push_back("Megatron pads the vocabulary to a multiple of tp = " + decimal(tp) + ": " +
                                paramText(c.vocabPadding) + " more parameters in rows no token uses");
    if (entry == "pretrain_bert.py")
        r.differences.push_back(
            "Megatron's BERT is pre-norm: a final norm closes the encoder where the plan's post-norm BERT normalises "
            "the embeddings (the same parameters), and its sentence-order head adds a 2-way classifier (" +
            paramText(c.binaryHead) + " parameters)");
    std::string why = layerMismatch(c.layers, plan.blocks);
    const double expected = c.total() - c.vocabPadding - c.binaryHead;
    if (why.empty() && std::abs(expected - r.planned) > 0.5)
        why = "embedding and head hold " + paramText(c.embedding + c.head - c.vocabPadding - c.binaryHead) +
              " parameters in Megatron, " + paramText(plan.embedding + plan.head) + " in the plan's model";
    if (!why.empty())
        r.mismatch = "from these arguments Megatron builds " + paramText(expected) + " parameters (without padding), the "
                     "plan's model has " + paramText(r.planned) + ": " + why;
    return r;
}

} // namespace hetplan
