// The framework rules (core/model/frameworks.h) by hand: which tensor-parallel degrees a model's shapes allow,
// what the simulator records for a plan Megatron-LM cannot run, that exporting such a plan is refused with
// the reason, and that planners' search spaces never produce one.
#include "testutil.h"

#include "core/base/errors.h"
#include "core/io/examples.h"
#include "core/io/exporters.h"
#include "core/model/frameworks.h"
#include "core/planners/common/degrees.h"
#include "core/planners/planner.h"
#include "core/sim/simulator.h"

#include <QTest>

using namespace hetplan;

namespace {

// gpt2-amp (16 heads, hidden 1024, FFN 4096) on amp-het-cluster as one 4-stage pipeline of the given tp.
Plan pipelinePlan(int tp, const std::vector<int>& stageGpus)
{
    Plan p;
    p.cluster = exampleCluster("amp-het-cluster"); // 4 nodes × 4 GPUs
    p.model = buildExampleModel("gpt2-amp");       // 26 layers
    p.job.globalBatchSize = 8;
    Pipeline pl;
    pl.microBatchSize = 1;
    pl.microBatches = 8;
    const int bounds[] = {0, 7, 13, 20, 26};
    for (int s = 0; s < 4; ++s) {
        Stage st;
        st.firstLayer = bounds[s];
        st.endLayer = bounds[s + 1];
        st.tensorParallel = tp;
        for (int t = 0; t < tp; ++t)
            st.gpus.push_back(stageGpus[size_t(s) * tp + t]);
        pl.stages.push_back(st);
    }
    p.pipelines.push_back(pl);
    return p;
}

} // namespace

class TestFrameworks : public QObject {
    Q_OBJECT
private slots:
    void tensorDegreesFollowTheModelShapes()
    {
        const ModelSpec gpt = buildExampleModel("gpt2-amp"); // 16 heads, h 1024, FFN 4096
        QVERIFY(tensorParallelProblem(gpt, 8).empty());
        QCOMPARE(tensorParallelProblem(gpt, 5),
                 std::string("tensor-parallel degree 5 does not divide the attention heads (16)"));
        // Qwen2-0.5B shape: 14 heads, 2 KV heads, h 896, FFN 4864. 7 divides the heads but not the KV heads;
        // 4 already fails on the heads, which are checked first.
        const ModelSpec qwen = buildExampleModel("llama-0.5b");
        QCOMPARE(qwen.arch.keyValueHeads(), 2);
        QVERIFY(tensorParallelProblem(qwen, 2).empty());
        QCOMPARE(tensorParallelProblem(qwen, 7),
                 std::string("tensor-parallel degree 7 does not divide the key/value heads (2)"));
        QCOMPARE(tensorParallelProblem(qwen, 4),
                 std::string("tensor-parallel degree 4 does not divide the attention heads (14)"));
        // A model that states no sizes constrains nothing.
        QVERIFY(tensorParallelProblem(test::toyModel(4), 3).empty());
    }

    void allowedDegreesIntersectNodesAndModel()
    {
        // amp-het-cluster: every node has 4 GPUs → {1, 2, 4}; gpt2-amp allows all three.
        QCOMPARE(allowedTensorDegrees(buildExampleModel("gpt2-amp"), exampleCluster("amp-het-cluster")),
                 (std::vector<int>{1, 2, 4}));
        // Nodes of 8: {1, 2, 4, 8}; 14 heads leave {1, 2}.
        const Cluster eight = test::twoNodeCluster("A100-40GB", 8, "A100-40GB", 8);
        QCOMPARE(allowedTensorDegrees(buildExampleModel("llama-0.5b"), eight), (std::vector<int>{1, 2}));
        // Nodes of 5 and 5: only 1 and 5 keep groups in a node; 5 does not divide 16 heads.
        const Cluster five = test::twoNodeCluster("V100-16GB", 5, "V100-16GB", 5);
        QCOMPARE(allowedTensorDegrees(buildExampleModel("gpt2-amp"), five), (std::vector<int>{1}));
        // Across nodes: divisors of 10 up to the largest node (1, 2, 5), minus 5 (heads).
        QCOMPARE(allowedTensorDegrees(buildExampleModel("gpt2-amp"), five, true), (std::vector<int>{1, 2}));
    }

