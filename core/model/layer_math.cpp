#include "layer_math.h"

#include <algorithm>

namespace hetplan::layers {

namespace {

double kvWidth(const BlockShape& b) { return b.h * b.kvHeads / b.heads; }

// Weights of the attention matrix products: Q and output projections h×h, K and V h×kv.
double attentionMatmul(const BlockShape& b) { return 2 * b.h * b.h + 2 * b.h * kvWidth(b); }
double mlpMatmul(const BlockShape& b) { return (b.gated ? 3 : 2) * b.h * b.ffn; }
double contextLength(const BlockShape& b) { return b.window > 0 ? std::min(b.window, b.s) : b.s; }

// QKᵀ and AV: 2·s·c·h FLOP each.
double scoreFlops(const BlockShape& b) { return 4 * b.s * contextLength(b) * b.h; }

// Sharded attention activations: Q (2sh), K and V (2·s·kv each), attention output (2sh), and either the
// softmax output (2·a·s·c) with, when the probabilities go through dropout, its 1-byte mask and the dropout's
// output (3·a·s·c more), or FlashAttention's fp32 row statistics.
// The attention core's share of it (what selective recomputation drops): the scores' softmax and dropout
// tensors; FlashAttention keeps none of them.
double attentionCoreActivation(const BlockShape& b)
{
    const double perScore = b.attentionDropout ? 5.0 : 2.0;
    return b.flashAttention ? 0 : perScore * b.heads * b.s * contextLength(b);
}

double attentionActivation(const BlockShape& b)
{
    const double qkvo = kValueBytes * (2 * b.s * b.h + 2 * b.s * kvWidth(b));
    const double scores = b.flashAttention ? 4.0 * b.heads * b.s : attentionCoreActivation(b);
    return qkvo + scores;
}

// Sharded MLP activations: GeLU input and output (2 × 2·s·ffn), ReLU's output alone (which is fc2's input),
// or for SwiGLU gate, up and product.
double mlpActivation(const BlockShape& b)
{
    const double tensors = b.gated ? 3 : b.reluMlp ? 1 : 2;
    return tensors * kValueBytes * b.s * b.ffn;
}

LayerSpec common(const std::string& name, const BlockShape& b)
{
    LayerSpec l;
    l.name = name;
    l.outputBytes = kValueBytes * b.s * b.h;
    l.inputBytes = kValueBytes * b.s * b.h;
    // Layer-norm inputs, inputs of QKV and fc1, two dropout masks: 10·s·h bytes on every tp rank.
    l.activationBytesReplicated = 10 * b.s * b.h;
    l.tensorParallel = true;
    // Megatron: one all-reduce after the attention block and one after the MLP, each of the s×h output.
    l.tpAllReduceBytes = 2 * kValueBytes * b.s * b.h;
    // Keys and values of the whole sequence (grouped-query attention keeps kv heads only).
    l.kvBytes = 2 * kValueBytes * b.s * kvWidth(b);
    return l;
}

// Element-wise passes every tp rank makes over s×h values: two layer norms (read + write, 2 values each),
// two residual adds (read 2 + write 1), two dropouts (read + write + a 1-byte mask ≈ 2.5 values).
constexpr double kBlockReplicatedPasses = 2 * 2 + 2 * 3 + 2 * 2.5;
// Unfused kernels of one block's forward: 2 norms, 4 linears, head split/merge copies (3), scale, mask,
// softmax, dropout and the two attention products (6), activation, 2 dropouts, 2 residual adds.
constexpr double kBlockKernels = 20;

} // namespace

void addAttentionWork(LayerSpec& l, const BlockShape& b)
{
    const double kv = kvWidth(b), c = contextLength(b), d = b.h / b.heads;
    l.matmuls.push_back({b.s, b.h + 2 * kv, b.h, 1, TpSplit::N, false});     // Q, K, V projections
    l.matmuls.push_back({b.s, b.h, b.h, 1, TpSplit::K, false});              // output projection
    l.matmuls.push_back({b.s, c, d, double(b.heads), TpSplit::Batch, true}); // Q·Kᵀ per head
    l.matmuls.push_back({b.s, d, c, double(b.heads), TpSplit::Batch, true}); // softmax(S)·V per head
    // Head split and merge copies; the score passes (which FlashAttention fuses away in 16-bit jobs): scale and
    // mask (read + write each... fused as 2), softmax (2), and the probabilities' dropout (read, write and a
    // 1-byte mask: 2.5) when it runs.
    l.memoryBytesSharded += kValueBytes * 4 * b.s * b.h;
    l.attentionScoreBytes += kValueBytes * (b.attentionDropout ? 6.5 : 4.0) * b.heads * b.s * c;
    l.fusedAttention = b.flashAttention;
    l.memoryBytesReplicated += kValueBytes * kBlockReplicatedPasses * b.s * b.h;
    l.kernels += kBlockKernels;
}

void addMlpWork(LayerSpec& l, const BlockShape& b, double tokensShare, int copies)
{
    const double rows = b.s * tokensShare;
    l.matmuls.push_back({rows, (b.gated ? 2 : 1) * b.ffn, b.h, double(copies), TpSplit::N, false}); // fc1 (+gate)
    l.matmuls.push_back({rows, b.h, b.ffn, double(copies), TpSplit::K, false});                     // fc2
    l.memoryBytesSharded += kValueBytes * (b.gated ? 4 : 2) * rows * copies * b.ffn;
}

double attentionParams(const BlockShape& b)
{
    double bias = 0;
    if (b.linearBias)
        bias = 2 * b.h + 2 * kvWidth(b);
    else if (b.qkvBias)
        bias = b.h + 2 * kvWidth(b);
    return attentionMatmul(b) + bias;
}

double mlpParams(const BlockShape& b)
{
    const double bias = b.linearBias ? (b.gated ? 2 * b.ffn + b.h : b.ffn + b.h) : 0;
    return mlpMatmul(b) + bias;
}

double normParams(const BlockShape& b) { return 2 * (b.layerNorm ? 2 * b.h : b.h); }

LayerSpec transformerBlock(const std::string& name, const BlockShape& b)
{
    LayerSpec l = common(name, b);
    l.kind = LayerKind::Transformer;
    l.params = attentionParams(b) + mlpParams(b) + normParams(b);
    l.forwardFlops = 2 * (attentionMatmul(b) + mlpMatmul(b)) * b.s + scoreFlops(b);
    l.activationBytesSharded = attentionActivation(b) + mlpActivation(b);
    l.attentionCoreBytes = attentionCoreActivation(b);
    l.weightBytesMoved = kValueBytes * l.params;
    addAttentionWork(l, b);
    addMlpWork(l, b);
    return l;
}

LayerSpec moeBlock(const std::string& name, const BlockShape& b, int experts, int topK)
{
    LayerSpec l = common(name, b);
    l.kind = LayerKind::MoE;
    const double router = b.h * experts;
    l.params = attentionParams(b) + normParams(b) + router + experts * mlpParams(b);
    // Each token runs through topK expert MLPs plus the router's h×E product.
    l.forwardFlops = 2 * attentionMatmul(b) * b.s + topK * 2 * mlpMatmul(b) * b.s + 2 * router * b.s + scoreFlops(b);
    // topK copies of the expert activations and of the dispatched token buffers; fp32 router probabilities.
    l.activationBytesSharded = attentionActivation(b) + topK * (mlpActivation(b) + kValueBytes * b.s * b.h);
    l.activationBytesReplicated += 4.0 * b.s * experts;
    l.attentionCoreBytes = attentionCoreActivation(b);
    // Every expert's weights are read once per step whatever the batch.
    l.weightBytesMoved = kValueBytes * l.params;
    // Dispatch and combine: each token's hidden vector goes to topK experts and comes back.
    l.expertAllToAllBytes = 2 * topK * kValueBytes * b.s * b.h;
    l.expertParams = experts * mlpParams(b);
    l.expertFlops = topK * 2 * mlpMatmul(b) * b.s;
    // Each expert multiplies the topK/experts share of the tokens routed to it (a grouped product).
    addAttentionWork(l, b);
    l.matmuls.push_back({b.s, double(experts), b.h, 1, TpSplit::None, false}); // router
    addMlpWork(l, b, double(topK) / experts, experts);
    l.kernels += 4; // router softmax, top-k, dispatch, combine
    return l;
}

} // namespace hetplan::layers
