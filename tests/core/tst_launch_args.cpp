// The exported arguments checked against tables of what each flag or key means to its framework and the
// constraints the framework puts on it, written from Megatron-LM's megatron/training/arguments.py
// (argument definitions and validate_args) and DeepSpeed's config and pipeline modules. Every flag an export
// writes must be in the table, carry a value of the right type (or none), and keep its constraints, for
// each kind of plan: tp = 1 and > 1, even and uneven stages, several pipelines, dp inside stages, Llama
// (RoPE, GQA, SwiGLU), Qwen2 (Q/K/V bias), MoE, BERT, ZeRO with equal and per-GPU batches.
#include "testutil.h"

#include "core/io/examples.h"
#include "core/io/exporters.h"
#include "core/model/frameworks.h"
#include "core/planners/planner.h"
#include "core/model/megatron_model.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QTest>

#include <algorithm>
#include <functional>
#include <map>
#include <set>

using namespace hetplan;

namespace {

// ---------------------------------------------------------------- the plans

// `model` on `cluster` as `replicas` copies of one pipeline with the given stage bounds, each stage tp × dp
// GPUs, GPUs taken in order.
Plan gridPlan(const std::string& cluster, const ModelSpec& model, const std::vector<int>& bounds, int tp, int dp,
              int replicas, int mbs, int microBatches)
{
    Plan p;
    p.planner = "hand";
    p.cluster = exampleCluster(cluster);
    p.model = model;
    p.job.sequenceLength = model.arch.sequence;
    p.job.globalBatchSize = replicas * mbs * microBatches;
    p.job.zeroStage = 1;
    Pipeline pl;
    pl.replicas = replicas;
    pl.microBatchSize = mbs;
    pl.microBatches = microBatches;
    int gpu = 0;
    for (size_t s = 0; s + 1 < bounds.size(); ++s) {
        Stage st;
        st.firstLayer = bounds[s];
        st.endLayer = bounds[s + 1];
        st.tensorParallel = tp;
        st.dataParallel = dp;
        for (int k = 0; k < replicas * tp * dp; ++k)
            st.gpus.push_back(gpu++);
        pl.stages.push_back(st);
    }
    p.pipelines.push_back(pl);
    return p;
}

Plan moeModelPlan()
{
    // gpt2-amp with every second block MoE of 8 experts (71,360,512 parameters each, see tst_megatron_model).
    ModelSpec m = buildExampleModel("gpt2-amp");
    m.arch.experts = 8;
    for (int b = 1; b < 24; b += 2) {
        m.layers[b + 1].kind = LayerKind::MoE;
        m.layers[b + 1].params = 71360512;
    }
    return gridPlan("amp-homogeneous", m, {0, 13, 26}, 2, 1, 2, 2, 4);
}

Plan zeroPlan(bool perGpu)
{
    Plan p;
    p.planner = "hand";
    p.cluster = exampleCluster("poplar-a");
    p.model = buildExampleModel("llama2-7b");
    p.job.sequenceLength = 4096;
    ZeroPlan z;
    z.stage = perGpu ? 2 : 1;
    p.job.zeroStage = z.stage;
    for (int g = 0; g < 4; ++g)
        z.gpus.push_back(ZeroGpu{g, 2, 3, perGpu && g >= 2 ? 1 : 2});
    p.zero = z;
    p.job.globalBatchSize = int(p.samplesPerIteration());
    return p;
}

struct Kind {
    const char* name;
    Plan plan;
};

std::vector<Kind> planKinds()
{
    // amp-het-cluster: 4 nodes × 4 GPUs; gpt2-amp has 26 layers (embedding, 24 blocks, head).
    const ModelSpec gpt = buildExampleModel("gpt2-amp");
    std::vector<Kind> k;
    k.push_back({"tp 1, even", gridPlan("amp-het-cluster", gpt, {0, 7, 13, 19, 26}, 1, 1, 1, 2, 8)});
    k.push_back({"tp 2, uneven", gridPlan("amp-het-cluster", gpt, {0, 11, 18, 26}, 2, 1, 2, 1, 8)});
    k.push_back({"dp inside stages", gridPlan("amp-het-cluster", gpt, {0, 13, 26}, 2, 2, 1, 4, 8)});
    Plan multi = gridPlan("amp-het-cluster", gpt, {0, 13, 26}, 1, 1, 1, 1, 8);
    Pipeline second = multi.pipelines[0];
    for (Stage& s : second.stages)
        for (int& g : s.gpus)
            g += 8;
    multi.pipelines.push_back(second);
    multi.job.globalBatchSize = 16;
    k.push_back({"two pipelines", multi});
    // amp-homogeneous: 4 nodes × 4 T4.
    k.push_back({"llama3 (GQA, RoPE 500000)",
                 gridPlan("amp-homogeneous", buildExampleModel("llama3-8b"), {0, 10, 18, 26, 34}, 4, 1, 1, 1, 8)});
    k.push_back({"qwen2 (Q/K/V bias)", gridPlan("amp-homogeneous", buildExampleModel("llama-0.5b"), {0, 14, 26}, 2, 1, 1, 1, 4)});
    k.push_back({"moe", moeModelPlan()});
    k.push_back({"bert", gridPlan("amp-homogeneous", buildExampleModel("bert-base"), {0, 8, 14}, 4, 1, 1, 8, 4)});
    // Interleaved 1F1B: equal chunks of 3 blocks (a chunk size), and uneven ones (a layout of pp·v stages)
    // with tp 2, sequence parallelism and selective recomputation.
    Plan even = gridPlan("amp-het-cluster", gpt, {0, 7, 13, 19, 26}, 1, 1, 1, 2, 8);
    even.pipelines[0].virtualStages = 2;
    k.push_back({"interleaved, even chunks", even});
    Plan uneven = gridPlan("amp-het-cluster", gpt, {0, 11, 18, 26}, 2, 1, 2, 1, 9);
    uneven.pipelines[0].virtualStages = 2;
    uneven.job.sequenceParallel = true;
    uneven.job.selectiveRecompute = true;
    k.push_back({"interleaved, uneven chunks, sp, selective", uneven});
    k.push_back({"zero, equal batches", zeroPlan(false)});
    k.push_back({"zero, per-GPU batches", zeroPlan(true)});
    return k;
}

// ---------------------------------------------------------------- Megatron-LM's table

using ArgMap = std::map<std::string, std::string>; // flag → value ("" for a flag without one)

enum class Type { Flag, Int, Float, Text };
struct Rule {
    Type type;
    const char* meaning;
    // The constraint on the whole argument set, given the world size; "" when it holds, else why not.
    std::function<std::string(const ArgMap&, int world)> check = {};
};

long long num(const ArgMap& a, const std::string& f, long long fallback = 0)
{
    const auto it = a.find(f);
    return it == a.end() ? fallback : std::stoll(it->second);
}
bool has(const ArgMap& a, const std::string& f) { return a.count(f) > 0; }
std::string need(bool ok, const std::string& why) { return ok ? "" : why; }

const std::map<std::string, Rule>& megatronTable()
{
    static const std::map<std::string, Rule> t = {
        {"--tensor-model-parallel-size",
         {Type::Int, "tensor-parallel degree",
          [](const ArgMap& a, int world) {
              const long long model = num(a, "--tensor-model-parallel-size") * num(a, "--pipeline-model-parallel-size", 1);
              return need(world % model == 0, "world size must be divisible by tp × pp (validate_args)");
          }}},
        {"--pipeline-model-parallel-size", {Type::Int, "pipeline stages"}},
        {"--micro-batch-size",
         {Type::Int, "samples per micro-batch per data-parallel rank",
          [](const ArgMap& a, int) { return need(num(a, "--micro-batch-size") > 0, "micro_batch_size > 0"); }}},
        {"--global-batch-size",
         {Type::Int, "samples per iteration",
          [](const ArgMap& a, int world) {
              const long long dp = world / (num(a, "--tensor-model-parallel-size", 1) *
                                            num(a, "--pipeline-model-parallel-size", 1));
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
              const long long dp = world / (num(a, "--tensor-model-parallel-size", 1) * pp);
              const long long micro = num(a, "--global-batch-size") / (num(a, "--micro-batch-size") * dp);
              return need(micro % pp == 0, "micro-batches a multiple of the pipeline size");
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
              if (long(stages.size()) > pp) { // virtual stages: the interleaved schedule's micro-batch groups
                  const long long dp = world / (num(a, "--tensor-model-parallel-size", 1) * pp);
                  if ((num(a, "--global-batch-size") / (num(a, "--micro-batch-size") * dp)) % pp != 0)
                      return std::string("micro-batches a multiple of the pipeline size with virtual stages");
              }
              return need(layers == num(a, "--num-layers"), "its transformer layers are --num-layers");
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

bool parses(Type type, const std::string& v)
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
std::string checkMegatron(const std::vector<std::string>& tokens, int world)
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

// ---------------------------------------------------------------- DeepSpeed's

// Top-level keys DeepSpeed's config reads that hetplan writes, with their constraints (runtime/config.py:
// the batch triple must multiply out over the data-parallel size; runtime/zero/config.py: stage 0..3;
// fp16 and bf16 exclusive; PipelineEngine: ZeRO-2/3 not with pipeline stages). "hetplan" is ours: DeepSpeed
// reads keys it knows and ignores the rest of the top level. "pipeline" is get_pipeline_config's section
// (runtime/config.py: stages, partition, seed_layers, activation_checkpoint_interval, pipe_partitioned,
// grad_partitioned); hetplan writes only the two booleans, which PipelineEngine reads when the grid has
// model (tensor) parallelism, so only a plan with pipeline stages and tp > 1 carries it.
std::string checkDeepSpeed(const QJsonObject& c, int world)
{
    static const std::set<QString> keys{"train_batch_size", "train_micro_batch_size_per_gpu",
                                        "gradient_accumulation_steps", "zero_optimization", "fp16", "bf16",
                                        "hetplan", "pipeline"};
    for (const QString& k : c.keys())
        if (!keys.count(k))
            return "unknown key " + k.toStdString();
    const QJsonObject ours = c.value("hetplan").toObject();
    const int pp = ours.value("pipeline_stages").toInt(1), tp = ours.value("tensor_parallel").toInt(1);
    if (c.contains("pipeline")) {
        const QJsonObject pipe = c.value("pipeline").toObject();
        for (const QString& k : pipe.keys())
            if ((k != "pipe_partitioned" && k != "grad_partitioned") || !pipe.value(k).isBool())
                return "pipeline." + k.toStdString() + ": only the boolean pipe_partitioned / grad_partitioned";
        if (pp <= 1 || tp <= 1)
            return "pipeline partitioning only means something with pipeline stages and tp > 1";
    }
    const int dp = world / (pp * tp);
    const int micro = c.value("train_micro_batch_size_per_gpu").toInt(), gas = c.value("gradient_accumulation_steps").toInt();
    if (micro < 1 || gas < 1)
        return "micro-batch and accumulation steps are positive";
    if (c.value("train_batch_size").toInt() != micro * gas * dp)
        return "train_batch_size != micro × gas × data-parallel size";
    const int stage = c.value("zero_optimization").toObject().value("stage").toInt(-1);
    if (stage < 0 || stage > 3 || (pp > 1 && stage >= 2))
        return "ZeRO stage 0..3, below 2 with pipeline stages";
    if (c.contains("fp16") && c.contains("bf16"))
        return "fp16 and bf16 both enabled";
    if (c.contains("hetplan") && pp * tp > 1 && ours.value("data_parallel").toInt() != dp)
        return "the stated data-parallel degree is world / (pp × tp)";
    return {};
}

int worldOf(const Plan& p) { return int(p.ranks().size()); }

// The launcher module's constants as DeepSpeed uses them: PipeModelDataParallelTopology(num_pp, num_mp,
// num_dp) spans the world, the config's batch triple is the module's, and PARTS (PipelineModule.parts)
// rises from 0 to the layer count with one boundary more than stages, every stage non-empty.
std::string checkLauncher(const std::string& module, const QJsonObject& config, const Plan& plan)
{
    std::map<std::string, long long> v;
    std::vector<int> parts;
    for (const QString& line : QString::fromStdString(module).split('\n')) {
        static const QRegularExpression constant("^([A-Z_]+) = (-?[0-9]+)  #");
        if (const auto m = constant.match(line); m.hasMatch())
            v[m.captured(1).toStdString()] = m.captured(2).toLongLong();
        if (line.startsWith("PARTS = ("))
            for (const QString& x : line.mid(9).remove(')').split(',', Qt::SkipEmptyParts))
                parts.push_back(x.trimmed().toInt());
    }
    if (v["PIPELINE_STAGES"] * v["TENSOR_PARALLEL"] * v["DATA_PARALLEL"] != worldOf(plan) || v["WORLD_SIZE"] != worldOf(plan))
        return "topology does not span the world";
    if (v["TRAIN_BATCH_SIZE"] != config.value("train_batch_size").toInt() ||
        v["TRAIN_MICRO_BATCH_SIZE_PER_GPU"] != config.value("train_micro_batch_size_per_gpu").toInt() ||
        v["GRADIENT_ACCUMULATION_STEPS"] != config.value("gradient_accumulation_steps").toInt())
        return "batch numbers differ from the config's";
    if (v["GLOBAL_BATCH_SIZE"] != plan.samplesPerIteration())
        return "GLOBAL_BATCH_SIZE is not the plan's";
    if (plan.zero)
        return parts.empty() ? "" : "a ZeRO plan has no partition";
    if (long(parts.size()) != v["PIPELINE_STAGES"] + 1 || parts.front() != 0 || parts.back() != plan.model.layerCount())
        return "PARTS must run from 0 to the layer count, one boundary per stage and one more";
    for (size_t i = 1; i < parts.size(); ++i)
        if (parts[i] <= parts[i - 1])
            return "every stage holds a layer";
    return {};
}

} // namespace

class TestLaunchArgs : public QObject {
    Q_OBJECT
private slots:
    void megatronArgumentsKeepTheirRules()
    {
        int checked = 0;
        for (const Kind& k : planKinds()) {
            std::vector<std::string> tokens;
            try {
                tokens = megatronArguments(k.plan);
            } catch (const InputError& e) {
                QVERIFY2(k.plan.zero && k.plan.zero->stage >= 2, (std::string(k.name) + ": " + e.what()).c_str());
                continue; // ZeRO-2 has no Megatron equivalent
            }
            const std::vector<std::string> data = megatronMockTokenizerArguments(k.plan.model);
            tokens.insert(tokens.end(), data.begin(), data.end());
            if (!data.empty())
                tokens.push_back("--mock-data");
            const std::string why = checkMegatron(tokens, worldOf(k.plan));
            QVERIFY2(why.empty(), (std::string(k.name) + ": " + why).c_str());
            // With tp > 1 the script exports CUDA_DEVICE_MAX_CONNECTIONS=1 (validate_args asserts it).
            const std::string script = megatronLaunchScript(k.plan);
            QVERIFY(script.find("\nexport CUDA_DEVICE_MAX_CONNECTIONS=1\n") != std::string::npos);
            ++checked;
        }
        QCOMPARE(checked, 11);
        // The table catches what it should: tp 3 on 16 GPUs, a layout that drops a layer.
        QVERIFY(!checkMegatron({"--tensor-model-parallel-size", "3", "--pipeline-model-parallel-size", "1"}, 16).empty());
        QVERIFY(!checkMegatron({"--num-layers", "24", "--pipeline-model-parallel-size", "2",
                                "--pipeline-model-parallel-layout", "Et*11|t*12L"},
                               16)
                     .empty());
        QVERIFY(!checkMegatron({"--add-qkv-bias"}, 1).empty());
        // ... and chunks that do not divide the stages, or interleaving on one stage.
        QVERIFY(!checkMegatron({"--num-layers", "24", "--pipeline-model-parallel-size", "4", "--micro-batch-size", "1",
                                "--global-batch-size", "8", "--num-layers-per-virtual-pipeline-stage", "4"},
                               4)
                     .empty());
        QVERIFY(!checkMegatron({"--num-layers", "24", "--pipeline-model-parallel-size", "1", "--micro-batch-size", "1",
                                "--global-batch-size", "8", "--num-layers-per-virtual-pipeline-stage", "2"},
                               1)
                     .empty());
    }

    void interleavedPlansWriteTheirChunks()
    {
        std::map<std::string, Plan> kinds;
        for (const Kind& k : planKinds())
            kinds[k.name] = k.plan;
        const std::vector<std::string> even = megatronArguments(kinds.at("interleaved, even chunks"));
        auto value = [](const std::vector<std::string>& a, const std::string& flag) {
            const auto it = std::find(a.begin(), a.end(), flag);
            return it == a.end() || it + 1 == a.end() ? std::string("(absent)") : *(it + 1);
        };
        QCOMPARE(value(even, "--num-layers-per-virtual-pipeline-stage"), std::string("3"));
        QCOMPARE(value(even, "--pipeline-model-parallel-layout"), std::string("(absent)"));
        // 24 blocks in stages of 10, 7, 7 blocks (the embedding and head aside), 2 chunks each: 5|4|4 then
        // 5|3|3 blocks, virtual stage by virtual stage.
        const std::vector<std::string> uneven = megatronArguments(kinds.at("interleaved, uneven chunks, sp, selective"));
        QCOMPARE(value(uneven, "--pipeline-model-parallel-layout"), std::string("Et*5|t*4|t*4|t*5|t*3|t*3L"));
        QCOMPARE(value(uneven, "--recompute-granularity"), std::string("selective"));
        QVERIFY(std::count(uneven.begin(), uneven.end(), "--sequence-parallel") == 1);
        // DeepSpeed's pipeline engine runs neither.
        for (const char* name : {"interleaved, even chunks", "interleaved, uneven chunks, sp, selective"}) {
            const FrameworkVerdict v = checkFrameworks(kinds.at(name)).at("deepspeed");
            QVERIFY(!v.ok);
            QVERIFY(std::any_of(v.reasons.begin(), v.reasons.end(),
                                [](const std::string& r) { return r.find("interleaved") != std::string::npos; }));
            QVERIFY(checkFrameworks(kinds.at(name)).at("megatron").ok);
        }
    }

    void plannedPlansWithMegatronOptionsKeepTheRules()
    {
        // What the planners choose with Megatron's options on (interleaving, sequence parallelism, the
        // distributed optimizer, recomputation), exported: llama2-13b (bf16, gbs 256) on four 8-GPU A100 40GB
        // and four 8-GPU V100 32GB servers, and gpt2-xl (gbs 128) on Ditto's Ex3.
        Cluster mixed;
        mixed.name = "a100-v100-64";
        for (int i = 0; i < 8; ++i) {
            Node n;
            n.name = (i < 4 ? "a100-" : "v100-") + std::to_string(i % 4);
            n.deviceType = i < 4 ? "A100-40GB" : "V100-32GB";
            n.gpus = 8;
            n.nicBandwidth = 12.5e9;
            mixed.nodes.push_back(n);
        }
        PlanRequest llama;
        llama.cluster = mixed;
        llama.model = buildExampleModel("llama2-13b");
        llama.job.globalBatchSize = 256;
        llama.job.sequenceLength = 4096;
        llama.job.precision = Precision::BF16;
        PlanRequest gpt;
        gpt.cluster = exampleCluster("ditto-ex3");
        gpt.model = buildExampleModel("gpt2-xl");
        gpt.job.globalBatchSize = 128;
        int checked = 0, interleaved = 0, sequenceParallel = 0;
        for (const PlanRequest* req : {&llama, &gpt})
            for (const char* planner : {"amp", "hethub", "metis", "megatron", "uniform"}) {
                Progress progress;
                const Plan plan = runPlanner(planner, *req, progress);
                if (!plan.estimate.frameworks.at("megatron").ok)
                    continue;
                std::vector<std::string> tokens = megatronArguments(plan);
                const std::vector<std::string> data = megatronMockTokenizerArguments(plan.model);
                tokens.insert(tokens.end(), data.begin(), data.end());
                tokens.push_back("--mock-data");
                const std::string why = checkMegatron(tokens, worldOf(plan));
                QVERIFY2(why.empty(), (plan.model.name + " " + planner + ": " + why).c_str());
                interleaved += plan.pipelines[0].virtualStages > 1;
                sequenceParallel += plan.job.sequenceParallel;
                ++checked;
            }
        qInfo("%d plans checked, %d interleaved, %d with sequence parallelism", checked, interleaved, sequenceParallel);
        QVERIFY(checked >= 6);
        QVERIFY(interleaved >= 1);
        QVERIFY(sequenceParallel >= 1);
    }

    void deepSpeedConfigKeepsItsRules()
    {
        int checked = 0;
        for (const Kind& k : planKinds()) {
            if (k.name == std::string("bert") || k.name == std::string("moe"))
                continue; // hetplan does not write the model for DeepSpeed: its layers are the user's
            if (k.plan.pipelines.size() == 1 && k.plan.pipelines[0].virtualStages > 1)
                continue; // Megatron's schedule (interleavedPlansWriteTheirChunks checks DeepSpeed says no)
            const QJsonObject c = deepSpeedConfig(k.plan);
            const std::string why = checkDeepSpeed(c, worldOf(k.plan));
            QVERIFY2(why.empty(), (std::string(k.name) + ": " + why).c_str());
            const std::string launcher = checkLauncher(deepSpeedLauncher(k.plan), c, k.plan);
            QVERIFY2(launcher.empty(), (std::string(k.name) + ": launcher: " + launcher).c_str());
            ++checked;
        }
        QCOMPARE(checked, 8);
    }
};

QTEST_GUILESS_MAIN(TestLaunchArgs)
#include "tst_launch_args.moc"
