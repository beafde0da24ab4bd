// The parameter count of the model Megatron-LM builds from its arguments (see megatron_model.h for the
// modules counted). Defaults are Megatron's: LayerNorm, GeLU MLP of 4·hidden, biases on, learned positions,
// tied output layer, vocabulary padded to a multiple of 128 × tp, BERT's binary head on.
#include "megatron_model.h"

#include "core/base/errors.h"
#include "core/base/numbers.h"

#include <cmath>
#include <map>
#include <set>

namespace hetplan {

namespace {

[[noreturn]] void badArgument(const std::string& flag, const std::string& reason)
{
    throw InputError("megatron-arguments", flag, reason);
}

// Flags without a value and flags with their last value, as argparse keeps them.
class MegatronArgs {
public:
    explicit MegatronArgs(const std::vector<std::string>& tokens)
    {
        for (size_t i = 0; i < tokens.size(); ++i) {
            if (tokens[i].rfind("--", 0) != 0)
                continue;
            if (i + 1 < tokens.size() && tokens[i + 1].rfind("--", 0) != 0) {
                values_[tokens[i]] = tokens[i + 1];
                ++i;
            } else
                flags_.insert(tokens[i]);
        }
    }
    bool flag(const std::string& f) const { return flags_.count(f) > 0; }
    std::string text(const std::string& f, const std::string& fallback) const
    {
        const auto it = values_.find(f);
        return it == values_.end() ? fallback : it->second;
    }
    long long integer(const std::string& f, long long fallback = -1) const
    {
        const auto it = values_.find(f);
        if (it == values_.end()) {
            if (fallback < 0)
                badArgument(f, "missing");
            return fallback;
        }
        const std::optional<long long> v = wholeNumber(it->second);
        if (!v || *v < 0)
            badArgument(f, "expected a non-negative integer, got '" + it->second + "'");
        return *v;
    }

private:
    std::map<std::string, std::string> values_;
    std::set<std::string> flags_;
};

// --moe-layer-freq: N (every N-th layer from layer 0 is MoE) or a flat list of 0/1, one per layer.
std::vector<bool> moeLayerMask(const std::string& freq, long long layers)
{
    std::vector<bool> out;
    if (freq.empty() || freq.front() != '[') {
        const std::optional<long long> n = wholeNumber(freq);
        if (!n || *n < 1)
            badArgument("--moe-layer-freq", "expected a positive integer or a list, got '" + freq + "'");
        for (long long i = 0; i < layers; ++i)
            out.push_back(i % *n == 0);
        return out;
    }
    for (size_t i = 1; i < freq.size(); ++i) {
        const char c = freq[i];
        if (c == '0' || c == '1')
            out.push_back(c == '1');
        else if (c != ',' && !(c == ']' && i + 1 == freq.size()))
            badArgument("--moe-layer-freq", "only flat lists of 0 and 1 are counted here, got '" + freq + "'");
    }
    if (static_cast<long long>(out.size()) != layers)
        badArgument("--moe-layer-freq", "the list has " + std::to_string(out.size()) + " entries for " +
                                    std::to_string(layers) + " layers");
    return out;
}

struct MegatronShape {
    double h = 0, q = 0, kv = 0, ffn = 0, moeFfn = 0, experts = 0, norm = 0;
    bool bias = true, qkvBias = true, gated = false;
};

double mlpOf(const MegatronShape& s, double ffn)
{
    const double fc1 = ffn * (s.gated ? 2 : 1);
    return s.h * fc1 + ffn * s.h + (s.bias ? fc1 + s.h : 0);
}

double layerOf(const MegatronShape& s, bool moe)
{
    const double qkv = s.h * (s.q + s.kv) + (s.qkvBias ? s.q + s.kv : 0);
    const double proj = s.q * s.h + (s.bias ? s.h : 0);
    const double ffn = moe ? s.experts * s.h + s.experts * mlpOf(s, s.moeFfn) : mlpOf(s, s.ffn);
    return 2 * s.norm + qkv + proj + ffn;
}

} // namespace

double MegatronParameterCount::total() const
{
    double t = embedding + head;
    for (double l : layers)
        t += l;
    return t;
}

MegatronParameterCount megatronParameterCount(const std::string& entry, const std::vector<std::string>& tokens,
                                              long long tokenizerVocab)
{
    if (entry != "pretrain_gpt.py" && entry != "pretrain_bert.py")
        badArgument("entry", "counted for pretrain_gpt.py and pretrain_bert.py, not '" + entry + "'");
    const bool bert = entry == "pretrain_bert.py";
    const MegatronArgs a(tokens);
    const long long layers = a.integer("--num-layers"), hidden = a.integer("--hidden-size"),
                    heads = a.integer("--num-attention-heads");
    if (heads < 1 || hidden < 1)
        badArgument("--num-attention-heads", "hidden size and heads must be positive");
    MegatronShape s;
    s.h = double(hidden);
    s.gated = a.flag("--swiglu") || a.flag("--quick-geglu");
    const long long d = a.integer("--kv-channels", hidden / heads);
    const long long groups = a.flag("--group-query-attention") ? a.integer("--num-query-groups", 1) : heads;
    s.q = double(heads * d);
    s.kv = double(2 * groups * d);
    // Megatron's own default for SwiGLU keeps the parameters of a 4h GeLU MLP, rounded down to 64.
    const long long ffnDefault = a.flag("--swiglu") ? (4 * hidden * 2 / 3) / 64 * 64 : 4 * hidden;
    s.ffn = double(a.integer("--ffn-hidden-size", ffnDefault));
    s.moeFfn = double(a.integer("--moe-ffn-hidden-size", static_cast<long long>(s.ffn)));
    s.experts = double(a.integer("--num-experts", 0));
    const std::string norm = a.text("--normalization", "LayerNorm");
    if (norm != "LayerNorm" && norm != "RMSNorm")
        badArgument("--normalization", "expected LayerNorm or RMSNorm, got '" + norm + "'");
    s.norm = norm == "LayerNorm" ? 2 * s.h : s.h;
    s.bias = !a.flag("--disable-bias-linear");
    s.qkvBias = s.bias || a.flag("--add-qkv-bias");

    MegatronParameterCount c;
    const std::vector<bool> moe = s.experts > 0 ? moeLayerMask(a.text("--moe-layer-freq", "1"), layers)
                                                : std::vector<bool>(size_t(layers), false);
    for (long long i = 0; i < layers; ++i)
        c.layers.push_back(layerOf(s, moe[size_t(i)]));

    // The vocabulary: the tokenizer's, padded to a multiple of --make-vocab-size-divisible-by × tp.
    const bool nullTokenizer = a.text("--tokenizer-type", "") == "NullTokenizer";
    const long long vocab = nullTokenizer ? a.integer("--vocab-size") + 1 : tokenizerVocab;
    if (vocab < 1)
        badArgument("--vocab-size", "the tokenizer's vocabulary is not known from these arguments");
    const long long multiple = a.integer("--make-vocab-size-divisible-by", 128) * a.integer("--tensor-model-parallel-size", 1);
    if (multiple < 1)
        badArgument("--make-vocab-size-divisible-by", "must be positive");
    const double padded = double((vocab + multiple - 1) / multiple * multiple);
    const bool untied = a.flag("--untie-embeddings-and-output-weights");
    const bool binary = bert && !a.flag("--bert-no-binary-head");

    const std::string position = a.text("--position-embedding-type", "learned_absolute");
    c.embedding = padded * s.h + (position == "learned_absolute" ? double(a.integer("--max-position-embeddings")) * s.h : 0) +
                  (binary ? 2 * s.h : 0);
    c.head = s.norm + (untied ? padded * s.h : 0);
    if (bert) {
        c.head += s.h * s.h + s.h + s.norm + padded; // LM head: dense and norm; the output layer's bias
        if (binary) {
            c.binaryHead = 2 * s.h + 2;
            c.head += s.h * s.h + s.h + c.binaryHead; // pooler and the sentence-order classifier
        }
    }
    c.vocabPadding = (padded - double(vocab)) * (s.h + (untied ? s.h : 0) + (bert ? 1 : 0));
    return c;
}

} // namespace hetplan
