#pragma once
// Per-layer sizes of the building blocks the example-model builders use (internal to core/model).
//
// Conventions (all per sample of `s` tokens, fp16/bf16 = 2 bytes per value):
//  * forwardFlops = 2 × (weights used in matrix products) × tokens + attention scores/context
//    4·s·c·h (QKᵀ and AV, c = keys each query sees: s, or the window size). Element-wise work is ignored.
//  * Activation memory follows Korthikanti et al. 2022 ("Reducing activation recomputation"): per
//    transformer layer with tensor parallel t it is s·h·(10 + 24/t) + 5·a·s²/t bytes. The 10·s·h part
//    (layer-norm inputs, the inputs of the first projections, dropout masks) is replicated on every tp
//    rank; 24·s·h + 5·a·s² is sharded. The 24·s·h splits into Q, K, V (6sh), the attention output (2sh)
//    and the MLP (16sh = 2 × 2·s·ffn for the GeLU input and output). We keep that split but size it with
//    the real K/V width (grouped-query attention) and ffn, a SwiGLU MLP keeping three s·ffn tensors (6·s·ffn).
//  * The analytic profile's work list (LayerSpec::matmuls, memoryBytes*, kernels) follows an unfused
//    PyTorch/Megatron block: Q/K/V, output, fc1 and fc2 products split by tp as Megatron's column/row
//    parallel linears, the two attention products per head, and element-wise passes that each read and
//    write their tensors once: per layer norm, residual add and dropout ~2·s·h values (dropout also writes
//    a 1-byte mask), the activation 2·s·ffn (SwiGLU 4·s·ffn), the head split/merge copies 4·s·h, and on
//    the a·s·c attention scores scale+mask, softmax and dropout (6.5 passes; FlashAttention keeps them on
//    chip, but it exists for 16-bit inputs only, so fp32 jobs pay them).
//  * With FlashAttention (the Llama family, trained with it in practice) the 5·a·s² score tensors are not
//    stored; only the fp32 log-sum-exp per head and row (4·a·s bytes) is.
#include "model.h"

#include <string>

namespace hetplan::layers {

constexpr double kValueBytes = 2; // fp16 / bf16

struct BlockShape {
    double s = 0; // tokens per sample
    double h = 0; // hidden size
    int heads = 1;
    int kvHeads = 1;        // = heads for multi-head attention
    double ffn = 0;         // MLP inner size
    bool gated = false;     // SwiGLU (three ffn×h matrices) instead of a two-matrix GeLU/ReLU MLP
    bool linearBias = true; // every linear layer has a bias (GPT-2, BERT, OPT, ViT)
    bool qkvBias = false;   // only the Q/K/V projections have a bias (Qwen2)
    bool layerNorm = true;  // LayerNorm (weight + bias) rather than RMSNorm (weight only)
    bool flashAttention = false;
    // Dropout on the attention probabilities: GPT-2, BERT and Megatron's default train with p = 0.1. OPT and
    // GPT-Neo set it to 0, and PyTorch's dropout returns its input for p = 0: no mask, no second copy of the
    // probabilities and no pass over them.
    bool attentionDropout = true;
    // A ReLU MLP (OPT): ReLU's backward needs only its output, which fc2 keeps as its input anyway, so the MLP
    // saves one ffn-wide tensor where GeLU saves two (its input and its output).
    bool reluMlp = false;
    double window = 0; // keys per query for windowed attention; 0 = all s tokens
};

// Parameter counts of one block's pieces.
double attentionParams(const BlockShape& b);
double mlpParams(const BlockShape& b);
double normParams(const BlockShape& b); // the block's two norms

// The work of the attention part and of the MLP, as the analytic profile times it (see above).
void addAttentionWork(LayerSpec& l, const BlockShape& b);
void addMlpWork(LayerSpec& l, const BlockShape& b, double tokensShare = 1, int copies = 1);

// A dense transformer block (pre- or post-norm makes no difference to these sizes).
LayerSpec transformerBlock(const std::string& name, const BlockShape& b);
// A block whose MLP is a mixture of `experts` experts, each token routed to `topK` of them (GShard-style).
LayerSpec moeBlock(const std::string& name, const BlockShape& b, int experts, int topK);

} // namespace hetplan::layers
