// AMP's memory handling: strategies that do not fit GPU memory dropped or kept (keep_infeasible), repaired
// by re-splitting layers (repair_memory) and checked against the plain order, the memory mask against its
// definition, and the dropped count.
#include "amp_fixtures.h"

using namespace hetplan;
using namespace hetplan::amptest;

class TestAmpMemory : public QObject {
    Q_OBJECT

private slots:
    void memoryDroppedOrKept()
    {
        // A toy model of 8 layers × 4e8 params: 16 bytes/param of model state → 6.4 GB per layer, 51 GB
        // in all. On 4 V100-16GB at most 2 layers' worth (12.8 GB) fit per GPU: pp·tp must be 4.
        PlanRequest req = request(plainTwoNodes("V100-16GB", "V100-16GB", 2), test::toyModel(8, 1e9, 4e8, 1e5), 4);
        const CostModel costs(req.model, req.job, req.profile);
        const Plan plan = run("amp", req);
        checkPlan(plan, costs);
        QCOMPARE(int(plan.pipelines[0].stages.size()) * plan.pipelines[0].stages[0].tensorParallel, 4);
        const double dropped = plan.search.extra.at("dropped_for_memory");
        QVERIFY(dropped > 0);
        qInfo("dropped for memory: %g of %lld", dropped, plan.search.candidates);
        // keep_infeasible=true ranks the misfits too (as in the paper): nothing dropped.
        req.options["keep_infeasible"] = "true";
        const Plan kept = run("amp", req);
        QCOMPARE(kept.search.extra.at("dropped_for_memory"), 0.0);
        // A model that fits nowhere → InfeasibleError (CLI exit 3).
        req.options.clear();
        req.model = test::toyModel(2, 1e9, 4e9, 1e5);
        QVERIFY_THROWS_EXCEPTION(InfeasibleError, run("amp", req));
    }

    void memoryRepair()
    {
        // 1 V100 + 1 T4, 8 toy layers of 2e8 params: 20 bytes/param (fp16, Megatron) → 4e9 bytes per layer,
        // so at most 4 layers fit a 16 GiB GPU (16e9 + tiny activations ≤ 17.18e9 − 1.07e9 runtime
        // overhead (1 GiB for both in the catalog); 5 layers = 20e9 do not). Measured times: V100 0.03 s,
        // T4 0.15 s per layer; gbs 1 → only (pp 2, dp 1, tp 1), gas 1, cost = Σt + e: the memory-blind optimum
        // puts 7 layers on the V100 (0.21 + 0.15 + e), which does not fit. Repair re-splits with the
        // misfitting stages forbidden → 4 | 4.
        PlanRequest req = request(plainTwoNodes("V100-16GB", "T4", 1), test::toyModel(8, 1e9, 2e8, 1e5), 1);
        Profile prof = flatProfile("V100-16GB", 8, 0.01, 0.02);
        prof.merge(flatProfile("T4", 8, 0.05, 0.10));
        req.profile = prof;
        const CostModel costs(req.model, req.job, prof);
        const AmpCostModel amp(req.cluster, costs);
        const Placement p = megatronPlacement(req.cluster, {2, 1, 1});
        const AmpEstimate blind = amp.evaluate(p, 1, 1);
        QCOMPARE(blind.bounds, (std::vector<int>{0, 7, 8}));
        QVERIFY(!blind.fitsMemory);
        const AmpEstimate fixedUp = amp.evaluate(p, 1, 1, LayerDpMethod::Fast, true);
        QCOMPARE(fixedUp.bounds, (std::vector<int>{0, 4, 8}));
        QVERIFY(fixedUp.fitsMemory && fixedUp.repaired);
        QCOMPARE(amp.evaluate(p, 1, 1, LayerDpMethod::Paper, true).bounds, (std::vector<int>{0, 4, 8}));

        const Plan plan = run("amp", req);
        checkPlan(plan, costs);
        QCOMPARE(plan.search.extra.at("repaired_for_memory"), 1.0);
        QCOMPARE(plan.pipelines[0].stages[0].endLayer, 4);
        req.options["repair_memory"] = "false";
        QVERIFY_THROWS_EXCEPTION(InfeasibleError, run("amp", req));
    }

