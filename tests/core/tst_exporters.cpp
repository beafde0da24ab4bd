// Exporters: DeepSpeed config, Megatron-LM arguments and layout strings, hostfile and rank table, on
// hand-built plans (the Chrome trace and the export dispatch: tst_chrome_trace).
#include "exporter_fixtures.h"

#include "core/base/errors.h"
#include "core/io/exporters.h"
#include "core/io/schema_validate.h"
#include "core/sim/simulator.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QDir>
#include <QTemporaryDir>
#include <QTest>

#include <map>
#include <random>

using namespace hetplan;
using namespace hetplan::simtest;
using namespace hetplan::exporttest;


class TestExporters : public QObject {
    Q_OBJECT
private slots:
    void deepSpeedPipeline();
    void deepSpeedZero();
    void deepSpeedRefusals();
    void megatronArgumentsUneven();
    void megatronArgumentsEven();
    void megatronRefusals();
    void megatronLayoutParse();
    void megatronLayoutRoundTrip();
    void megatronLayoutErrors();
    void hostfileAndRankTable();
    void launchersRefuseScatteredRanks();
    void frameworkRankOrder();
};

void TestExporters::deepSpeedPipeline()
{
    // 2 replicas × micro-batch 4 × 8 micro-batches: train_batch_size = 4 × 8 × 2 = 64.
    const QJsonObject o = deepSpeedConfig(unevenPlan());
    QCOMPARE(o.value("train_batch_size").toInt(), 64);
    QCOMPARE(o.value("train_micro_batch_size_per_gpu").toInt(), 4);
    QCOMPARE(o.value("gradient_accumulation_steps").toInt(), 8);
    QCOMPARE(o.value("zero_optimization").toObject().value("stage").toInt(), 1);
    QCOMPARE(o.value("fp16").toObject().value("enabled").toBool(), true);
    QVERIFY(!o.contains("bf16"));
    // DeepSpeed's engine takes the stage count, tp and the split from PipelineModule's arguments, so the
    // config's "pipeline" section states none of them; they go to the namespaced "hetplan" section (and the
    // launcher). The section carries only how boundary tensors travel (the job's framework, default
    // megatron-core: whole tensors per tensor-parallel rank, so both partitions off).
    QCOMPARE(o.value("pipeline").toObject(),
             (QJsonObject{{"pipe_partitioned", false}, {"grad_partitioned", false}}));
    const QJsonObject ours = o.value("hetplan").toObject();
    QCOMPARE(ours.value("pipeline_stages").toInt(), 4);
    QCOMPARE(ours.value("tensor_parallel").toInt(), 2);
    QCOMPARE(ours.value("data_parallel").toInt(), 2); // 2 replicas × dp 1
    QCOMPARE(ours.value("layer_boundaries").toArray(), (QJsonArray{0, 11, 17, 25, 34}));
    QVERIFY(ours.value("note").toString().contains("PipelineModule"));
    QVERIFY(ours.value("launcher").toString().contains("deepspeed-launcher"));

    // Data parallelism inside each stage (dp = 2) splits the micro-batch: 2 per GPU, dp size 2 × 2 = 4,
    // still 2 × 8 × 4 = 64 samples.
    const QJsonObject o2 = deepSpeedConfig(unevenPlan(2, 1, 2));
    QCOMPARE(o2.value("train_micro_batch_size_per_gpu").toInt(), 2);
    QCOMPARE(o2.value("train_batch_size").toInt(), 64);
    QCOMPARE(o2.value("hetplan").toObject().value("data_parallel").toInt(), 4);

    // Even stages: the same section (no DeepSpeed key claims to set them).
    Plan even = unevenPlan();
    // Two stages of 17 layers each.
    even.pipelines[0].stages.resize(2);
    even.pipelines[0].stages[0].endLayer = 17;
    even.pipelines[0].stages[1].firstLayer = 17;
    even.pipelines[0].stages[1].endLayer = 34;
    const QJsonObject evenConfig = deepSpeedConfig(even);
    QVERIFY(!evenConfig.value("pipeline").toObject().contains("stages"));
    QVERIFY(!evenConfig.value("pipeline").toObject().contains("partition"));
    QCOMPARE(evenConfig.value("hetplan").toObject().value("layer_boundaries").toArray(), (QJsonArray{0, 17, 34}));
    // One stage with tp 2: the tensor-parallel degree is still stated; tp 1 and one stage: plain data
    // parallelism, nothing of ours.
    Plan single = even;
    single.pipelines[0].stages.resize(1);
    single.pipelines[0].stages[0].endLayer = 34;
    QCOMPARE(deepSpeedConfig(single).value("hetplan").toObject().value("tensor_parallel").toInt(), 2);
    QCOMPARE(deepSpeedConfig(single).value("hetplan").toObject().value("pipeline_stages").toInt(), 1);
    Plan plain = unevenPlan(1, 1, 1);
    plain.pipelines[0].stages.resize(1);
    plain.pipelines[0].stages[0].endLayer = 34;
    QVERIFY(!deepSpeedConfig(plain).contains("hetplan"));

    Plan bf = unevenPlan();
    bf.job.precision = Precision::BF16;
    QVERIFY(deepSpeedConfig(bf).value("bf16").toObject().value("enabled").toBool());
    QVERIFY(!deepSpeedConfig(bf).contains("fp16"));
    bf.job.precision = Precision::FP32;
    QVERIFY(!deepSpeedConfig(bf).contains("bf16") && !deepSpeedConfig(bf).contains("fp16"));
}

