#pragma once
// Megatron-LM's launch flags as its megatron/training/arguments.py defines and checks them (argument types and
// validate_args): what each flag the megatron-launch export writes means, and the constraint it puts on the
// whole argument set. tst_launch_args checks every export against it.
#include "core/io/exporters.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace hetplan::megatron_flags {

using ArgMap = std::map<std::string, std::string>; // flag → value ("" for a flag without one)

enum class Type { Flag, Int, Float, Text };
struct Rule {
    Type type;
    const char* meaning;
    // The constraint on the whole argument set, given the world size; "" when it holds, else why not.
    std::function<std::string(const ArgMap&, int world)> check = {};
};

inline long long num(const ArgMap& a, const std::string& f, long long fallback = 0)
{
    const auto it = a.find(f);
    return it == a.end() ? fallback : std::stoll(it->second);
}
inline bool has(const ArgMap& a, const std::string& f) { return a.count(f) > 0; }
inline std::string need(bool ok, const std::string& why) { return ok ? "" : why; }
// Megatron's data-parallel size: the ranks left after tensor, pipeline and context parallelism.
inline long long dataParallel(const ArgMap& a, int world)
{
    return world / (num(a, "--tensor-model-parallel-size", 1) * num(a, "--pipeline-model-parallel-size", 1) *
                    num(a, "--context-parallel-size", 1));
}
// Micro-batches per iteration on one data-parallel rank.
inline long long microBatches(const ArgMap& a, int world)
{
    return num(a, "--global-batch-size") / (num(a, "--micro-batch-size") * dataParallel(a, world));
}