    void validPlanPassesBoth()
    {
        Plan p = pipelinePlan(2, {0, 1, 4, 5, 8, 9, 12, 13});
        const CostModel costs(p.model, p.job, p.profile);
        scorePlan(p, costs);
        QVERIFY(p.estimate.frameworks.at("megatron").ok);
        QVERIFY(p.estimate.frameworks.at("deepspeed").ok);
        QVERIFY(p.estimate.frameworks.at("megatron").reasons.empty());
    }

    void badTensorDegreeIsFlaggedAndNotExported()
    {
        // tp 5 does not split 16 heads (and its groups necessarily span two 4-GPU nodes): the plan still
        // simulates, but both frameworks say no, and the Megatron export is refused with the reason.
        std::vector<int> gpus(20);
        for (int i = 0; i < 16; ++i)
            gpus[i] = i;
        Plan p = pipelinePlan(5, gpus);
        p.pipelines[0].stages.resize(3); // 15 GPUs: stages of 5
        p.pipelines[0].stages[2].endLayer = 26;
        const CostModel costs(p.model, p.job, p.profile);
        scorePlan(p, costs);
        QVERIFY(p.estimate.iterationSeconds > 0);
        const FrameworkVerdict& m = p.estimate.frameworks.at("megatron");
        QVERIFY(!m.ok);
        QVERIFY(std::find(m.reasons.begin(), m.reasons.end(),
                          "tensor-parallel degree 5 does not divide the attention heads (16)") != m.reasons.end());
        QVERIFY(std::any_of(m.reasons.begin(), m.reasons.end(),
                            [](const std::string& r) { return r.find("spans nodes") != std::string::npos; }));
        QVERIFY(!p.estimate.frameworks.at("deepspeed").ok);
        const auto err = test::errorOf([&] { exportPlan(p, "megatron"); });
        QVERIFY(err.has_value());
        QCOMPARE(err->field(), std::string("frameworks.megatron"));
        QVERIFY(err->reason().find("does not divide the attention heads (16)") != std::string::npos);
    }

    void crossNodeGroupIsFlagged()
    {
        // tp 2 with each group split over two nodes (GPU 3 on node 0, GPU 4 on node 1).
        Plan p = pipelinePlan(2, {3, 4, 0, 1, 8, 9, 12, 13});
        const FrameworkVerdict v = checkMegatron(p);
        QVERIFY(!v.ok);
        QCOMPARE(v.reasons.size(), size_t(1));
        QVERIFY(v.reasons[0].find("p3-0/3 and p3-1/0") != std::string::npos);
        FrameworkRules rules;
        rules.crossNodeTensorParallel = true;
        QVERIFY(checkMegatron(p, rules).ok);
    }

    void embeddingAndHeadPlacement()
    {
        Plan p = pipelinePlan(1, {0, 4, 8, 12});
        std::swap(p.model.layers[0], p.model.layers[10]); // the embedding now sits in stage 1
        const FrameworkVerdict v = checkMegatron(p);
        QVERIFY(!v.ok);
        QCOMPARE(v.reasons[0], std::string("Megatron-LM keeps the embedding in the first stage; this plan puts it "
                                           "in stage 1"));
        QVERIFY(checkDeepSpeed(p).ok); // DeepSpeed's PipelineModule takes any layer order
    }