void TestExporters::deepSpeedZero()
{
    // 4 GPUs × micro-batch 3 × 2 steps = 24; ZeRO-3 has no pipeline section.
    const QJsonObject o = deepSpeedConfig(zeroPlan(3, true));
    QCOMPARE(o.value("train_batch_size").toInt(), 24);
    QCOMPARE(o.value("train_micro_batch_size_per_gpu").toInt(), 3);
    QCOMPARE(o.value("gradient_accumulation_steps").toInt(), 2);
    QCOMPARE(o.value("zero_optimization").toObject().value("stage").toInt(), 3);
    QVERIFY(!o.contains("pipeline"));
    // Poplar-style different batches: GPUs 0-1 run 3 + 3, GPUs 2-3 run 3 + 1 → global batch 20. DeepSpeed's
    // own numbers must multiply out: gas = 2 (most steps), and 2 × 4 ranks do not divide 20, so micro is
    // rounded up, ⌈20 / 8⌉ = 3, and train_batch_size 24 is nominal (said so, with the correction).
    const QJsonObject het = deepSpeedConfig(zeroPlan(2, false));
    QCOMPARE(het.value("gradient_accumulation_steps").toInt(), 2);
    QCOMPARE(het.value("train_micro_batch_size_per_gpu").toInt(), 3);
    QCOMPARE(het.value("train_batch_size").toInt(), 24);
    QCOMPARE(het.value("hetplan").toObject().value("global_batch_size").toInt(), 20);
    QCOMPARE(het.value("hetplan").toObject().value("train_batch_size_exact").toBool(), false);
    QVERIFY(het.value("hetplan").toObject().value("note").toString().contains("correct_sample_counter"));
    QVERIFY(het.value("hetplan").toObject().value("rank_batches").toString().contains("deepspeed-ranks"));
    // GPUs 0-1 run 3 + 3, GPUs 2-3 run 1 + 1: 16 samples = 2 × 2 steps × 4 ranks, exact.
    Plan exact = zeroPlan(2, false);
    exact.zero->gpus[2] = ZeroGpu{2, 1, 2, 1};
    exact.zero->gpus[3] = ZeroGpu{3, 1, 2, 1};
    exact.job.globalBatchSize = exact.samplesPerIteration();
    QCOMPARE(exact.job.globalBatchSize, 16);
    const QJsonObject ex = deepSpeedConfig(exact);
    QCOMPARE(ex.value("train_batch_size").toInt(), 16);
    QCOMPARE(ex.value("train_micro_batch_size_per_gpu").toInt(), 2);
    QCOMPARE(ex.value("hetplan").toObject().value("train_batch_size_exact").toBool(), true);
    // The rank file: samples 6, 6, 4, 4 at offsets 0, 6, 12, 16 within each global batch.
    const QJsonObject ranks = parseObject(exportPlan(zeroPlan(2, false), "deepspeed-ranks"));
    QCOMPARE(ranks.value("schema").toString(), QString("hetplan.deepspeed-ranks/1"));
    QCOMPARE(ranks.value("global_batch_size").toInt(), 20);
    QCOMPARE(ranks.value("world_size").toInt(), 4);
    const QJsonArray rs = ranks.value("ranks").toArray();
    QCOMPARE(rs.size(), 4);
    const int samples[] = {6, 6, 4, 4}, offsets[] = {0, 6, 12, 16}, last[] = {3, 3, 1, 1};
    for (int r = 0; r < 4; ++r) {
        const QJsonObject o = rs[r].toObject();
        QCOMPARE(o.value("rank").toInt(), r);
        QCOMPARE(o.value("micro_batch_size").toInt(), 3);
        QCOMPARE(o.value("accumulation_steps").toInt(), 2);
        QCOMPARE(o.value("last_micro_batch_size").toInt(), last[r]);
        QCOMPARE(o.value("samples").toInt(), samples[r]);
        QCOMPARE(o.value("sample_offset").toInt(), offsets[r]);
    }
    // ZeRO-2 reduces in every micro-step: ranks with different step counts would hang, so it is refused;
    // ZeRO-1 reduces once per iteration, so the same plan is fine there.
    Plan uneven = zeroPlan(2, false);
    uneven.zero->gpus[3] = ZeroGpu{3, 3, 1, 2};
    uneven.job.globalBatchSize = uneven.samplesPerIteration();
    QVERIFY(refusal([&] { deepSpeedConfig(uneven); }).contains("same number of accumulation steps"));
    uneven.zero->stage = uneven.job.zeroStage = 1;
    QVERIFY(refusal([&] { deepSpeedConfig(uneven); }).isEmpty());
    QCOMPARE(parseObject(exportPlan(uneven, "deepspeed-ranks"))
                 .value("ranks")
                 .toArray()[3]
                 .toObject()
                 .value("samples")
                 .toInt(),
             2);
}

