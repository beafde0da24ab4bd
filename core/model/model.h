#pragma once
// The model to train: an ordered list of layers with the sizes the cost models need.
// All per-sample quantities are for one sample of the model's sequence length.
#include <string>
#include <vector>

namespace hetplan {

enum class LayerKind { Embedding, Transformer, Head, Conv, Linear, MoE, Other };
// The lower-case names used in model JSON and shown in the GUI ("embedding", "transformer", ...).
std::string toString(LayerKind k);
bool parseLayerKind(const std::string& s, LayerKind& out); // false (out untouched) if unknown

// Which dimension of a matrix product tensor parallelism divides: Megatron's column-parallel linears split
// the output columns (N), its row-parallel linears the inner dimension (K), attention splits the heads.
enum class TpSplit { None, N, K, Batch };
std::string toString(TpSplit s);
bool parseTpSplit(const std::string& s, TpSplit& out); // false (out untouched) if unknown

// One matrix product of a layer's forward pass for one sample: `batch` independent (m × k)·(k × n)
// products. The micro-batch stacks rows (m) of a weight product and copies (batch) of an attention one.
struct MatMul {
    double m = 0, n = 0, k = 0;
    double batch = 1;
    TpSplit split = TpSplit::None;
    bool perSampleBatch = false; // the micro-batch multiplies `batch` (attention scores) rather than m
    bool operator==(const MatMul&) const = default;
    double flops() const { return 2 * m * n * k * batch; }
};

struct LayerSpec {
    std::string name;
    LayerKind kind = LayerKind::Other;
    double params = 0;       // parameter count
    double forwardFlops = 0; // FLOP for one sample's forward pass
    double outputBytes = 0;  // activation handed to the next layer per sample (pipeline p2p)
    // Activation memory kept for backward per sample, split as in Korthikanti et al. 2022: the part that
    // tensor parallelism shards (divided by tp) and the part every tp rank keeps in full.
    double activationBytesSharded = 0;
    double activationBytesReplicated = 0;
    double inputBytes = 0;          // stashed layer input per sample (all that full recomputation keeps)
    // The part of activationBytesSharded that belongs to the attention core (scores, softmax output, dropout
    // mask and output): what selective recomputation drops. 0 for FlashAttention, which stores none of it.
    double attentionCoreBytes = 0;
    double weightBytesMoved = 0;    // bytes read from device memory per forward regardless of batch
    bool tensorParallel = true;     // can be split across tp ranks (params/flops divide by tp)
    double tpAllReduceBytes = 0;    // bytes all-reduced per sample in forward when tp > 1 (same in backward)
    double expertAllToAllBytes = 0; // MoE: bytes each sample sends in all-to-all per forward
    // MoE: the parameters of the experts' MLPs (the part of `params` expert parallelism shards) and the FLOP
    // they run per sample's forward (the part a padded capacity scales).
    double expertParams = 0;
    double expertFlops = 0;
    // Attention: the keys and values of one sample's whole sequence, in bytes (2 · s · kv heads · head dim ·
    // 2): what context parallelism's ring passes around, 1/cp of it per step.
    double kvBytes = 0;
    // The work the analytic profile times (core/cost/analytic.h). Without matmuls it falls back to
    // forwardFlops at the device's batch-efficiency curve. Byte counts are for 16-bit values like the rest.
    std::vector<MatMul> matmuls;
    double memoryBytesSharded = 0;    // element-wise traffic per sample that tp divides (softmax, GeLU)
    double memoryBytesReplicated = 0; // element-wise traffic per sample every tp rank does (norms, residuals)
    // Scale, mask, softmax and dropout passes over the attention scores per sample (tp divides them). A fused
    // kernel (FlashAttention) keeps the scores on chip, but only for 16-bit inputs: fp32 jobs pay them.
    double attentionScoreBytes = 0;
    bool fusedAttention = false;
    double kernels = 0; // kernels one forward pass launches
    bool operator==(const LayerSpec&) const = default;
};

struct ModelArch {
    std::string family; // "gpt2", "llama", "bert", "vit", "vgg", "opt", "moe", "transgan", "custom"
    int layers = 0, hidden = 0, heads = 0, ffn = 0, vocab = 0, sequence = 0, experts = 0;
    int bytesPerParam = 2; // fp16/bf16 weights
    int kvHeads = 0;       // key/value heads of grouped-query attention; 0 = heads (plain attention)
    // The output projection shares the word-embedding matrix (GPT-2, OPT, BERT). With pipeline parallelism
    // the stage holding the head keeps its own copy and all-reduces its gradient with the first stage.
    bool tiedEmbeddings = false;
    int embedDim = 0; // width of the word embedding when it differs from hidden (OPT-350m: 512); 0 = hidden
    // Image classifiers (vgg): the input side in pixels and the classes; 0 = ImageNet's 224 and 1000.
    int imageSize = 0, classes = 0;
    // Rotary position embeddings: the base of their frequencies (Llama 2: 10000, Llama 3: 500000, Qwen2:
    // 1000000); 0 = not stated (learned positions, or a rope model that keeps the usual 10000).
    int ropeBase = 0;
    // Rows of a learned position table (GPT-2, BERT, OPT: 2 more than the sequence); 0 = none or not stated.
    int positions = 0;
    // Q, K and V projections carry a bias although the other linears do not (Qwen2).
    bool qkvBias = false;
    // Whether tiedEmbeddings was stated (model JSON `arch.tied_embeddings`) rather than defaulted by the
    // reader. Builders and writers state it; only a file without the field has false here. Last, so
    // aggregate initialisers that list the fields above keep their meaning.
    bool tiedEmbeddingsStated = true;
    bool operator==(const ModelArch&) const = default;
    int keyValueHeads() const { return kvHeads > 0 ? kvHeads : heads; }
    // Parameters of the word-embedding matrix (vocab × embedding width).
    double wordEmbeddingParams() const { return double(vocab) * (embedDim > 0 ? embedDim : hidden); }
};
// The family's convention: the GPT-2/OPT/BERT lines tie their output projection to the word embedding, the
// Llama line (and anything unknown) does not.
bool familyTiesEmbeddings(const std::string& family);

struct ModelSpec {
    std::string name;
    ModelArch arch;
    std::vector<LayerSpec> layers;
    bool operator==(const ModelSpec&) const = default;

