#pragma once
// The model Megatron-LM builds, in its own terms: the entry script and the arguments (names of its
// megatron/training/arguments.py) that describe a plan's model, what it cannot express, and how many
// parameters the model its arguments describe has (counted after Megatron-core's GPT and BERT modules).
//
// Megatron builds:
// - pretrain_gpt.py: word embedding (padded vocabulary × hidden), learned positions unless rotary, the
//   transformer layers, a final norm and, when untied, an output layer; no biases on either;
// - pretrain_bert.py: the same embedding plus 2 token types (with its sentence-order "binary" head), the
//   layers, a final norm, the LM head (dense h×h with bias and a norm), an output bias over the vocabulary
//   (its weight shared with the embedding), and with the binary head a pooler (h×h + h) and a 2-way
//   classifier (2h + 2);
// - a layer: input norm, Q/K/V (heads·d + 2·groups·d outputs, d = hidden / heads), output projection, MLP
//   norm and MLP (two matrices, three with SwiGLU); biases on every linear unless --disable-bias-linear,
//   then only on Q/K/V with --add-qkv-bias; LayerNorm has weight and bias, RMSNorm a weight;
// - an MoE layer: a router (experts × hidden, no bias) and `experts` MLPs of --moe-ffn-hidden-size;
// - the vocabulary: the tokenizer's size padded up to a multiple of --make-vocab-size-divisible-by × tp.
//   NullTokenizer's size is --vocab-size + 1 (it adds an end-of-document token).
#include "model.h"

#include <string>
#include <vector>

namespace hetplan {

// Why Megatron-LM cannot build `model` at all (empty when it can): layers that are not an embedding,
// transformer/MoE blocks and a head, OPT's projected embedding and ReLU, MoE in BERT, no vocabulary.
std::vector<std::string> megatronModelProblems(const ModelSpec& model);

// "pretrain_bert.py" for the BERT family, "pretrain_gpt.py" otherwise.
std::string megatronEntry(const ModelSpec& model);

// The arguments that make Megatron build `model` for a job of `sequence` tokens: sizes, architecture
// flags, MoE layer pattern and vocabulary padding (--make-vocab-size-divisible-by 1, so only tp pads).
std::vector<std::string> megatronModelArguments(const ModelSpec& model, int sequence);
// The tokenizer arguments for a launch on mock data (GPT: NullTokenizer with --vocab-size vocab − 1, so
// the tokenizer brings exactly the model's vocabulary). BERT trains on a real corpus with its word-piece
// vocabulary file: empty here, the launch script asks for the file.
std::vector<std::string> megatronMockTokenizerArguments(const ModelSpec& model);

// What Megatron builds, by part.
struct MegatronParameterCount {
    double embedding = 0;       // word, position and token-type embeddings
    std::vector<double> layers; // each transformer layer
    double head = 0;            // final norm, untied output layer; BERT: LM head, output bias, pooler, binary head
    double vocabPadding = 0;    // of the above: the rows Megatron adds to the vocabulary (embedding and head)
    double binaryHead = 0;      // of the head: BERT's pooler and sentence-order classifier
    double total() const;
};

// Counts the parameters of the model Megatron builds from `args` (the arguments it knows; others are
// ignored) run through `entry`. `tokenizerVocab` is the tokenizer's vocabulary when the arguments do not
// fix it (only NullTokenizer's is fixed by them: --vocab-size + 1). Throws InputError("megatron-arguments",
// flag, reason) for a missing or bad value.
MegatronParameterCount megatronParameterCount(const std::string& entry, const std::vector<std::string>& args,
                                              long long tokenizerVocab = 0);

// The plan's model next to what Megatron builds from megatronModelArguments with tp-way tensor
// parallelism. `differences` are the stated, accepted ones (vocabulary padding, BERT's binary head and
// norm placement); `mismatch` is non-empty when the counts differ beyond them (then Megatron would train
// another model).
struct MegatronModelMatch {
    MegatronParameterCount megatron;
    double planned = 0;
    std::vector<std::string> differences;
    std::string mismatch;
};
MegatronModelMatch matchMegatronModel(const ModelSpec& model, int sequence, int tp);

} // namespace hetplan