void TestExporters::deepSpeedRefusals()
{
    Plan p = unevenPlan();
    p.job.zeroStage = 2;
    const QString r = refusal([&] { deepSpeedConfig(p); });
    QCOMPARE(r, QString("frameworks.deepspeed: DeepSpeed does not support ZeRO stage ≥2 with pipeline parallelism"));
    p.job.zeroStage = 3;
    QVERIFY(!refusal([&] { deepSpeedConfig(p); }).isEmpty());

    Plan mixed = unevenPlan(1, 1, 1);
    mixed.pipelines[0].stages[2].tensorParallel = 2;
    mixed.pipelines[0].stages[2].gpus.push_back(15);
    QVERIFY(refusal([&] { deepSpeedConfig(mixed); }).contains("one tensor-parallel degree"));

    Plan two = unevenPlan(1, 1, 1);
    Pipeline other = two.pipelines[0];
    other.stages.resize(2);
    other.stages[0].endLayer = other.stages[1].firstLayer = 20;
    other.stages[1].endLayer = 34;
    other.stages[0].gpus = {10};
    other.stages[1].gpus = {11};
    two.pipelines.push_back(other);
    QVERIFY(refusal([&] { deepSpeedConfig(two); }).contains("one pipeline shape"));

    Plan spmd = unevenPlan();
    spmd.pipelines.clear();
    spmd.spmd = SpmdPlan{{"forward"}, {}, {}, {}, {}};
    QVERIFY(refusal([&] { deepSpeedConfig(spmd); }).contains("SPMD"));

    // Identical pipelines are simply more replicas: 2 + 2 replicas × 4 × 8 = 128.
    Plan twins = unevenPlan(2, 1, 1);
    Pipeline copy = twins.pipelines[0];
    for (Stage& s : copy.stages)
        for (int& g : s.gpus)
            g += 8;
    twins.pipelines.push_back(copy);
    QCOMPARE(deepSpeedConfig(twins).value("train_batch_size").toInt(), 128);
}