    // evaluate() with the repair drops strategies whose memory limits admit no split before any DP, and
    // solves the constrained DP before the unconstrained one (core/planners/amp/amp_cost.cpp). Its answer
    // must be the plain order's: solve; if that split does not fit, re-solve with the misfits forbidden; keep
    // it if one fits. Random small GPTs on mixed 2-4 node clusters, every degree and micro-batch.
    void repairMatchesThePlainOrder()
    {
        std::mt19937_64 rng(16);
        const std::vector<std::string> types{"V100-16GB", "T4", "A100-40GB", "RTX-3090"};
        int direct = 0, repaired = 0, dropped = 0;
        for (int inst = 0; inst < 12; ++inst) {
            Cluster c;
            c.name = "mix";
            const int gpus = inst % 2 ? 2 : 4;
            for (int n = 0; n < 2 + int(rng() % 3); ++n) {
                Node node;
                node.name = "n" + std::to_string(n);
                node.deviceType = types[rng() % types.size()];
                node.gpus = gpus;
                node.nicBandwidth = 1.25e9;
                c.nodes.push_back(node);
            }
            const ModelSpec m =
                buildGptModel("gpt", 4 + int(rng() % 10), inst % 3 == 0 ? 4096 : 3072, 16, inst % 2 ? 512 : 1024);
            Job job = jobWithBatch(inst % 3 == 0 ? 8 : 16);
            job.sequenceLength = m.arch.sequence;
            job.recompute = inst % 4 == 3;
            const CostModel costs(m, job, {});
            const AmpCostModel amp(c, costs);
            for (const Degrees& d : enumerateDegrees(c.gpuCount(), m.layerCount(), job.globalBatchSize,
                                                     allowedTensorDegrees(m, c)))
                for (int mbs : divisors(job.globalBatchSize / d.dp)) {
                    const int gas = job.globalBatchSize / (d.dp * mbs);
                    const Placement pl = megatronPlacement(c, d);
                    PipelineProblem problem = amp.problem(pl, mbs, gas);
                    LayerSplit want = solveLayerSplit(problem);
                    bool wantRepaired = false;
                    if (!amp.fitsMemory(pl, mbs, gas, want.bounds)) {
                        problem.allowed = amp.memoryMask(pl, mbs, gas);
                        LayerSplit fitting = solveLayerSplit(problem);
                        if (!fitting.bounds.empty()) {
                            want = fitting;
                            wantRepaired = true;
                        }
                    }
                    const AmpEstimate got = amp.evaluate(pl, mbs, gas, LayerDpMethod::Fast, true);
                    if (!amp.fitsMemory(pl, mbs, gas, want.bounds)) { // the search drops it either way
                        QVERIFY(!got.fitsMemory);
                        ++dropped;
                        continue;
                    }
                    QCOMPARE(got.bounds, want.bounds);
                    QVERIFY(got.fitsMemory);
                    QCOMPARE(got.repaired, wantRepaired);
                    QCOMPARE(got.seconds, amp.estimate(pl, mbs, gas, want.bounds).seconds);
                    (wantRepaired ? repaired : direct) += 1;
                }
        }
        qInfo("plain order vs evaluate(): %d fit directly, %d repaired, %d dropped", direct, repaired, dropped);
        QVERIFY(direct >= 50);
        QVERIFY(repaired >= 5);
        QVERIFY(dropped >= 10);
    }