inline const std::map<std::string, Rule>& megatronTable()
{
    static const std::map<std::string, Rule> t = {
        {"--tensor-model-parallel-size",
         {Type::Int, "tensor-parallel degree",
          [](const ArgMap& a, int world) {
              const long long model = num(a, "--tensor-model-parallel-size") *
                                      num(a, "--pipeline-model-parallel-size", 1) * num(a, "--context-parallel-size", 1);
              return need(world % model == 0, "world size must be divisible by tp × pp × cp (initialize_model_parallel)");
          }}},
        {"--pipeline-model-parallel-size", {Type::Int, "pipeline stages"}},
        {"--micro-batch-size",
         {Type::Int, "samples per micro-batch per data-parallel rank",
          [](const ArgMap& a, int) { return need(num(a, "--micro-batch-size") > 0, "micro_batch_size > 0"); }}},
        {"--global-batch-size",
         {Type::Int, "samples per iteration",
          [](const ArgMap& a, int world) {
              const long long dp = dataParallel(a, world);
              return need(num(a, "--global-batch-size") % (num(a, "--micro-batch-size") * dp) == 0,
                          "global batch must be a multiple of micro-batch × data-parallel size");
          }}},
        {"--num-layers",
         {Type::Int, "transformer layers",
          [](const ArgMap& a, int) {
              // Without a layout the layers must split evenly over the stages (validate_args).
              if (has(a, "--pipeline-model-parallel-layout"))
                  return std::string();
              return need(num(a, "--num-layers") % num(a, "--pipeline-model-parallel-size", 1) == 0,
                          "layers divisible by the pipeline size");
          }}},
        {"--hidden-size",
         {Type::Int, "hidden size",
          [](const ArgMap& a, int) {
              return need(num(a, "--hidden-size") % num(a, "--num-attention-heads") == 0,
                          "kv_channels = hidden / heads needs heads to divide hidden");
          }}},
        {"--num-attention-heads",
         {Type::Int, "attention heads",
          [](const ArgMap& a, int) {
              return need(num(a, "--num-attention-heads") % num(a, "--tensor-model-parallel-size", 1) == 0,
                          "tp splits the heads");
          }}},
        {"--ffn-hidden-size", {Type::Int, "MLP inner size (4·hidden by default)"}},
        {"--seq-length", {Type::Int, "tokens per sample"}},
        {"--max-position-embeddings",
         {Type::Int, "position table rows (a bound for rotary models)",
          [](const ArgMap& a, int) {
              return need(num(a, "--max-position-embeddings") >= num(a, "--seq-length"),
                          "max_position_embeddings >= seq_length (validate_args)");
          }}},
        {"--swiglu", {Type::Flag, "gated SiLU MLP (three matrices)"}},
        {"--normalization",
         {Type::Text, "LayerNorm or RMSNorm",
          [](const ArgMap& a, int) {
              const std::string v = a.at("--normalization");
              return need(v == "LayerNorm" || v == "RMSNorm", "choices LayerNorm, RMSNorm");
          }}},
        {"--position-embedding-type",
         {Type::Text, "learned_absolute, rope, mrope, relative or none",
          [](const ArgMap& a, int) {
              static const std::set<std::string> c{"learned_absolute", "rope", "mrope", "relative", "none"};
              return need(c.count(a.at("--position-embedding-type")) > 0, "a known position embedding type");
          }}},
        {"--rotary-base",
         {Type::Int, "RoPE frequency base (type int, default 10000)",
          [](const ArgMap& a, int) {
              return need(has(a, "--position-embedding-type") && a.at("--position-embedding-type") == "rope",
                          "only meaningful with rope positions");
          }}},
        {"--disable-bias-linear", {Type::Flag, "no biases in linear layers (add_bias_linear false)"}},
        {"--add-qkv-bias",
         {Type::Flag, "biases on Q/K/V only",
          [](const ArgMap& a, int) {
              // With biases on, validate_args turns add_qkv_bias on anyway: the flag only matters without them.
              return need(has(a, "--disable-bias-linear"), "only meaningful with --disable-bias-linear");
          }}},
        {"--attention-dropout", {Type::Float, "dropout after attention (default 0.1)"}},
        {"--hidden-dropout", {Type::Float, "dropout on hidden states (default 0.1)"}},
        {"--untie-embeddings-and-output-weights", {Type::Flag, "separate output layer"}},
        {"--group-query-attention",
         {Type::Flag, "grouped-query attention",
          [](const ArgMap& a, int) { return need(has(a, "--num-query-groups"), "with --num-query-groups"); }}},
        {"--num-query-groups",
         {Type::Int, "key/value groups",
          [](const ArgMap& a, int) {
              const long long g = num(a, "--num-query-groups");
              if (!has(a, "--group-query-attention"))
                  return std::string("read only with --group-query-attention");
              if (num(a, "--num-attention-heads") % g != 0)
                  return std::string("groups divide the heads");
              return need(g % num(a, "--tensor-model-parallel-size", 1) == 0, "tp splits the groups");
          }}},
        {"--num-experts", {Type::Int, "experts per MoE layer"}},
        {"--moe-ffn-hidden-size",
         {Type::Int, "expert MLP inner size",
          [](const ArgMap& a, int) { return need(has(a, "--num-experts"), "with --num-experts"); }}},
        {"--moe-layer-freq",
         {Type::Text, "N (every N-th layer) or a list of 0/1 per layer",
          [](const ArgMap& a, int) {
              const std::string v = a.at("--moe-layer-freq");
              // _eval_pattern admits digits, commas, brackets, parentheses, + and *; a list has one entry per layer.
              if (v.find_first_not_of("0123456789,[]()+*") != std::string::npos)
                  return std::string("characters _eval_pattern refuses");
              if (v.front() == '[' && long(std::count(v.begin(), v.end(), ',')) + 1 != num(a, "--num-layers"))
                  return std::string("one entry per layer");
              return need(has(a, "--num-experts"), "with --num-experts");
          }}},
        {"--make-vocab-size-divisible-by",
         {Type::Int, "vocabulary padding unit (× tp)",
          [](const ArgMap& a, int) { return need(num(a, "--make-vocab-size-divisible-by") >= 1, "positive"); }}},
        {"--fp16",
         {Type::Flag, "fp16 mixed precision",
          [](const ArgMap& a, int) { return need(!has(a, "--bf16"), "not with --bf16 (validate_args)"); }}},
        {"--bf16", {Type::Flag, "bf16 mixed precision"}},
        {"--use-distributed-optimizer", {Type::Flag, "optimizer states sharded over data-parallel ranks (ZeRO-1)"}},
        {"--recompute-granularity",
         {Type::Text, "full or selective",
          [](const ArgMap& a, int) {
              const std::string v = a.at("--recompute-granularity");
              return need(v == "full" || v == "selective", "choices full, selective");
          }}},
        {"--num-layers-per-virtual-pipeline-stage",
         {Type::Int, "transformer layers per model chunk (interleaved 1F1B)",
          [](const ArgMap& a, int world) {
              const long long pp = num(a, "--pipeline-model-parallel-size", 1), n = num(a, "--num-layers-per-virtual-pipeline-stage");
              if (has(a, "--pipeline-model-parallel-layout"))
                  return std::string("not with a layout (validate_args)");
              // With p2p overlap (the default for interleaving) validate_args wants more than one stage.
              if (pp <= 1)
                  return std::string("interleaving needs pipeline size > 1");
              if (n < 1 || (num(a, "--num-layers") / pp) % n != 0)
                  return std::string("layers per stage divisible by the chunk size");
              // The interleaved schedule walks micro-batches in groups of pp.
              return need(microBatches(a, world) % pp == 0, "micro-batches a multiple of the pipeline size");
          }}},
        {"--recompute-method",
         {Type::Text, "uniform or block",
          [](const ArgMap& a, int) {
              return need(a.at("--recompute-granularity") == "full", "selective recompute takes no method");
          }}},
        {"--recompute-num-layers", {Type::Int, "layers per recompute unit"}},
        {"--sequence-parallel",
         {Type::Flag, "activations split over tp between its regions",
          [](const ArgMap& a, int) {
              return need(num(a, "--tensor-model-parallel-size", 1) > 1, "dropped by validate_args when tp = 1");
          }}},
        {"--pipeline-model-parallel-layout",
         {Type::Text, "layers per stage: E, t, L, '|'",
          [](const ArgMap& a, int world) {
              const std::vector<int> stages = parseMegatronLayout(a.at("--pipeline-model-parallel-layout"));
              long long layers = 0;
              for (int n : stages)
                  layers += n;
              const long long pp = num(a, "--pipeline-model-parallel-size");
              if (long(stages.size()) % pp != 0)
                  return std::string("stage count divisible by the pipeline size (validate_args)");
              // Virtual stages: the interleaved schedule's micro-batch groups.
              if (long(stages.size()) > pp && microBatches(a, world) % pp != 0)
                  return std::string("micro-batches a multiple of the pipeline size with virtual stages");
              return need(layers == num(a, "--num-layers"), "its transformer layers are --num-layers");
          }}},
        {"--context-parallel-size",
         {Type::Int, "ranks splitting each sequence (ring attention)",
          [](const ArgMap& a, int) {
              // get_batch_on_this_cp_rank cuts the sequence into 2·cp chunks (a causal load balance).
              const long long cp = num(a, "--context-parallel-size"), seq = num(a, "--seq-length");
              if (seq % (2 * cp) != 0)
                  return std::string("the sequence splits into 2 × cp chunks");
              // Sequence parallelism then scatters each rank's s/cp tokens over tp.
              return need(!has(a, "--sequence-parallel") || (seq / cp) % num(a, "--tensor-model-parallel-size", 1) == 0,
                          "with sequence parallelism tp divides the s/cp tokens of a rank");
          }}},
        {"--expert-model-parallel-size",
         {Type::Int, "ranks the experts are spread over",
          [](const ArgMap& a, int world) {
              const long long ep = num(a, "--expert-model-parallel-size");
              if (!has(a, "--num-experts") || num(a, "--num-experts") % ep != 0)
                  return std::string("num_experts divisible by the expert-parallel size (validate_args)");
              const long long expertGrid = num(a, "--tensor-model-parallel-size", 1) * ep *
                                           num(a, "--pipeline-model-parallel-size", 1);
              if (world % expertGrid != 0)
                  return std::string("world size divisible by expert tp × ep × pp (initialize_model_parallel)");
              return need(num(a, "--tensor-model-parallel-size", 1) == 1 || has(a, "--sequence-parallel"),
                          "expert and tensor parallelism together need --sequence-parallel (validate_args)");
          }}},
        {"--moe-token-dispatcher-type",
         {Type::Text, "allgather, alltoall or flex",
          [](const ArgMap& a, int) {
              const std::string v = a.at("--moe-token-dispatcher-type");
              if (v != "allgather" && v != "alltoall" && v != "flex")
                  return std::string("choices allgather, alltoall, flex");
              return need(has(a, "--num-experts"), "with --num-experts");
          }}},
        {"--moe-expert-capacity-factor",
         {Type::Float, "tokens per expert over its balanced share (None: dropless)",
          [](const ArgMap& a, int) {
              return need(has(a, "--moe-token-dispatcher-type") && a.at("--moe-token-dispatcher-type") == "alltoall",
                          "a capacity factor needs the alltoall dispatcher (validate_args)");
          }}},
        {"--moe-pad-expert-input-to-capacity",
         {Type::Flag, "pad each expert's input to its capacity",
          [](const ArgMap& a, int) {
              return need(has(a, "--moe-expert-capacity-factor"), "only with --moe-expert-capacity-factor");
          }}},
        // DATA_ARGS and TRAIN_ARGS.
        {"--mock-data", {Type::Flag, "synthetic data"}},
        {"--tokenizer-type", {Type::Text, "tokenizer class"}},
        {"--vocab-size",
         {Type::Int, "NullTokenizer's vocabulary before its end-of-document token",
          [](const ArgMap& a, int) {
              return need(has(a, "--tokenizer-type") && a.at("--tokenizer-type") == "NullTokenizer",
                          "read by the null tokenizer");
          }}},
        {"--train-iters", {Type::Int, "iterations"}},
        {"--lr", {Type::Float, "learning rate"}},
        {"--lr-decay-style", {Type::Text, "constant, linear, cosine, ..."}},
    };
    return t;
}

inline bool parses(Type type, const std::string& v)
{
    try {
        size_t used = 0;
        if (type == Type::Int)
            std::stoll(v, &used);
        else if (type == Type::Float)
            std::stod(v, &used);
        else
            return !v.empty();
        return used == v.size();
    } catch (const std::exception&) {
        return false;
    }
}

// Checks `tokens` against the table; returns the first problem or "".
inline std::string checkMegatron(const std::vector<std::string>& tokens, int world)
{
    const auto& table = megatronTable();
    ArgMap a;
    for (size_t i = 0; i < tokens.size(); ++i) {
        const auto it = table.find(tokens[i]);
        if (it == table.end())
            return "unknown flag " + tokens[i];
        if (it->second.type == Type::Flag) {
            a[tokens[i]] = "";
            continue;
        }
        if (i + 1 >= tokens.size() || !parses(it->second.type, tokens[i + 1]))
            return tokens[i] + " needs a value of its type";
        a[tokens[i]] = tokens[i + 1];
        ++i;
    }
    for (const auto& [flag, value] : a)
        if (const auto& check = table.at(flag).check)
            if (const std::string why = check(a, world); !why.empty())
                return flag + ": " + why;
    return {};
}


} // namespace hetplan::megatron_flags