    int layerCount() const { return int(layers.size()); }
    double totalParams() const;
    bool hasMoeLayers() const; // some layer is a mixture of experts
    double totalForwardFlops() const;
    // Number of the transformer-like blocks (what Megatron calls "layers").
    int blockCount() const;
    // Parameters of the tied word-embedding copy that a pipeline stage holding layers [first, end) keeps:
    // the word-embedding matrix when the stage holds the head (kind Head) but not the embedding layer and the
    // embeddings are tied, else 0. The model's layer params count the shared matrix once, in the embedding.
    double tiedCopyParams(int first, int end) const;
    // The head layers (kind Head) carry a vocabulary matrix of their own: their parameters are at least the
    // word-embedding matrix's (vocab x embedding width > 0). Such a model's layers count an untied head.
    bool headHoldsVocabularyMatrix() const;
    // What tied_embeddings means when a model file does not say: untied when the head carries its own
    // vocabulary matrix (tying would count that matrix a second time on the head's stage), else the
    // family's convention (familyTiesEmbeddings).
    bool defaultTiedEmbeddings() const;
    void validate(const std::string& file) const;
};

// Model files may give a block's sizes (arch) but not its work list (LayerSpec::matmuls, element-wise bytes,
// kernels), which the analytic profile times. For every transformer block with no work list at all this
// derives it from arch (hidden, heads, kv_heads, ffn, sequence) as the example builders size a block: the
// Llama family as a gated MLP with RMSNorm, no linear biases and FlashAttention, every other family as a
// GeLU MLP with LayerNorm and biases. Its parameters and FLOPs stay the file's. Returns the layers that
// still have no work list (arch too incomplete, or not a transformer block).
std::vector<int> deriveMissingWork(ModelSpec& m);

// Builders for the bundled example models (the names `hetplan-cli list examples` shows). `sequence` 0 = the model's
// default.
std::vector<std::string> exampleModelNames();
ModelSpec buildExampleModel(const std::string& name, int sequence = 0); // throws InputError if unknown
// A GPT-2-style model of any size (learned positions, GELU FFN of 4·hidden, tied head, GPT-2's vocabulary):
// an embedding, `blocks` transformer blocks and a head. Throws InputError for non-positive sizes or a hidden
// size the heads do not divide.
ModelSpec buildGptModel(const std::string& name, int blocks, int hidden, int heads, int sequence);

} // namespace hetplan