void TestExporters::megatronArgumentsUneven()
{
    const std::vector<std::string> a = megatronArguments(unevenPlan());
    QCOMPARE(argValue(a, "--tensor-model-parallel-size"), std::string("2"));
    QCOMPARE(argValue(a, "--pipeline-model-parallel-size"), std::string("4"));
    QCOMPARE(argValue(a, "--micro-batch-size"), std::string("4"));
    QCOMPARE(argValue(a, "--global-batch-size"), std::string("64")); // 2 replicas × 4 × 8
    QCOMPARE(argValue(a, "--num-layers"), std::string("32"));
    QCOMPARE(argValue(a, "--hidden-size"), std::string("1024"));
    QCOMPARE(argValue(a, "--num-attention-heads"), std::string("16"));
    QCOMPARE(argValue(a, "--seq-length"), std::string("1024"));
    QCOMPARE(argValue(a, "--pipeline-model-parallel-layout"), std::string("Et*10|t*6|t*8|t*8L"));
    QVERIFY(hasArg(a, "--fp16"));
    QVERIFY(hasArg(a, "--use-distributed-optimizer")); // job ZeRO-1
    QCOMPARE(parseMegatronLayout(argValue(a, "--pipeline-model-parallel-layout")), (std::vector<int>{10, 6, 8, 8}));

    // The script's ARGS array has one argument per element and quotes the layout ('|' and '*' are special).
    const std::string text = megatronLaunchScript(unevenPlan());
    QVERIFY(text.find("\n    --pipeline-model-parallel-layout 'Et*10|t*6|t*8|t*8L'\n") != std::string::npos);
    QVERIFY(text.find("ARGS=(\n    --tensor-model-parallel-size 2\n    --pipeline-model-parallel-size 4\n") !=
            std::string::npos);

    // dp = 2 inside stages: Megatron's micro-batch is per data-parallel rank: 4 / 2 = 2.
    QCOMPARE(argValue(megatronArguments(unevenPlan(2, 1, 2)), "--micro-batch-size"), std::string("2"));
}

void TestExporters::megatronArgumentsEven()
{
    // 4 stages of 8 blocks, embedding with the first, head with the last: [0,9) [9,17) [17,25) [25,34).
    Plan p = unevenPlan();
    const int b[] = {0, 9, 17, 25, 34};
    for (int s = 0; s < 4; ++s) {
        p.pipelines[0].stages[s].firstLayer = b[s];
        p.pipelines[0].stages[s].endLayer = b[s + 1];
    }
    const std::vector<std::string> a = megatronArguments(p);
    QVERIFY(!hasArg(a, "--pipeline-model-parallel-layout"));
    QCOMPARE(argValue(a, "--num-layers"), std::string("32"));
    // ZeRO plan with equal batches: pure data parallelism.
    const std::vector<std::string> z = megatronArguments(zeroPlan(1, true));
    QCOMPARE(argValue(z, "--pipeline-model-parallel-size"), std::string("1"));
    QCOMPARE(argValue(z, "--global-batch-size"), std::string("24"));
    QVERIFY(hasArg(z, "--use-distributed-optimizer"));
}

