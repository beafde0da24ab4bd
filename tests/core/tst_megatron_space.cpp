// Megatron's options beside the papers' degrees: sequence parallelism and selective recomputation in the
// memory and time models (hand-computed), the job variants a planner is run with, the best interleaving of a
// plan, and the search through runPlanner (never worse than the paper's space, recorded in the plan).
#include "example_request.h"
#include "simfixtures.h"

#include "core/base/errors.h"
#include "core/cost/analytic.h"
#include "core/cost/memory.h"
#include "core/planners/megatron_space.h"
#include "core/sim/simulator.h"

#include <QJsonArray>
#include <QTest>

#include <set>

using namespace hetplan;
using namespace hetplan::simtest;

namespace {

LayerSpec handLayer()
{
    LayerSpec l;
    l.kind = LayerKind::Transformer;
    l.activationBytesSharded = 8e6;
    l.activationBytesReplicated = 4e6;
    l.attentionCoreBytes = 2e6;
    l.inputBytes = 1e6;
    return l;
}

// `r` with the six families set to `on` (the rest of a planner's options at their defaults).
PlanRequest families(PlanRequest r, bool on)
{
    for (const char* k : kMegatronSpaceFamilies)
        r.options[k] = on ? "true" : "false";
    return r;
}

} // namespace

class TestMegatronSpace : public QObject {
    Q_OBJECT
private slots:
    void sequenceParallelSplitsTheReplicatedActivations()
    {
        // tp 2: 8e6 / 2 sharded + 4e6 replicated = 8e6; sequence parallelism splits the 4e6 too: 6e6.
        const LayerSpec l = handLayer();
        Job job;
        QCOMPARE(layerActivation(l, 2, 1, job, false).full, 8e6);
        QCOMPARE(layerActivation(l, 2, 1, job, true).full, 6e6);
        QCOMPARE(layerActivation(l, 2, 1, job, true).kept, 6e6);
        // Through the job: Megatron turns sequence parallelism off at tp 1.
        ModelSpec m = testModel(1);
        m.layers[0] = handLayer();
        job.sequenceParallel = true;
        QCOMPARE(stageActivations(m, 0, 1, 2, 1, job).perMicroBatch, 6e6);
        QCOMPARE(stageActivations(m, 0, 1, 1, 1, job).perMicroBatch, 12e6);
    }

    void selectiveRecomputeDropsTheAttentionCore()
    {
        // Kept: 8e6 less the attention core's 2e6 / tp 2 = 7e6; the layer's full 8e6 still sizes the reserve.
        // Full recomputation keeps the 1e6 input and one layer's full activations per stage.
        ModelSpec m = testModel(1);
        m.layers[0] = handLayer();
        Job job;
        job.selectiveRecompute = true;
        const StageActivations s = stageActivations(m, 0, 1, 2, 1, job);
        QCOMPARE(s.perMicroBatch, 7e6);
        QCOMPARE(s.largestLayer, 8e6);
        QCOMPARE(s.oncePerStage, 0.0);
        job.selectiveRecompute = false;
        job.recompute = true;
        const StageActivations f = stageActivations(m, 0, 1, 2, 1, job);
        QCOMPARE(f.perMicroBatch, 1e6);
        QCOMPARE(f.oncePerStage, 8e6);
        // With sequence parallelism the stashed input is split along the sequence too: 1e6 / 2.
        QCOMPARE(layerActivation(handLayer(), 2, 1, job, true).kept, 0.5e6);
        // The builders: GPT-2 keeps the softmax output (2 bytes) and its dropout mask and output (3) per score,
        // 5·a·s²; FlashAttention (Llama) keeps none of them.
        const ModelSpec gpt = buildExampleModel("gpt2-amp");
        const double a = gpt.arch.heads, seq = gpt.arch.sequence;
        QCOMPARE(gpt.layers[1].attentionCoreBytes, 5 * a * seq * seq);
        QCOMPARE(buildExampleModel("llama2-7b").layers[1].attentionCoreBytes, 0.0);
        Job both;
        both.recompute = both.selectiveRecompute = true;
        QVERIFY_THROWS_EXCEPTION(InputError, both.validate("job"));
    }

