// Op-level builders. Label conventions: b batch, s/t sequence, h hidden, k/f/n output features, n heads,
// d head width, V vocabulary, E experts, c expert capacity, o/c output/input channels, h/w (conv) spatial.
#include "graph_builders.h"

#include "core/base/errors.h"

#include <algorithm>
#include <cmath>

namespace hetplan::hap {

namespace {

using K = OpKind;
using Shape = std::vector<long long>;

struct Builder {
    TensorGraph& g;
    std::string prefix;
    std::string n(const std::string& s) const { return prefix + s; }

    // x[..., in] · W[in, out] + b[out]; `xl` are x's labels ending in the contracted label 'i'.
    int linear(int x, const std::string& xl, long long in, long long out, const std::string& name, bool bias = true)
    {
        const int w = g.parameter(n(name + ".w"), {in, out});
        std::string yl = xl;
        yl.back() = 'o';
        int y = g.add({K::MatMul, n(name), {x, w}, {xl, "io"}, yl, 2});
        (void)in;
        if (bias) {
            const int b = g.parameter(n(name + ".b"), {out});
            y = g.add({K::Add, n(name + "+b"), {y, b}, {yl, "o"}, yl, 1, "", "", false});
        }
        return y;
    }
    int act(int x, const std::string& l, const std::string& name)
    {
        return g.add({K::Activation, n(name), {x}, {l}, l, 8});
    }
    int addT(int a, int b, const std::string& l, const std::string& name)
    {
        return g.add({K::Add, n(name), {a, b}, {l, l}, l, 1, "", "", true});
    }
    int norm(int x, const std::string& l, long long h, const std::string& name)
    {
        const int gm = g.parameter(n(name + ".g"), {h});
        const int bt = g.parameter(n(name + ".b"), {h});
        const std::string f(1, l.back());
        return g.add({K::LayerNorm, n(name), {x, gm, bt}, {l, f, f}, l, 8, f});
    }
};

struct LmShape {
    long long b, s, h, heads, ffn, vocab, positions, typeVocab, experts, topK, moeEvery, layers;
    bool bert, preNorm;
};

// Multi-head self-attention on x[b,s,h]; returns the projected output (before the residual add).
int attention(Builder& B, int x, const LmShape& m)
{
    const long long d = m.h / m.heads;
    auto heads = [&](int t, const std::string& name) {
        return B.g.add({K::Reshape, B.n(name), {t}, {"bsh"}, "bshd", 0, "", "", false, {m.b, m.s, m.heads, d}, 0});
    };
    const int q = heads(B.linear(x, "bsi", m.h, m.h, "q"), "q4");
    const int k = heads(B.linear(x, "bsi", m.h, m.h, "k"), "k4");
    const int v = heads(B.linear(x, "bsi", m.h, m.h, "v"), "v4");
    const int sc = B.g.add({K::MatMul, B.n("scores"), {q, k}, {"bsnd", "btnd"}, "bnst", 2});
    const int p = B.g.add({K::Softmax, B.n("softmax"), {sc}, {"bnst"}, "bnst", 5, "t"});
    const int ctx = B.g.add({K::MatMul, B.n("context"), {p, v}, {"bnst", "btnd"}, "bsnd", 2});
    const int flat = B.g.add({K::Reshape, B.n("merge"), {ctx}, {"bsnd"}, "bsn", 0, "d", "", false, {m.b, m.s, m.h}, 0});
    return B.linear(flat, "bsi", m.h, m.h, "o");
}

int denseFfn(Builder& B, int x, const LmShape& m)
{
    const int h1 = B.act(B.linear(x, "bsi", m.h, m.ffn, "fc1"), "bso", "gelu");
    return B.linear(h1, "bsi", m.ffn, m.h, "fc2");
}

// GShard-style MoE FFN: router, top-k dispatch into per-expert capacity slots, expert MLPs, combine.
int moeFfn(Builder& B, int x, const LmShape& m)
{
    const long long E = m.experts, cap = std::max<long long>(1, (m.topK * m.s + E - 1) / E);
    const int wg = B.g.parameter(B.n("router.w"), {m.h, E});
    const int logits = B.g.add({K::MatMul, B.n("router"), {x, wg}, {"bsh", "hE"}, "bsE", 2});
    const int mask = B.g.add({K::MoEGate,
                              B.n("gate"),
                              {logits},
                              {"bsE"},
                              "bsEc",
                              1,
                              "Ec",
                              "",
                              false,
                              {m.b, m.s, E, cap},
                              10.0 * m.b * m.s * E});
    const double moved = 2.0 * m.b * m.s * m.h * m.topK; // copies of the routed tokens
    const int disp = B.g.add(
        {K::MatMul, B.n("dispatch"), {mask, x}, {"bsEc", "bsh"}, "Ebch", 0, "c", "", false, {E, m.b, cap, m.h}, moved});
    const int w1 = B.g.parameter(B.n("experts.w1"), {E, m.h, m.ffn});
    const int b1 = B.g.parameter(B.n("experts.b1"), {E, m.ffn});
    const int w2 = B.g.parameter(B.n("experts.w2"), {E, m.ffn, m.h});
    const int b2 = B.g.parameter(B.n("experts.b2"), {E, m.h});
    int h = B.g.add({K::MoEExperts, B.n("experts.fc1"), {disp, w1}, {"Ebch", "Ehf"}, "Ebcf", 2});
    h = B.g.add({K::Add, B.n("experts.fc1+b"), {h, b1}, {"Ebcf", "Ef"}, "Ebcf", 1});
    h = B.act(h, "Ebcf", "experts.gelu");
    h = B.g.add({K::MoEExperts, B.n("experts.fc2"), {h, w2}, {"Ebcf", "Efh"}, "Ebch", 2});
    h = B.g.add({K::Add, B.n("experts.fc2+b"), {h, b2}, {"Ebch", "Eh"}, "Ebch", 1});
    return B.g.add({K::MatMul, B.n("combine"), {mask, h}, {"bsEc", "Ebch"}, "bsh", 0, "c", "", false, {}, moved});
}

int transformerBlock(TensorGraph& g, int x, const LmShape& m, int i)
{
    g.beginSegment("block" + std::to_string(i));
    Builder B{g, "block" + std::to_string(i) + "."};
    const bool moe = m.moeEvery > 0 && (i + 1) % m.moeEvery == 0;
    auto ffn = [&](int t) { return moe ? moeFfn(B, t, m) : denseFfn(B, t, m); };
    if (m.preNorm) {
        x = B.addT(x, attention(B, B.norm(x, "bsh", m.h, "ln1"), m), "bsh", "res1");
        return B.addT(x, ffn(B.norm(x, "bsh", m.h, "ln2")), "bsh", "res2");
    }
    x = B.norm(B.addT(x, attention(B, x, m), "bsh", "res1"), "bsh", m.h, "ln1");
    return B.norm(B.addT(x, ffn(x), "bsh", "res2"), "bsh", m.h, "ln2");
}

int lookup(Builder& B, int ids, const std::string& idl, int table, const std::string& outl, const std::string& name)
{
    const Tensor& t = B.g.tensors[ids];
    const double rows = t.elements() * double(B.g.tensors[table].shape[1]);
    return B.g.add({K::Embedding, B.n(name), {ids, table}, {idl, "Vh"}, outl, 1, "", "V", false, {}, rows});
}

// Token (+ segment) + position embeddings; returns x[b,s,h] and the token table (tied head).
std::pair<int, int> lmEmbedding(TensorGraph& g, const LmShape& m)
{
    g.beginSegment("embedding");
    Builder B{g, "embedding."};
    const int ids = g.placeholder("tokens", {m.b, m.s});
    const int table = g.parameter("embedding.tokens", {m.vocab, m.h});
    int x = lookup(B, ids, "bs", table, "bsh", "tok");
    const int posIds = g.placeholder("positions", {m.s});
    const int pos = g.parameter("embedding.positions", {m.positions, m.h});
    const int pe = lookup(B, posIds, "s", pos, "sh", "pos");
    x = g.add({K::Add, B.n("add_pos"), {x, pe}, {"bsh", "sh"}, "bsh", 1, "", "", true});
    if (m.typeVocab > 0) {
        const int typeIds = g.placeholder("segment_ids", {m.b, m.s});
        const int types = g.parameter("embedding.segments", {m.typeVocab, m.h});
        x = B.addT(x, lookup(B, typeIds, "bs", types, "bsh", "seg"), "bsh", "add_seg");
    }
    if (m.bert)
        x = B.norm(x, "bsh", m.h, "norm");
    return {x, table};
}

} // namespace

namespace {

// BERT's pre-training head: masked-LM transform, decoder tied to the token table, and the pooler on [CLS]
// (whose sum stands in for the next-sentence classifier, which the layer-level model does not count).
int bertHead(TensorGraph& g, int x, int table, const LmShape& m)
{
    g.beginSegment("head");
    Builder B{g, "head."};
    int t = B.act(B.linear(x, "bsi", m.h, m.h, "transform"), "bso", "gelu");
    t = B.norm(t, "bsh", m.h, "norm");
    int logits = g.add({K::MatMul, "head.decoder", {t, table}, {"bsh", "Vh"}, "bsV", 2});
    const int bias = g.parameter("head.decoder.b", {m.vocab});
    logits = g.add({K::Add, "head.decoder+b", {logits, bias}, {"bsV", "V"}, "bsV", 1, "", "", true});
    const int labels = g.placeholder("labels", {m.b, m.s});
    const int ce = g.add({K::CrossEntropy, "head.loss", {logits, labels}, {"bsV", "bs"}, "", 6, "V"});
    const int cls = g.add({K::Reshape, "head.cls", {x}, {"bsh"}, "bh", 0, "s", "", false, {m.b, m.h}, 0});
    const int pooled = B.act(B.linear(cls, "bi", m.h, m.h, "pooler"), "bo", "tanh");
    const int nsp = g.add({K::SumLoss, "head.pooled_sum", {pooled}, {"bh"}, "", 1, "", "", true});
    return g.add({K::Add, "loss", {ce, nsp}, {"", ""}, "", 1, "", "", true});
}

// GPT-2's head: final norm and the decoder tied to the token table.
int gptHead(TensorGraph& g, int x, int table, const LmShape& m)
{
    g.beginSegment("head");
    Builder B{g, "head."};
    const int t = B.norm(x, "bsh", m.h, "norm");
    const int logits = g.add({K::MatMul, "head.decoder", {t, table}, {"bsh", "Vh"}, "bsV", 2});
    const int labels = g.placeholder("labels", {m.b, m.s});
    return g.add({K::CrossEntropy, "loss", {logits, labels}, {"bsV", "bs"}, "", 6, "V"});
}

// Sequence and head-width dimensions are not sharded (HAP's benchmarks shard batch, hidden, heads, experts
// and vocabulary): it keeps the search space, and the synthesis time, within the paper's.
void fixSequenceLabels(TensorGraph& g)
{
    for (Op& op : g.ops)
        for (char c : std::string("std"))
            if (op.labels().find(c) != std::string::npos && op.fixed.find(c) == std::string::npos)
                op.fixed += c;
}

// Polled once per block: a model of thousands of blocks takes seconds to build (and HAP's time limit
// covers it).
void checkStop(const std::function<bool()>& stopped)
{
    if (stopped && stopped())
        throw CancelledError("hap: stopped while building the tensor program");
}

TensorGraph buildLm(const LmShape& m, const std::function<bool()>& stopped)
{
    TensorGraph g;
    auto [x, table] = lmEmbedding(g, m);
    for (int i = 0; i < m.layers; ++i) {
        checkStop(stopped);
        const size_t ops = g.ops.size(), tensors = g.tensors.size();
        x = transformerBlock(g, x, m, i);
        if (i == 0) { // every block adds as many: room for all at once, not by doubling and copying
            g.ops.reserve(g.ops.size() + (g.ops.size() - ops) * size_t(m.layers) + 64);
            g.tensors.reserve(g.tensors.size() + (g.tensors.size() - tensors) * size_t(m.layers) + 64);
        }
    }
    g.loss = m.bert ? bertHead(g, x, table, m) : gptHead(g, x, table, m);
    fixSequenceLabels(g);
    return g;
}

TensorGraph buildVit(long long b, long long tokens, int layers, const std::function<bool()>& stopped)
{
    const long long h = 768, pixels = 16 * 16 * 3, classes = 1000;
    TensorGraph g;
    g.beginSegment("patch_embedding");
    Builder B{g, "patch_embedding."};
    // Patches as rows (the [CLS] row is zero); the stride-16 convolution is a linear map of each patch.
    const int img = g.placeholder("patches", {b, tokens, pixels});
    int x = B.linear(img, "bsi", pixels, h, "proj");
    const int cls = g.parameter("patch_embedding.cls", {h});
    x = g.add({K::Add, B.n("add_cls"), {x, cls}, {"bsh", "h"}, "bsh", 1, "", "", true});
    const int pos = g.parameter("patch_embedding.positions", {tokens, h});
    x = g.add({K::Add, B.n("add_pos"), {x, pos}, {"bsh", "sh"}, "bsh", 1, "", "", true});
    const LmShape m{b, tokens, h, 12, 3072, 0, 0, 0, 0, 0, 0, layers, false, true};
    for (int i = 0; i < layers; ++i) {
        checkStop(stopped);
        x = transformerBlock(g, x, m, i);
    }
    g.beginSegment("head");
    Builder H{g, "head."};
    x = H.norm(x, "bsh", h, "norm");
    const int c = g.add({K::Reshape, "head.cls", {x}, {"bsh"}, "bh", 0, "s", "", false, {b, h}, 0});
    const int logits = H.linear(c, "bi", h, classes, "classifier");
    const int labels = g.placeholder("labels", {b});
    g.loss = g.add({K::CrossEntropy, "loss", {logits, labels}, {"bo", "b"}, "", 6, "o"});
    fixSequenceLabels(g);
    return g;
}

int convLayer(TensorGraph& g, int x, long long out, bool pool, int idx)
{
    const std::string name = "conv" + std::to_string(idx);
    g.beginSegment(name);
    const Shape in = g.tensors[x].shape; // b, c, h, w
    const int w = g.parameter(name + ".w", {out, in[1], 3, 3});
    const int bias = g.parameter(name + ".b", {out});
    int y = g.add({K::Conv2d, name, {x, w}, {"bchw", "ocij"}, "bohw", 2, "hwij"});
    y = g.add({K::Add, name + "+b", {y, bias}, {"bohw", "o"}, "bohw", 1, "", "", true});
    y = g.add({K::Activation, name + ".relu", {y}, {"bohw"}, "bohw", 1, "hw"});
    if (!pool)
        return y;
    const Shape s = g.tensors[y].shape;
    return g.add({K::Pool,
                  name + ".pool",
                  {y},
                  {"bchw"},
                  "bchw",
                  0,
                  "hw",
                  "",
                  false,
                  {s[0], s[1], s[2] / 2, s[3] / 2},
                  g.tensors[y].elements()});
}

TensorGraph buildVgg19(long long b, long long side, long long classes)
{
    const std::pair<long long, bool> convs[] = {
        {64, false},  {64, true},   {128, false}, {128, true}, {256, false}, {256, false}, {256, false}, {256, true},
        {512, false}, {512, false}, {512, false}, {512, true}, {512, false}, {512, false}, {512, false}, {512, true}};
    TensorGraph g;
    g.beginSegment("conv1");
    int x = g.placeholder("images", {b, 3, side, side});
    int idx = 0;
    for (const auto& [out, pool] : convs)
        x = convLayer(g, x, out, pool, ++idx);
    if (g.tensors[x].shape[2] != 7) // torchvision's adaptive average pool to 7×7 (copies a 1×1 map)
        x = g.add({K::Pool, "avgpool", {x}, {"bchw"}, "bchw", 0, "hw", "", false, {b, 512, 7, 7}, 49.0 * b * 512});
    const Shape s = g.tensors[x].shape;
    const long long flat = s[1] * s[2] * s[3];
    x = g.add({K::Reshape, "flatten", {x}, {"bchw"}, "bc", 0, "hw", "", false, {b, flat}, 0});
    const long long widths[] = {flat, 4096, 4096, classes};
    for (int i = 0; i < 3; ++i) {
        g.beginSegment("fc" + std::to_string(i + 1));
        Builder B{g, "fc" + std::to_string(i + 1)};
        x = B.linear(x, "bi", widths[i], widths[i + 1], "");
        if (i < 2)
            x = B.act(x, "bo", ".relu");
    }
    const int labels = g.placeholder("labels", {b});
    g.loss = g.add({K::CrossEntropy, "loss", {x, labels}, {"bo", "b"}, "", 6, "o"});
    return g;
}

} // namespace

TensorGraph buildMlp(long long batch, const std::vector<long long>& widths)
{
    TensorGraph g;
    g.beginSegment("layer0");
    int x = g.placeholder("x", {batch, widths.at(0)});
    for (size_t i = 0; i + 1 < widths.size(); ++i) {
        if (i > 0)
            g.beginSegment("layer" + std::to_string(i));
        Builder B{g, "layer" + std::to_string(i) + "."};
        x = B.linear(x, "bi", widths[i], widths[i + 1], "fc", false);
        if (i + 2 < widths.size())
            x = B.act(x, "bo", "relu");
    }
    g.loss = g.add({K::SumLoss, "loss", {x}, {"bo"}, "", 1, "", "", true});
    g.check();
    g.generateBackward();
    return g;
}

TensorGraph buildTensorProgram(const ModelSpec& model, long long batch, const std::function<bool()>& stopped)
{
    const ModelArch& a = model.arch;
    TensorGraph g;
    if (a.family == "bert" || a.family == "moe" || a.family == "gpt2") {
        const bool bert = a.family != "gpt2";
        const long long positions = std::max(bert ? 512 : a.sequence, a.sequence);
        const long long moeEvery = a.family == "moe" ? 2 : 0;
        g = buildLm({batch, a.sequence, a.hidden, a.heads, a.ffn, a.vocab, positions, bert ? 2 : 0, a.experts, 2,
                     moeEvery, a.layers, bert, !bert},
                    stopped);
    } else if (a.family == "vit") {
        g = buildVit(batch, a.sequence, a.layers, stopped);
    } else if (a.family == "vgg") {
        g = buildVgg19(batch, a.imageSize > 0 ? a.imageSize : 224, a.classes > 0 ? a.classes : 1000);
    } else {
        throw InfeasibleError("hap: no tensor program for model family '" + a.family +
                              "' (supported: bert, moe, gpt2, vit, vgg)");
    }
    g.check();
    g.generateBackward(stopped);
    return g;
}

} // namespace hetplan::hap