void TestExporters::megatronRefusals()
{
    Plan mixedDp = unevenPlan(1, 1, 1);
    mixedDp.pipelines[0].stages[1].dataParallel = 2;
    mixedDp.pipelines[0].stages[1].gpus.push_back(15);
    QVERIFY(refusal([&] { megatronArguments(mixedDp); }).contains("one data-parallel degree"));

    Plan two = unevenPlan(1, 1, 1);
    Pipeline other = two.pipelines[0];
    other.microBatches = 4;
    for (Stage& s : other.stages)
        for (int& g : s.gpus)
            g += 8;
    two.pipelines.push_back(other);
    QVERIFY(refusal([&] { megatronArguments(two); }).contains("different"));

    Plan embeddingLate = unevenPlan();
    std::swap(embeddingLate.model.layers[0], embeddingLate.model.layers[20]);
    QVERIFY(refusal([&] { megatronArguments(embeddingLate); }).contains("embedding"));

    Plan conv = unevenPlan();
    conv.model.layers[5].kind = LayerKind::Conv;
    QVERIFY(refusal([&] { megatronArguments(conv); }).contains("is not an embedding, transformer block or head"));

    Plan z2 = unevenPlan();
    z2.job.zeroStage = 2;
    QVERIFY(refusal([&] { megatronArguments(z2); }).contains("ZeRO stage 2 has no Megatron equivalent"));
    QVERIFY(!refusal([] { megatronArguments(zeroPlan(1, false)); }).isEmpty());
}

void TestExporters::megatronLayoutParse()
{
    QCOMPARE(parseMegatronLayout("Et*10|t*6|t*8|t*8L"), (std::vector<int>{10, 6, 8, 8}));
    QCOMPARE(parseMegatronLayout("Ettt|tt|tL"), (std::vector<int>{3, 2, 1}));
    QCOMPARE(parseMegatronLayout("E|t*4|L"), (std::vector<int>{0, 4, 0}));
    QCOMPARE(parseMegatronLayout("Et*2,t|t*3L"), (std::vector<int>{3, 3})); // ',' is cosmetic
    // Megatron's DeepSeek-V3 example (PP16 × VPP2 = 32 stages): embedding + 3, 29 × 2, MTP, loss.
    std::vector<int> expect{3};
    expect.insert(expect.end(), 29, 2);
    expect.insert(expect.end(), {0, 0});
    QCOMPARE(parseMegatronLayout("Et*3|(tt|)*29,m|L"), expect);
    QCOMPARE(parseMegatronLayout("E(t|)*3tL"), (std::vector<int>{1, 1, 1, 1}));
}

void TestExporters::megatronLayoutRoundTrip()
{
    std::mt19937 rng(11);
    for (int trial = 0; trial < 300; ++trial) {
        std::vector<int> perStage(std::uniform_int_distribution<int>(1, 12)(rng));
        for (int& n : perStage)
            n = std::uniform_int_distribution<int>(0, 40)(rng);
        const std::string s = formatMegatronLayout(perStage);
        QCOMPARE(parseMegatronLayout(s), perStage);
    }
    QCOMPARE(formatMegatronLayout({10, 6, 8, 8}), std::string("Et*10|t*6|t*8|t*8L"));
    QCOMPARE(formatMegatronLayout({1, 0, 3}), std::string("Et||t*3L"));
    QCOMPARE(formatMegatronLayout({5}), std::string("Et*5L"));
}

void TestExporters::megatronLayoutErrors()
{
    for (const char* bad : {"t*4|t*4", "Et*4|t*4", "t*4|t*4L", "Et*4|Lt", "EEt|L", "Ex|L", "E(t|t|L", "Et)|L", "Et*|L",
                            "E*2t|L", "E(t|)t|L", "E()*2|L", "E|*3|L", "", "Et*99999999|L"})
        QVERIFY2(!refusal([&] { parseMegatronLayout(bad); }).isEmpty(), bad);
}