    void selectiveRecomputeRunsTheAttentionCoreAgain()
    {
        // One layer: a per-head score product (2 × 128 × 128 × 64 per head, 16 heads, per sample) and a
        // 1e8-byte weight product; 4e6 bytes of score passes. The core is the score product and the passes.
        const DeviceType& d = *DeviceCatalog::builtin().find("V100-16GB");
        LayerSpec l;
        l.kind = LayerKind::Transformer;
        l.matmuls.push_back({128, 128, 64, 16, TpSplit::Batch, true});
        l.matmuls.push_back({128, 4096, 4096, 1, TpSplit::N, false});
        l.attentionScoreBytes = 4e6;
        Job job;
        const double core = matmulTime(d, job.precision, 128, 128, 64, 16 * 2, job.tf32) + memoryTime(d, 4e6 * 2);
        QVERIFY(std::abs(attentionCoreSeconds(l, d, 1, 2, job) - core) < 1e-15);
        const LayerTiming plain = analyticLayerTiming(l, d, 1, 2, job);
        job.selectiveRecompute = true;
        const LayerTiming selective = analyticLayerTiming(l, d, 1, 2, job);
        QVERIFY(std::abs(selective.backward - plain.backward - core) < 1e-15);
        QCOMPARE(selective.forward, plain.forward);
        QVERIFY(core < plain.forward);
        // A measured time (forward 1, backward 2) gets the core's analytic share of its forward.
        ModelSpec m = testModel(1);
        m.layers[0] = l;
        Profile prof;
        setTimes(prof, "V100-16GB", 1, 2, {1.0}, {2.0});
        const LayerTiming measured = CostModel(m, job, prof).layer(0, "V100-16GB", 1, 2);
        QVERIFY(std::abs(measured.backward - (2.0 + core / plain.forward)) < 1e-12);
    }

    void sequenceParallelPaysTwoCallsPerCollective()
    {
        // A ring reduce-scatter plus an all-gather moves what an all-reduce moves, in as many steps: the
        // difference is one more call per collective, two collectives per pass.
        const DeviceType& d = *DeviceCatalog::builtin().find("A100-40GB");
        LayerSpec l;
        l.tensorParallel = true;
        l.tpAllReduceBytes = 8e6;
        const LinkParams link{1e11, 5e-6};
        const double ar = tpAllReduceSeconds(l, d, 4, 2, Job{}, link, false);
        const double sp = tpAllReduceSeconds(l, d, 4, 2, Job{}, link, true);
        QVERIFY(std::abs(sp - ar - kTpAllReducesPerPass * collectiveCallSeconds(d)) < 1e-15);
    }

    void jobVariantsStartWithTheRequestsOwn()
    {
        PlanRequest r = families(test::exampleRequest("amp-het-cluster", "gpt2-amp", 32), true);
        std::vector<Job> jobs = megatronJobVariants(r);
        QCOMPARE(int(jobs.size()), 3 * 2 * 2); // recompute none/selective/full × ZeRO 0/1 × sp off/on
        QVERIFY(jobs.front() == r.job);
        std::set<std::tuple<bool, bool, int, bool>> distinct;
        for (const Job& j : jobs) {
            distinct.insert({j.recompute, j.selectiveRecompute, j.zeroStage, j.sequenceParallel});
            QVERIFY(!(j.recompute && j.selectiveRecompute));
        }
        QCOMPARE(int(distinct.size()), 12);
        // Planned with: its own job, then the most memory-saving job for each recomputation choice.
        const std::vector<Job> replan = megatronReplanJobs(r);
        QCOMPARE(int(replan.size()), 3);
        QVERIFY(replan[0] == r.job);
        QVERIFY(replan[1].selectiveRecompute && replan[1].sequenceParallel && replan[1].zeroStage == 1);
        QVERIFY(replan[2].recompute && replan[2].sequenceParallel && replan[2].zeroStage == 1);
        QCOMPARE(int(megatronJobVariants(families(r, false)).size()), 1);
        QCOMPARE(int(megatronReplanJobs(families(r, false)).size()), 1);
        // DeepSpeed's pipeline engine: no sequence parallelism, no selective recomputation.
        PlanRequest ds = r;
        ds.job.framework = Framework::DeepSpeedPipe;
        jobs = megatronJobVariants(ds);
        QCOMPARE(int(jobs.size()), 2 * 2);
        for (const Job& j : jobs)
            QVERIFY(!j.sequenceParallel && !j.selectiveRecompute);
        // What the job turns on stays on: ZeRO-2 (no distributed-optimizer variant), full recomputation.
        PlanRequest set = r;
        set.job.zeroStage = 2;
        set.job.recompute = true;
        jobs = megatronJobVariants(set);
        QCOMPARE(int(jobs.size()), 2); // sequence parallelism off and on
        for (const Job& j : jobs)
            QVERIFY(j.zeroStage == 2 && j.recompute);
        // One GPU per node: no tensor parallelism, so no sequence parallelism to try.
        PlanRequest single = r;
        single.cluster = exampleCluster("ditto-ex3");
        for (Node& n : single.cluster.nodes)
            n.gpus = 1;
        for (const Job& j : megatronJobVariants(single))
            QVERIFY(!j.sequenceParallel);
    }

