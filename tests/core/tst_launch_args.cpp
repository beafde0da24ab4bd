// The exported arguments checked against tables of what each flag or key means to its framework and the
// constraints the framework puts on it, written from Megatron-LM's megatron/training/arguments.py
// (argument definitions and validate_args) and DeepSpeed's config and pipeline modules. Every flag an export
// writes must be in the table, carry a value of the right type (or none), and keep its constraints, for
// each kind of plan: tp = 1 and > 1, even and uneven stages, several pipelines, dp inside stages, Llama
// (RoPE, GQA, SwiGLU), Qwen2 (Q/K/V bias), MoE, BERT, ZeRO with equal and per-GPU batches.
#include "megatron_flag_table.h"
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
using namespace hetplan::megatron_flags;

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
    // Context parallelism: tp 2 × 2 dp ranks per stage forming one cp group (the micro-batch of 2 is each
    // rank's: Megatron's data-parallel size is 8 / (2·2·2) = 1). Expert parallelism: Mixtral's 8 experts over 4
    // replicas (tp 2, so sequence parallelism), with a padded capacity factor.
    Plan cp = gridPlan("amp-het-cluster", gpt, {0, 13, 26}, 2, 2, 1, 2, 8);
    cp.pipelines[0].contextParallel = 2;
    k.push_back({"context parallel 2", cp});
    Plan ep = gridPlan("amp-homogeneous", buildExampleModel("mixtral-8x7b"), {0, 17, 34}, 2, 1, 4, 1, 4);
    ep.pipelines[0].expertParallel = 4;
    ep.job.moeCapacityFactor = 1.25;
    k.push_back({"mixtral, ep 4, capacity 1.25", ep});
    k.push_back({"zero, equal batches", zeroPlan(false)});
    k.push_back({"zero, per-GPU batches", zeroPlan(true)});
    return k;
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
        QCOMPARE(checked, 13);
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

    void contextAndExpertParallelArguments()
    {
        std::map<std::string, Plan> kinds;
        for (const Kind& k : planKinds())
            kinds[k.name] = k.plan;
        auto value = [](const std::vector<std::string>& a, const std::string& flag) {
            const auto it = std::find(a.begin(), a.end(), flag);
            return it == a.end() || it + 1 == a.end() ? std::string("(absent)") : *(it + 1);
        };
        const std::vector<std::string> cp = megatronArguments(kinds.at("context parallel 2"));
        QCOMPARE(value(cp, "--context-parallel-size"), std::string("2"));
        // 2 samples per replica over 2 dp ranks that share them: 2 per rank, 8 micro-batches × 1 × 2 = 16.
        QCOMPARE(value(cp, "--micro-batch-size"), std::string("2"));
        QCOMPARE(value(cp, "--global-batch-size"), std::string("16"));
        const std::vector<std::string> ep = megatronArguments(kinds.at("mixtral, ep 4, capacity 1.25"));
        QCOMPARE(value(ep, "--expert-model-parallel-size"), std::string("4"));
        QCOMPARE(value(ep, "--moe-token-dispatcher-type"), std::string("alltoall"));
        QCOMPARE(value(ep, "--moe-expert-capacity-factor"), std::string("1.25"));
        QCOMPARE(value(ep, "--num-experts"), std::string("8"));
        QVERIFY(std::count(ep.begin(), ep.end(), "--moe-pad-expert-input-to-capacity") == 1);
        QVERIFY(std::count(ep.begin(), ep.end(), "--sequence-parallel") == 1);
        // The table catches: a sequence that does not cut into 2·cp chunks, experts that do not split, a world
        // that tp × pp × cp does not divide.
        QVERIFY(!checkMegatron({"--seq-length", "1026", "--context-parallel-size", "2"}, 2).empty());
        QVERIFY(!checkMegatron({"--num-experts", "8", "--expert-model-parallel-size", "3"}, 3).empty());
        QVERIFY(!checkMegatron({"--tensor-model-parallel-size", "2", "--context-parallel-size", "3"}, 8).empty());
        for (const char* name : {"context parallel 2", "mixtral, ep 4, capacity 1.25"}) {
            QVERIFY(checkFrameworks(kinds.at(name)).at("megatron").ok);
            QVERIFY(!checkFrameworks(kinds.at(name)).at("deepspeed").ok);
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
        int checked = 0, interleaved = 0, sequenceParallel = 0, contextParallel = 0;
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
                contextParallel += plan.pipelines[0].contextParallel > 1;
                ++checked;
            }
        // Mixtral-8x7B as the megatron baseline plans it there, with its experts over 2 ranks and a padded
        // capacity factor: the expert flags keep their rules too.
        PlanRequest mixtral = llama;
        mixtral.model = buildExampleModel("mixtral-8x7b");
        Progress progress;
        Plan moe = runPlanner("megatron", mixtral, progress);
        for (Pipeline& pl : moe.pipelines)
            pl.expertParallel = 2;
        moe.job.moeCapacityFactor = 1.25;
        moe.validate("plan");
        QVERIFY(checkFrameworks(moe).at("megatron").ok);
        std::vector<std::string> tokens = megatronArguments(moe);
        const std::vector<std::string> data = megatronMockTokenizerArguments(moe.model);
        tokens.insert(tokens.end(), data.begin(), data.end());
        tokens.push_back("--mock-data");
        QVERIFY(std::count(tokens.begin(), tokens.end(), "--expert-model-parallel-size") == 1);
        const std::string why = checkMegatron(tokens, worldOf(moe));
        QVERIFY2(why.empty(), ("mixtral megatron ep 2: " + why).c_str());
        qInfo("%d plans checked, %d interleaved, %d with sequence parallelism, %d with context parallelism", checked,
              interleaved, sequenceParallel, contextParallel);
        QVERIFY(checked >= 6);
        QVERIFY(interleaved >= 1);
        QVERIFY(sequenceParallel >= 1);
        QVERIFY(contextParallel >= 1);
    }

    void deepSpeedConfigKeepsItsRules()
    {
        int checked = 0;
        for (const Kind& k : planKinds()) {
            if (k.name == std::string("bert") || k.plan.model.hasMoeLayers())
                continue; // hetplan does not write the model for DeepSpeed: its layers are the user's
            if (k.plan.pipelines.size() == 1 && k.plan.pipelines[0].contextParallel > 1)
                continue; // Megatron's (contextAndExpertParallelArguments checks DeepSpeed says no)
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