    // memoryMask (now from StagePeakScan and one check per node kind) against its definition: stage s may
    // hold [a, b) iff stagePeak fits every GPU of every node of the stage, for every shorter end too.
    void memoryMaskMatchesItsDefinition()
    {
        Cluster c;
        c.name = "mix";
        for (const auto& [name, type, overhead] : {std::tuple{"a", "V100-16GB", -1.0}, std::tuple{"b", "T4", -1.0},
                                                    std::tuple{"c", "T4", 3e9}, std::tuple{"d", "V100-16GB", -1.0}}) {
            Node n;
            n.name = name;
            n.deviceType = type;
            n.gpus = 2;
            n.nicBandwidth = 1.25e9;
            n.runtimeOverhead = overhead; // node c holds 3 GB more than its catalog T4 neighbour
            c.nodes.push_back(n);
        }
        const ModelSpec m = buildGptModel("gpt", 10, 2048, 16, 1024);
        Job job = jobWithBatch(16);
        job.sequenceLength = 1024;
        const CostModel costs(m, job, {});
        const AmpCostModel amp(c, costs);
        const int L = m.layerCount();
        int allowed = 0, forbidden = 0;
        for (const Degrees& d : enumerateDegrees(c.gpuCount(), L, 16, {1, 2}))
            for (int mbs : {1, 2}) {
                const int gas = 16 / (d.dp * mbs);
                if (gas < 1)
                    continue;
                const Placement pl = megatronPlacement(c, d);
                const std::vector<char> mask = amp.memoryMask(pl, mbs, gas);
                for (int s = 0; s < d.pp; ++s) {
                    const int inFlight = std::min(d.pp - s, gas);
                    for (int a = 0; a <= L; ++a) {
                        bool open = a >= s && a <= L - (d.pp - s); // stays true until a shorter end misfits
                        for (int b = a + 1; b <= L; ++b) {
                            if (b > L - (d.pp - 1 - s))
                                open = false;
                            for (int g : pl.stageGpus(s)) {
                                const Node& node = c.nodes[c.gpu(g).node];
                                const double peak = costs.stagePeak(a, b, node.deviceType, d.tp, 1, mbs, inFlight);
                                open = open && fitsMemory(peak, node, costs.device(node.deviceType), costs.job(),
                                                          RankGroups::pipelineStage(d.tp, d.dp, d.pp, s,
                                                                                    m.arch.tiedEmbeddings));
                            }
                            QCOMPARE(bool(mask[(size_t(s) * (L + 1) + a) * (L + 1) + b]), open);
                            (open ? allowed : forbidden) += 1;
                        }
                    }
                }
            }
        QVERIFY(allowed > 100);
        QVERIFY(forbidden > 100);
    }

    // Every strategy that is not ranked is counted in dropped_for_memory, including strategies with no
    // layer split at all, so the count and the "none fits" message agree.
    void droppedCountsEveryUnrankedStrategy()
    {
        // 1 V100 + 1 T4 (one GPU per node: tp 1), a 1-layer toy model (so pp 1, dp 2), gbs 4: micro-batch
        // 1 or 2 → 2 strategies. The T4's measured time at micro-batch 2 is infinite, standing for "this
        // device cannot run it": that strategy has no layer split at all (AMP reports it as not fitting).
        auto profile = [] {
            Profile prof = flatProfile("T4", 1, 0.01, 0.02);
            prof.set({"T4", 1, 2}, {LayerTiming{std::numeric_limits<double>::infinity(), 0.04, 0, -1}});
            return prof;
        };
        // Small layer (1e6 params): micro-batch 1 fits and is ranked, micro-batch 2 is dropped.
        PlanRequest req = request(plainTwoNodes("V100-16GB", "T4", 1), test::toyModel(1), 4);
        req.profile = profile();
        const Plan plan = run("amp", req);
        QCOMPARE(plan.search.candidates, 2LL);
        QCOMPARE(plan.search.extra.at("dropped_for_memory"), 1.0);
        QCOMPARE(plan.search.extra.at("simulated"), 1.0); // 2 − 1 dropped
        QCOMPARE(plan.pipelines[0].microBatchSize, 1);

        // A 4e9-parameter layer (16 bytes/param of model state = 64 GB) fits neither GPU: micro-batch 1 is
        // dropped for memory and micro-batch 2 has no split, so both are dropped.
        req.model = test::toyModel(1, 1e9, 4e9, 1e5);
        QString message;
        try {
            run("amp", req);
        } catch (const InfeasibleError& e) {
            message = e.what();
        }
        QCOMPARE(message, QString("amp: none of the 2 strategies fits GPU memory (2 dropped)"));
    }
};

QTEST_GUILESS_MAIN(TestAmpMemory)
#include "tst_amp_memory.moc"