    void mixedVendorsAreRefused()
    {
        // hethub-pair: nv-0 (8 × A100-80GB, NVIDIA) and amd-0 (8 × MI210, AMD). TinyLlama (22 blocks, 24
        // layers) in two stages, [0,12) on nv-0/0 (GPU 0) and [12,24) on amd-0/0 (GPU 8).
        Plan p;
        p.planner = "hand";
        p.cluster = exampleCluster("hethub-pair");
        p.model = buildExampleModel("llama-1.1b");
        p.job.sequenceLength = 2048;
        p.job.globalBatchSize = 8;
        Pipeline pl;
        pl.microBatches = 8;
        Stage a, b;
        a.endLayer = b.firstLayer = 12;
        b.endLayer = 24;
        a.gpus = {0};
        b.gpus = {8};
        pl.stages = {a, b};
        p.pipelines.push_back(pl);
        const std::string why = "the plan's GPUs come from 2 vendors (AMD: MI210; NVIDIA: A100-80GB); a PyTorch "
                                "build runs CUDA with NCCL or ROCm with RCCL, and the two cannot join one "
                                "communicator, so one Megatron-LM job cannot span them";
        QCOMPARE(checkMegatron(p).reasons, std::vector<std::string>{why});
        QVERIFY(!checkDeepSpeed(p).ok);
        QVERIFY(checkDeepSpeed(p).reasons[0].find("one DeepSpeed job cannot span them") != std::string::npos);
        for (const char* format : {"megatron-launch", "deepspeed", "deepspeed-launcher", "hostfile"}) {
            const auto err = test::errorOf([&] { exportPlan(p, format); });
            QVERIFY2(err && err->file() == "plan" && err->reason().find("2 vendors") != std::string::npos, format);
        }
        // The simulator records the verdicts.
        const CostModel costs(p.model, p.job, p.profile);
        scorePlan(p, costs);
        QVERIFY(!p.estimate.frameworks.at("megatron").ok && !p.estimate.frameworks.at("deepspeed").ok);
        // Both stages on nv-0: one vendor, no objection.
        p.pipelines[0].stages[1].gpus = {1};
        QVERIFY(checkMegatron(p).ok);
        QVERIFY(checkDeepSpeed(p).ok);
    }

    void hapPlansDoNotClaimALaunch()
    {
        // An SPMD plan over two GPUs: hetplan writes nothing HAP's runtime starts, so the verdict says so.
        Plan p;
        p.cluster = test::twoNodeCluster("T4", 1, "T4", 1);
        p.model = buildExampleModel("bert-hap");
        SpmdInstruction compute;
        compute.flops = 1e9;
        compute.sharded = true;
        p.spmd = SpmdPlan{{"compute matmul"}, {{0.5, 0.5}}, {compute}, {"all"}, {}};
        const FrameworkVerdict v = checkHapRuntime(p);
        QVERIFY(!v.ok);
        QCOMPARE(v.reasons, std::vector<std::string>{kHapNotLaunchable});
        QVERIFY(std::string(kHapNotLaunchable).find("not launchable") == 0);
        QVERIFY(checkFrameworks(p).count("hap"));
        QVERIFY(test::errorOf([&] { exportPlan(p, "megatron-launch"); })->reason().find("SPMD") != std::string::npos);
    }

    void annealingNeverReturnsAnUnsplittableDegree()
    {
        // Two nodes of 5 GPUs and a 16-head model: before the framework rules, annealing could pick tp = 5.
        PlanRequest req;
        req.cluster = test::twoNodeCluster("V100-32GB", 5, "V100-32GB", 5);
        req.model = buildExampleModel("gpt2-amp");
        req.job.globalBatchSize = 20;
        for (const char* cross : {"false", "true"}) {
            req.options = {{"iterations", "200"}, {"cross_node_tp", cross}};
            Progress progress;
            const Plan p = runPlanner("annealing", req, progress);
            for (const Stage& st : p.pipelines[0].stages)
                QVERIFY2(st.tensorParallel == 1 || st.tensorParallel == 2, cross);
            if (std::string(cross) == "false")
                QVERIFY(p.estimate.frameworks.at("megatron").ok);
        }
    }
};

QTEST_GUILESS_MAIN(TestFrameworks)
#include "tst_frameworks.moc"