    void interleaveBestTakesTheSmallerBubble()
    {
        // 4 stages of two one-second layers, 8 micro-batches, free links: 1F1B takes (8 + 3)·4 = 44 s, two
        // chunks (8 + 1.5)·4 = 38 s; four chunks would need four layers per stage.
        Cluster c = testCluster({{"TestA", 4}}, 1e300, 1e300);
        Profile prof;
        setTimes(prof, "TestA", 1, 1, std::vector<double>(8, 1.0), std::vector<double>(8, 1.0));
        Job j;
        j.globalBatchSize = 8;
        Plan plan = makePlan(c, testModel(8), j, prof);
        plan.pipelines.push_back(makePipeline({0, 2, 4, 6, 8}, {{0}, {1}, {2}, {3}}, 1, 1, 8));
        const CostModel costs(plan.model, plan.job, prof, testCatalog());
        scorePlan(plan, costs);
        QCOMPARE(plan.estimate.iterationSeconds, 44.0);
        interleaveBest(plan, costs, Objective{});
        QCOMPARE(plan.pipelines[0].virtualStages, 2);
        QCOMPARE(plan.estimate.iterationSeconds, 38.0);
        // 6 micro-batches are no whole groups of 4: it stays plain.
        plan.pipelines[0] = makePipeline({0, 2, 4, 6, 8}, {{0}, {1}, {2}, {3}}, 1, 1, 6);
        plan.job.globalBatchSize = 6;
        scorePlan(plan, costs);
        interleaveBest(plan, costs, Objective{});
        QCOMPARE(plan.pipelines[0].virtualStages, 1);
    }

    void runPlannerSearchesTheFamilies()
    {
        // The Megatron baseline on AMP's 4 × 4 cluster: with the families it is never slower than in its own
        // space (that plan is the first one tried), and the plan says what it chose and tried.
        const PlanRequest base = test::exampleRequest("amp-het-cluster", "gpt2-amp", 32);
        Progress p1, p2;
        const Plan own = runPlanner("megatron", families(base, false), p1);
        const Plan wide = runPlanner("megatron", families(base, true), p2);
        QVERIFY(own.details.count("megatron_space") == 0);
        QVERIFY(own.job == base.job);
        QVERIFY(wide.estimate.iterationSeconds <= own.estimate.iterationSeconds * (1 + 1e-12));
        const QJsonObject section = wide.details.at("megatron_space");
        QCOMPARE(section.value("tried").toArray().size(), 3);
        QCOMPARE(section.value("variants").toInt(), 12);
        QCOMPARE(section.value("virtual_stages").toInt(), wide.pipelines[0].virtualStages);
        QCOMPARE(section.value("sequence_parallel").toBool(), wide.job.sequenceParallel);
        QCOMPARE(section.value("context_parallel").toInt(), wide.pipelines[0].contextParallel);
        QCOMPARE(section.value("expert_parallel").toInt(), 1); // gpt2-amp has no experts
        QVERIFY(wide.estimate.feasible);
    }