void TestExporters::hostfileAndRankTable()
{
    // One replica, tp 1: stages on GPUs 0,1,2,3 of node "a"… put the last stage on node "b".
    Plan p = unevenPlan(1, 1, 1);
    p.pipelines[0].stages[3].gpus = {8};
    QCOMPARE(hostfile(p), std::string("a slots=3\nb slots=1\n"));
    QCOMPARE(rankTable(p), std::string("rank,gpu,host,local_rank\n0,a/0,a,0\n1,a/1,a,1\n2,a/2,a,2\n3,b/0,b,0\n"));
    // 2 replicas × tp 2: 16 ranks, stage-major (Megatron order: tp fastest, then dp, then pp).
    const std::string table = rankTable(unevenPlan());
    QVERIFY(table.find("\n4,a/4,a,4\n") != std::string::npos);
    QCOMPARE(hostfile(unevenPlan()), std::string("a slots=8\nb slots=8\n"));
    // ZeRO: listed order.
    QCOMPARE(hostfile(zeroPlan(0, true)), std::string("a slots=2\nb slots=2\n"));
}

void TestExporters::launchersRefuseScatteredRanks()
{
    // One replica, tp 1: stage s runs on the one GPU listed, so rank s = that GPU. Nodes "a" and "b" have
    // 8 GPUs each; dense index 8 is b/0.
    auto placed = [](std::vector<int> gpus) {
        Plan p = unevenPlan(1, 1, 1);
        for (int s = 0; s < 4; ++s)
            p.pipelines[0].stages[s].gpus = {gpus[s]};
        return p;
    };
    const QString expected = "ranks: ranks are not contiguous per host in local-GPU order; a hostfile cannot "
                             "express this placement — use the rank table (--format ranks)";
    // Ranks 0..3 on a/0, b/0, a/1, b/1: a launcher would give ranks 0, 1 to host a.
    const Plan interleaved = placed({0, 8, 1, 9});
    // a/1 then a/0: the launcher gives local rank 0 (rank 0) GPU 0, not GPU 1.
    const Plan swapped = placed({1, 0, 2, 3});
    // a/0, a/2, a/3, a/4: "a slots=4" would run on a/0..a/3.
    const Plan gap = placed({0, 2, 3, 4});
    for (const Plan* p : {&interleaved, &swapped, &gap}) {
        QCOMPARE(refusal([&] { hostfile(*p); }), expected);
        QCOMPARE(refusal([&] { exportPlan(*p, "hostfile"); }), expected);
        // The rank table states the mapping explicitly, so it still works.
        QCOMPARE(countLines(rankTable(*p)), 5);
    }
    QCOMPARE(rankTable(interleaved),
             std::string("rank,gpu,host,local_rank\n0,a/0,a,0\n1,b/0,b,0\n2,a/1,a,1\n3,b/1,b,1\n"));
    // The Megatron script places ranks itself (one torchrun launch node per run of ranks on one host, each
    // seeing only its GPUs in rank order), so these launch as planned (they used to be refused).
    auto nodesOf = [](const Plan& p) {
        std::string out;
        for (const MegatronLaunchNode& n : megatronLaunchNodes(p)) {
            out += n.host + ":";
            for (int g : n.gpus)
                out += std::to_string(g);
            out += " ";
        }
        return out;
    };
    QCOMPARE(nodesOf(interleaved), std::string("a:0 b:0 a:1 b:1 "));
    QCOMPARE(nodesOf(swapped), std::string("a:1023 "));
    QCOMPARE(nodesOf(gap), std::string("a:0234 "));
    // Runs of 2, 1 and 1 ranks (a/0 a/1 | b/0 | a/2): torchrun takes a different --nproc_per_node on each
    // launch node and numbers ranks node by node (0-1, 2, 3), so they launch as planned.
    const Plan uneven = placed({0, 1, 8, 2});
    QCOMPARE(nodesOf(uneven), std::string("a:01 b:0 a:2 "));
    const std::string unevenScript = megatronLaunchScript(uneven);
    QVERIFY(unevenScript.find("\nNPROC=(2 1 1)\n") != std::string::npos);
    QVERIFY(unevenScript.find("--nproc_per_node \"${NPROC[$NODE_RANK]}\"") != std::string::npos);

    // Host b first, then host a, each in local order: exactly what a launcher does with this hostfile.
    const Plan bFirst = placed({8, 9, 0, 1});
    QCOMPARE(hostfile(bFirst), std::string("b slots=2\na slots=2\n"));
    QVERIFY(refusal([&] { megatronLaunchScript(bFirst); }).isEmpty());
    QCOMPARE(nodesOf(bFirst), std::string("b:01 a:01 "));
}

