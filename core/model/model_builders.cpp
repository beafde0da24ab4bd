// Builders for the bundled example models (the names the CLI and GUI list). Each model is an embedding layer, its
// blocks and a head, sized from the published architecture numbers; see layer_math.h for the per-layer formulas.
//
// Counting rules:
//  * A tied output projection (GPT-2, BERT, OPT, Qwen2-style 0.5b) shares the embedding matrix. Its
//    parameters are counted once, in the embedding layer; the head layer lists only its own extra weights
//    (final norm, projections) but still does the vocabulary product (FLOPs) and reads the matrix
//    (weightBytesMoved). An untied head (Llama 2, TinyLlama) owns its vocab×h matrix.
//  * Learned position tables grow with the sequence when a longer one is requested.
//  * Per-sample sizes are for the model's default sequence unless `sequence` > 0 overrides it.
#include "layer_math.h"
#include "model.h"
#include "model_builders_vision.h"

#include "core/base/errors.h"

#include <algorithm>
#include <functional>
#include <map>

namespace hetplan {

using layers::BlockShape;
using layers::kValueBytes;

namespace {

struct LlmConfig {
    std::string family;
    int layers = 0, hidden = 0, heads = 0, kvHeads = 0, ffn = 0, vocab = 0, sequence = 0;
    int positions = 0; // learned position rows (0 = rotary, nothing stored)
    int typeVocab = 0; // BERT segment embeddings
    int embedDim = 0;  // OPT-350m: token embeddings are narrower than hidden (0 = hidden)
    bool gated = false, linearBias = true, qkvBias = false, layerNorm = true, flash = false;
    bool attentionDropout = true, relu = false; // see BlockShape
    bool tied = true;                        // output projection shares the token embedding matrix
    bool finalNorm = true;                   // a norm before the head
    bool embedNorm = false;                  // BERT's layer norm on the embeddings
    bool bertHead = false;                   // BERT: pooler + masked-LM transform (dense + norm) before the decoder
    int experts = 0, topK = 0, moeEvery = 0; // MoE in every moeEvery-th block (the last of each group)
    int ropeBase = 0;                        // rotary base when positions are rotary
};

LayerSpec embeddingLayer(const LlmConfig& c, double s)
{
    const double h = c.hidden;
    const double e = c.embedDim > 0 ? c.embedDim : h;
    const double positions = c.positions > 0 ? std::max<double>(c.positions, s + (c.family == "opt" ? 2 : 0)) : 0;
    const double projIn = c.embedDim > 0 ? e * h : 0; // OPT project_in (no bias)
    LayerSpec l;
    l.name = "embedding";
    l.kind = LayerKind::Embedding;
    l.params = c.vocab * e + positions * h + c.typeVocab * h + projIn + (c.embedNorm ? 2 * h : 0);
    // Lookups are gathers; the position/segment adds are element-wise. Only project_in is a product.
    l.forwardFlops = 2 * projIn * s + s * h;
    l.outputBytes = kValueBytes * s * h;
    l.inputBytes = 8 * s; // int64 token ids
    l.activationBytesReplicated = s * h /* dropout mask */ + (projIn > 0 ? kValueBytes * s * e : 0);
    l.activationBytesSharded = 0;
    // Rows of the position table plus the projection are read whatever the batch; token rows scale with it.
    l.weightBytesMoved = kValueBytes * (std::min(positions, s) * h + projIn);
    l.tensorParallel = true;                  // vocabulary-parallel embedding (Megatron)
    l.tpAllReduceBytes = kValueBytes * s * h; // sums the partial lookups of the vocabulary shards
    if (projIn > 0)
        l.matmuls.push_back({s, h, e, 1, TpSplit::None, false});
    // Gather the token rows (s·e), read the position rows and add (3·s·h), dropout (2.5·s·h).
    l.memoryBytesReplicated = kValueBytes * (s * e + 5.5 * s * h);
    l.kernels = 5;
    return l;
}

LayerSpec headLayer(const LlmConfig& c, double s)
{
    const double h = c.hidden;
    const double e = c.embedDim > 0 ? c.embedDim : h;
    const double projOut = c.embedDim > 0 ? h * e : 0; // OPT project_out (no bias)
    const double norm = c.finalNorm ? (c.layerNorm ? 2 * h : h) : 0;
    const double vocabMatrix = c.vocab * e;
    double own = norm + projOut + (c.tied ? 0 : vocabMatrix);
    double matmul = vocabMatrix + projOut;
    double extraFlops = 0;
    if (c.bertHead) {
        own += (h * h + h) /* pooler */ + (h * h + h + 2 * h) /* MLM transform + norm */ + c.vocab /* bias */;
        matmul += h * h;        // transform on every token
        extraFlops = 2 * h * h; // pooler on the [CLS] token only
    }
    LayerSpec l;
    l.name = "head";
    l.kind = LayerKind::Head;
    l.params = own;
    l.forwardFlops = 2 * matmul * s + extraFlops;
    l.outputBytes = 0; // the loss; nothing goes to another stage
    l.inputBytes = kValueBytes * s * h;
    // Norm input and product input on every rank; fp32 logits kept for the loss, split over vocab shards.
    l.activationBytesReplicated = 2 * kValueBytes * s * h + (c.bertHead ? 2 * kValueBytes * s * h : 0);
    l.activationBytesSharded = 4 * s * c.vocab;
    l.weightBytesMoved = kValueBytes * (matmul + norm + (c.bertHead ? 2 * h * h : 0));
    l.tensorParallel = true;
    // Backward all-reduces the s×h input gradient (forward only exchanges per-row softmax statistics);
    // counted for both directions as the cost models expect one figure.
    l.tpAllReduceBytes = kValueBytes * s * h;
    if (projOut > 0)
        l.matmuls.push_back({s, e, h, 1, TpSplit::None, false});
    if (c.bertHead)
        l.matmuls.push_back({s, h, h, 1, TpSplit::None, false});
    l.matmuls.push_back({s, double(c.vocab), e, 1, TpSplit::N, false}); // logits, vocabulary-parallel
    // Final norm (2·s·h) and the cross-entropy's read and write of the logits (2·s·vocab values).
    l.memoryBytesReplicated = kValueBytes * 2 * s * h;
    l.memoryBytesSharded = kValueBytes * 2 * s * c.vocab;
    l.kernels = 6;
    return l;
}

ModelSpec buildLlm(const std::string& name, const LlmConfig& c, int sequence)
{
    const double s = sequence > 0 ? sequence : c.sequence;
    ModelSpec m;
    m.name = name;
    m.arch = {c.family, c.layers,  c.hidden, c.heads,   c.ffn,  c.vocab,
              int(s),   c.experts, 2,        c.kvHeads, c.tied, c.embedDim};
    m.arch.ropeBase = c.ropeBase;
    if (c.positions > 0)
        m.arch.positions = int(std::max<double>(c.positions, s + (c.family == "opt" ? 2 : 0)));
    m.arch.qkvBias = c.qkvBias && !c.linearBias;
    BlockShape b;
    b.s = s;
    b.h = c.hidden;
    b.heads = c.heads;
    b.kvHeads = c.kvHeads > 0 ? c.kvHeads : c.heads;
    b.ffn = c.ffn;
    b.gated = c.gated;
    b.linearBias = c.linearBias;
    b.qkvBias = c.qkvBias;
    b.layerNorm = c.layerNorm;
    b.flashAttention = c.flash;
    b.attentionDropout = c.attentionDropout;
    b.reluMlp = c.relu;
    m.layers.push_back(embeddingLayer(c, s));
    for (int i = 0; i < c.layers; ++i) {
        const std::string n = "block" + std::to_string(i);
        const bool moe = c.moeEvery > 0 && (i + 1) % c.moeEvery == 0;
        m.layers.push_back(moe ? layers::moeBlock(n, b, c.experts, c.topK) : layers::transformerBlock(n, b));
    }
    m.layers.push_back(headLayer(c, s));
    return m;
}

LlmConfig gptLike(int layers, int hidden, int heads, int vocab, int sequence, int positions)
{
    LlmConfig c;
    c.family = "gpt2";
    c.layers = layers;
    c.hidden = hidden;
    c.heads = heads;
    c.ffn = 4 * hidden;
    c.vocab = vocab;
    c.sequence = sequence;
    c.positions = positions;
    return c;
}

} // namespace

ModelSpec buildGptModel(const std::string& name, int blocks, int hidden, int heads, int sequence)
{
    if (blocks < 1 || hidden < 1 || heads < 1 || sequence < 1)
        throw InputError(name, "arch", "blocks, hidden size, heads and sequence must be positive");
    if (hidden % heads != 0)
        throw InputError(name, "arch.heads",
                         std::to_string(heads) + " heads do not divide the hidden size " + std::to_string(hidden));
    return buildLlm(name, gptLike(blocks, hidden, heads, 50257, sequence, sequence), sequence);
}

namespace {

LlmConfig llamaLike(int layers, int hidden, int heads, int kvHeads, int ffn, int vocab, int sequence)
{
    LlmConfig c;
    c.family = "llama";
    c.layers = layers;
    c.hidden = hidden;
    c.heads = heads;
    c.kvHeads = kvHeads;
    c.ffn = ffn;
    c.vocab = vocab;
    c.sequence = sequence;
    c.gated = true;
    c.linearBias = false;
    c.layerNorm = false; // RMSNorm
    c.flash = true;
    c.tied = false;
    c.ropeBase = 10000;
    return c;
}

LlmConfig bertBase()
{
    // BERT-base: 12 layers, h 768, 12 heads, ffn 3072, WordPiece vocab 30522, 512 positions, 2 segments.
    LlmConfig c = gptLike(12, 768, 12, 30522, 512, 512);
    c.family = "bert";
    c.typeVocab = 2;
    c.embedNorm = true;
    c.finalNorm = false; // post-norm blocks end with their own norm
    c.bertHead = true;
    return c;
}

using Builder = std::function<ModelSpec(const std::string&, int)>;

const std::vector<std::pair<std::string, Builder>>& registry()
{
    static const std::vector<std::pair<std::string, Builder>> r = {
        // AMP's GPT-2 (Megatron): 24 layers, h 1024, 16 heads, seq 1024, vocab 52256, tied head.
        {"gpt2-amp",
         [](const std::string& n, int s) { return buildLlm(n, gptLike(24, 1024, 16, 52256, 1024, 1024), s); }},
        // GPT-2 XL: 48 layers, h 1600, 25 heads, seq 1024, vocab 50257, tied head (1.558 B parameters).
        {"gpt2-xl",
         [](const std::string& n, int s) { return buildLlm(n, gptLike(48, 1600, 25, 50257, 1024, 1024), s); }},
        {"transgan-amp", [](const std::string& n, int s) { return buildTransGanAmp(n, s); }},
        // Llama 2: SwiGLU, RMSNorm, rotary positions, untied head, vocab 32000, seq 4096.
        {"llama2-7b",
         [](const std::string& n, int s) { return buildLlm(n, llamaLike(32, 4096, 32, 32, 11008, 32000, 4096), s); }},
        {"llama2-13b",
         [](const std::string& n, int s) { return buildLlm(n, llamaLike(40, 5120, 40, 40, 13824, 32000, 4096), s); }},
        {"bert-base", [](const std::string& n, int s) { return buildLlm(n, bertBase(), s); }},
        // HAP's "BERT-Base" (its artifact's RTransformer): 8 layers of BERT-base width on WikiText-2's
        // 33,278-word vocabulary at sequence 128. HAP's decoder is untied (102 Mi parameters); ours keeps
        // BERT's tied decoder (83.9 M), the same compute per token.
        {"bert-hap",
         [](const std::string& n, int s) {
             LlmConfig c = bertBase();
             c.layers = 8;
             c.vocab = 33278;
             c.sequence = 128;
             return buildLlm(n, c, s);
         }},
        {"vit-base", [](const std::string& n, int s) { return buildVitBase(n, s); }},
        {"vgg19", [](const std::string& n, int) { return buildVgg19(n); }},
        // HAP's VGG19 (its Table 1: 133 Mi parameters): CIFAR-10, 32×32 images and 10 classes.
        {"vgg19-cifar", [](const std::string& n, int) { return buildVgg19(n, 32, 10); }},
        // HAP's BERT-MoE: BERT-base with every second FFN replaced by an MoE layer as in GShard; we fix 8
        // experts (HAP scales the count with the devices) and top-2 routing.
        {"bert-moe",
         [](const std::string& n, int s) {
             LlmConfig c = bertBase();
             c.family = "moe";
             c.experts = 8;
             c.topK = 2;
             c.moeEvery = 2;
             return buildLlm(n, c, s);
         }},
        // 0.5 B: the Qwen2-0.5B shape (24 layers, h 896, 14 heads, 2 KV heads, SwiGLU 4864, vocab 151936,
        // Q/K/V biases, tied embeddings; 494 M parameters), trained at seq 2048 like the 1.1 B model.
        {"llama-0.5b",
         [](const std::string& n, int s) {
             LlmConfig c = llamaLike(24, 896, 14, 2, 4864, 151936, 2048);
             c.qkvBias = true;
             c.tied = true;
             c.ropeBase = 1000000; // Qwen2's rope_theta
             return buildLlm(n, c, s);
         }},
        // TinyLlama-1.1B: 22 layers, h 2048, 32 heads, 4 KV heads, SwiGLU 5632, vocab 32000, seq 2048.
        {"llama-1.1b",
         [](const std::string& n, int s) { return buildLlm(n, llamaLike(22, 2048, 32, 4, 5632, 32000, 2048), s); }},
        // OPT-350m: 24 post-norm layers, h 1024, 16 heads, ReLU ffn 4096, vocab 50272, 2048 (+2 offset)
        // learned positions, 512-wide token embeddings with project_in/out, tied head, no final norm.
        {"opt-350m",
         [](const std::string& n, int s) {
             LlmConfig c = gptLike(24, 1024, 16, 50272, 2048, 2050);
             c.family = "opt";
             c.attentionDropout = false; // OPT's attention_dropout is 0.0
             c.relu = true;
             c.embedDim = 512;
             c.finalNorm = false;
             return buildLlm(n, c, s);
         }},
        // GPT-Neo-2.7B (EleutherAI): 32 layers, h 2560, 20 heads, ffn 10240, vocab 50257, 2048 learned
        // positions, tied head. Its local-attention layers mask a full s×s score matrix in the reference
        // implementation, so they cost what global ones do.
        {"gpt-neo-2.7b",
         [](const std::string& n, int s) {
             LlmConfig c = gptLike(32, 2560, 20, 50257, 2048, 2048);
             c.family = "gpt-neo";
             c.attentionDropout = false; // GPT-Neo's attention_dropout is 0
             return buildLlm(n, c, s);
         }},
        // Llama-3-8B: 32 layers, h 4096, 32 heads, 8 KV heads, SwiGLU 14336, vocab 128256, untied, seq 8192.
        // Llama 3 raised the rotary base to 500000.
        {"llama3-8b",
         [](const std::string& n, int s) {
             LlmConfig c = llamaLike(32, 4096, 32, 8, 14336, 128256, 8192);
             c.ropeBase = 500000;
             return buildLlm(n, c, s);
         }},
        // OPT-30B: 48 pre-norm layers, h 7168, 56 heads, ReLU ffn 28672, vocab 50272, 2048 (+2) positions,
        // tied head, a final norm.
        {"opt-30b",
         [](const std::string& n, int s) {
             LlmConfig c = gptLike(48, 7168, 56, 50272, 2048, 2050);
             c.family = "opt";
             c.attentionDropout = false;
             c.relu = true;
             return buildLlm(n, c, s);
         }},
        // Mixtral-8x7B: Mistral-7B's shape (32 layers, h 4096, 32 heads, 8 KV heads, vocab 32000, untied) with
        // every MLP a mixture of 8 SwiGLU experts of 14336, top-2 routing; rotary base 1e6, seq 4096 here.
        {"mixtral-8x7b",
         [](const std::string& n, int s) {
             LlmConfig c = llamaLike(32, 4096, 32, 8, 14336, 32000, 4096);
             c.ropeBase = 1000000;
             c.experts = 8;
             c.topK = 2;
             c.moeEvery = 1;
             return buildLlm(n, c, s);
         }},
    };
    return r;
}

} // namespace

std::vector<std::string> exampleModelNames()
{
    std::vector<std::string> names;
    for (const auto& [name, builder] : registry())
        names.push_back(name);
    return names;
}

ModelSpec buildExampleModel(const std::string& name, int sequence)
{
    if (sequence < 0)
        throw InputError("example:" + name, "sequence", "must not be negative (0 = the model's default)");
    for (const auto& [n, builder] : registry())
        if (n == name)
            return builder(n, sequence);
    std::string known;
    for (const std::string& n : exampleModelNames())
        known += (known.empty() ? "" : ", ") + n;
    throw InputError("example:" + name, "example", "unknown example model '" + name + "' (known: " + known + ")");
}

namespace {

bool hasWork(const LayerSpec& l)
{
    return !l.matmuls.empty() || l.kernels > 0 || l.memoryBytesSharded > 0 || l.memoryBytesReplicated > 0;
}

} // namespace

std::vector<int> deriveMissingWork(ModelSpec& m)
{
    const ModelArch& a = m.arch;
    const bool sized = a.hidden > 0 && a.heads > 0 && a.ffn > 0 && a.sequence > 0 && a.hidden % a.heads == 0 &&
                       a.keyValueHeads() > 0 && a.heads % a.keyValueHeads() == 0;
    const bool llama = a.family == "llama";
    BlockShape b;
    b.s = a.sequence;
    b.h = a.hidden;
    b.heads = a.heads;
    b.kvHeads = a.keyValueHeads();
    b.ffn = a.ffn;
    b.gated = llama;
    b.linearBias = !llama;
    b.qkvBias = a.qkvBias;
    b.layerNorm = !llama;
    b.flashAttention = llama;
    // The families' own configurations: OPT trains without attention dropout and with a ReLU MLP, GPT-Neo
    // without attention dropout.
    b.attentionDropout = a.family != "opt" && a.family != "gpt-neo";
    b.reluMlp = a.family == "opt";
    std::vector<int> left;
    for (int i = 0; i < m.layerCount(); ++i) {
        LayerSpec& l = m.layers[size_t(i)];
        if (hasWork(l))
            continue;
        if (!sized || l.kind != LayerKind::Transformer) {
            left.push_back(i);
            continue;
        }
        layers::addAttentionWork(l, b);
        layers::addMlpWork(l, b);
    }
    return left;
}

} // namespace hetplan