    void contextParallelRegroupsReplicas()
    {
        // 4 replicas of a 2-stage pipeline, 3 micro-batches of 2: cp 2 makes 2 replicas whose stages have 2
        // data-parallel ranks sharing each sample, 6 micro-batches. The GPUs keep their places (replica 2j + c
        // becomes dp rank c of replica j) and the samples their count.
        Cluster c = testCluster({{"TestA", 8}}, 1e11, 1e10);
        Job j;
        j.globalBatchSize = 24;
        j.sequenceLength = 1024;
        ModelSpec m = testModel(2);
        for (LayerSpec& l : m.layers)
            l.kvBytes = 1e6;
        Plan plan = makePlan(c, m, j, Profile());
        plan.pipelines.push_back(makePipeline({0, 1, 2}, {{0, 1, 2, 3}, {4, 5, 6, 7}}, 4, 2, 3));
        const Plan cp = withContextParallel(plan, 2);
        const Pipeline& pl = cp.pipelines[0];
        QCOMPARE(pl.contextParallel, 2);
        QCOMPARE(pl.replicas, 2);
        QCOMPARE(pl.microBatches, 6);
        QCOMPARE(pl.microBatchSize, 2);
        QCOMPARE(pl.stages[0].dataParallel, 2);
        QVERIFY(pl.stages[0].gpus == plan.pipelines[0].stages[0].gpus);
        QCOMPARE(cp.samplesPerIteration(), plan.samplesPerIteration());
        cp.validate("plan");
        // A plan already split keeps its split; 4 replicas do not regroup by 3, nor do stages of 1 dp rank split.
        QCOMPARE(withContextParallel(cp, 2).pipelines[0].replicas, 2);
        QCOMPARE(withContextParallel(plan, 3).pipelines[0].contextParallel, 1);
        // One replica whose stages have 4 dp ranks and a micro-batch of 4: pairs of them share samples, the
        // micro-batch halves and the micro-batches double.
        Plan wide = makePlan(c, m, j, Profile());
        wide.job.globalBatchSize = 12;
        wide.pipelines.push_back(makePipeline({0, 1, 2}, {{0, 1, 2, 3}, {4, 5, 6, 7}}, 1, 4, 3, 1, 4));
        const Plan inStage = withContextParallel(wide, 2);
        QCOMPARE(inStage.pipelines[0].contextParallel, 2);
        QCOMPARE(inStage.pipelines[0].replicas, 1);
        QCOMPARE(inStage.pipelines[0].stages[1].dataParallel, 4);
        QCOMPARE(inStage.pipelines[0].microBatchSize, 2);
        QCOMPARE(inStage.pipelines[0].microBatches, 6);
        inStage.validate("plan");
    }

    void expertParallelBestTakesTheSplitThatFits()
    {
        // One MoE layer with 6e9 expert parameters on two 80 GB GPUs (two replicas): at ~16 bytes of model
        // state per parameter it needs ~96 GB replicated and half that with the experts over both GPUs.
        Cluster c = testCluster({{"TestA", 1}, {"TestA", 1}}, 1e11, 1e10);
        ModelSpec m = testModel(1, 6e9);
        m.arch.experts = 4;
        m.layers[0].kind = LayerKind::MoE;
        m.layers[0].expertParams = 6e9;
        m.layers[0].expertAllToAllBytes = 1e6;
        Job j;
        j.globalBatchSize = 2;
        Profile prof;
        setTimes(prof, "TestA", 1, 1, {1.0}, {2.0});
        Plan plan = makePlan(c, m, j, prof);
        plan.pipelines.push_back(makePipeline({0, 1}, {{0, 1}}, 2, 1, 1));
        const CostModel costs(plan.model, plan.job, prof, testCatalog());
        scorePlan(plan, costs);
        QVERIFY(stateBytesPerParam(j).total() * 6e9 > 80e9);
        QVERIFY(!plan.estimate.feasible);
        expertParallelBest(plan, costs, Objective{});
        QCOMPARE(plan.pipelines[0].expertParallel, 2); // 4 would need 4 data-parallel ranks
        QVERIFY(plan.estimate.feasible);
    }

    void expertParallelOnlyWhereTheFamilyIsOpen()
    {
        // bert-moe's 8 experts on AMP's cluster: every plan the search returns keeps the plan rules, and with
        // search_ep off (or a dense model) the experts stay replicated.
        PlanRequest base = test::exampleRequest("amp-het-cluster", "bert-moe", 64);
        Progress p1, p2;
        const Plan wide = runPlanner("megatron", families(base, true), p1);
        wide.validate("plan");
        const int ep = wide.pipelines[0].expertParallel;
        QVERIFY(ep == 1 || (8 % ep == 0 && wide.pipelines[0].replicas * wide.pipelines[0].stages[0].dataParallel % ep == 0));
        QCOMPARE(wide.details.at("megatron_space").value("expert_parallel").toInt(), ep);
        PlanRequest off = families(base, true);
        off.options["search_ep"] = "false";
        QCOMPARE(runPlanner("megatron", off, p2).pipelines[0].expertParallel, 1);
    }

    void metisStillContainsAmp()
    {
        // With the families on, metis compares AMP's plan at its best interleaving too: never slower.
        const PlanRequest base = families(test::exampleRequest("amp-het-cluster", "gpt2-amp", 32), true);
        Progress p1, p2;
        const Plan amp = runPlanner("amp", base, p1);
        const Plan metis = runPlanner("metis", base, p2);
        QVERIFY(metis.estimate.iterationSeconds <= amp.estimate.iterationSeconds * (1 + 1e-9));
    }
};

QTEST_GUILESS_MAIN(TestMegatronSpace)
#include "tst_megatron_space.moc"