// Four 2-stage pipelines (layers [0,17) and [17,34)), one GPU per stage: two on host "v" (V100s, pipeline 0
// on v/0 → v/1, pipeline 1 on v/2 → v/3) and two on host "t" (T4s: t/0 → t/1, t/2 → t/3).
Plan fourPipelines()
{
    Cluster c = testCluster({{"V100-16GB", 4}, {"T4", 4}}, 1e11, 1.25e9, 5e-6, 2e-5);
    c.nodes[0].name = "v";
    c.nodes[1].name = "t";
    Job j;
    j.globalBatchSize = 4 * 2 * 4;
    Plan plan = makePlan(c, gptLike(), j, Profile());
    plan.planner = "fixture";
    for (int p = 0; p < 4; ++p)
        plan.pipelines.push_back(makePipeline({0, 17, 34}, {{2 * p}, {2 * p + 1}}, 1, 2, 4));
    return plan;
}

void TestExporters::frameworkRankOrder()
{
    // Megatron (and DeepSpeed's pipe/data/model topology) number ranks tp fastest, then dp, then pp: with
    // pp = 2, dp = 4, tp = 1, rank r runs stage r / 4 of data-parallel replica r % 4. Replica d is pipeline d,
    // so by hand: stage 0 = v/0 v/2 t/0 t/2 (ranks 0-3), stage 1 = v/1 v/3 t/1 t/3 (ranks 4-7).
    const Plan plan = fourPipelines();
    QCOMPARE(rankTable(plan), std::string("rank,gpu,host,local_rank\n"
                                          "0,v/0,v,0\n1,v/2,v,2\n2,t/0,t,0\n3,t/2,t,2\n"
                                          "4,v/1,v,1\n5,v/3,v,3\n6,t/1,t,1\n7,t/3,t,3\n"));
    // A hostfile gives each host one block of ranks in local-GPU order: v would get ranks 0-3 (two of them
    // stage 1 GPUs). Not expressible: refused with the reason.
    QVERIFY(refusal([&] { hostfile(plan); }).startsWith("ranks: ranks are not contiguous per host"));
    // The Megatron script: launch nodes v(0,2) t(0,2) v(1,3) t(1,3), 2 processes each. Replay torchrun:
    // launch node i, local rank k → global rank 2i + k on the k-th visible GPU of its host; every rank must
    // land on the GPU the plan gives its (stage, replica).
    const std::vector<MegatronLaunchNode> nodes = megatronLaunchNodes(plan);
    QCOMPARE(int(nodes.size()), 4);
    for (int i = 0; i < 4; ++i)
        for (int k = 0; k < 2; ++k) {
            const int rank = 2 * i + k;
            const int stage = rank / 4, replica = rank % 4;
            const int planned = plan.pipelines[replica].stages[stage].gpus[0];
            QCOMPARE(plan.cluster.gpuName(planned), nodes[i].host + "/" + std::to_string(nodes[i].gpus[k]));
        }
    const std::string script = megatronLaunchScript(plan);
    QVERIFY(script.find("HOSTS=(v t v t)\n") != std::string::npos);
    QVERIFY(script.find("GPUS=('0,2' '0,2' '1,3' '1,3')\n") != std::string::npos);
    QVERIFY(script.find("NPROC=(2 2 2 2)\n") != std::string::npos);
}

QTEST_GUILESS_MAIN(TestExporters)
#include "tst_exporters.moc"
