// AMP: the eq. 3-5 cost model on hand-computed cases, Megatron and domino placements, the `amp` planner's
// invariants (its memory handling: tst_amp_memory), and the paper's two headline comparisons (vs Megatron on the
// heterogeneous cluster, DP layer split vs uniform split on the heterogeneous TransGAN model).
#include "amp_fixtures.h"
#include "example_request.h"

using namespace hetplan;
using namespace hetplan::amptest;

class TestAmp : public QObject {
    Q_OBJECT

private slots:
    void costHomogeneousReplicas()
    {
        // 2 nodes × 2 V100, 4 toy layers (1e6 params, 1e5 output bytes per sample), measured
        // t = 0.01 + 0.02 = 0.03 s per layer. Degrees (pp 2, dp 2, tp 1), mbs 1, gas 2.
        // Megatron placement: stage 0 = GPUs {0, 1} (node a), stage 1 = {2, 3} (node b).
        // Split [0, 2, 4]: t_0 = t_1 = 0.06.
        // e = one activation transfer over 1 GB/s = 1e5 / 1e9 = 1e-4 (eq. 5 counts each boundary once).
        // T_pp = (2 − 1)·0.06 + 1e-4 + 0.12 = 0.1801 (eq. 5), same for both replicas.
        // Sync: each GPU holds 2 layers = 2e6 params · 2 bytes = 4e6 bytes; its dp group is {0, 1} inside
        // node a at 100 GB/s: 2·(2−1)/2 · 4e6 / 100e9 = 4e-5 (eq. 3).  T = 0.1801 + 4e-5 = 0.18014 (eq. 4).
        const Cluster c = plainTwoNodes("V100-16GB", "V100-16GB", 2);
        const ModelSpec m = test::toyModel(4);
        const CostModel costs(m, jobWithBatch(4), flatProfile("V100-16GB", 4, 0.01, 0.02));
        const AmpCostModel amp(c, costs);
        const Placement p = megatronPlacement(c, {2, 2, 1});
        const AmpEstimate e = amp.estimate(p, 1, 2, {0, 2, 4});
        QVERIFY(std::abs(e.pipelineSeconds - 0.1801) < 1e-12);
        QVERIFY(std::abs(e.syncSeconds - 4e-5) < 1e-15);
        QVERIFY(std::abs(e.seconds - 0.18014) < 1e-12);
        // The DP finds that split (any other: a 3-layer stage → (2−1)·0.09 + 1e-4 + 0.12 = 0.2101).
        const AmpEstimate best = amp.evaluate(p, 1, 2);
        QCOMPARE(best.bounds, (std::vector<int>{0, 2, 4}));
        QVERIFY(std::abs(amp.estimate(p, 1, 2, {0, 3, 4}).pipelineSeconds - 0.2101) < 1e-12);
    }

    void costHeterogeneousReplicas()
    {
        // Node a: 1 V100 (0.03 s per layer), node b: 1 T4 (0.02 + 0.04 = 0.06 s per layer); 4 layers.
        // Degrees (pp 1, dp 2, tp 1), gbs 4, mbs 1 → gas 2.
        // T_pp(V100) = (2−1)·0.12 + 0.12 = 0.24; T_pp(T4) = (2−1)·0.24 + 0.24 = 0.48 → max 0.48.
        // Sync: 4e6 params · 2 bytes = 8e6 bytes across nodes at 1 GB/s (the group's lowest bandwidth):
        // 2·(2−1)/2 · 8e6 / 1e9 = 8e-3.  T = 0.488.
        const Cluster c = plainTwoNodes("V100-16GB", "T4", 1);
        const ModelSpec m = test::toyModel(4);
        Profile prof = flatProfile("V100-16GB", 4, 0.01, 0.02);
        prof.merge(flatProfile("T4", 4, 0.02, 0.04));
        const CostModel costs(m, jobWithBatch(4), prof);
        const AmpCostModel amp(c, costs);
        const AmpEstimate e = amp.estimate(megatronPlacement(c, {1, 2, 1}), 1, 2, {0, 4});
        QVERIFY(std::abs(e.pipelineSeconds - 0.48) < 1e-12);
        QVERIFY(std::abs(e.syncSeconds - 8e-3) < 1e-15);
        QVERIFY(std::abs(e.seconds - 0.488) < 1e-12);

        // Same two GPUs as a 2-stage pipeline (pp 2, dp 1), gas 4: the DP puts 3 layers on the V100:
        // t = (0.09, 0.06), e = 1e-4 → 3·0.09 + 1e-4 + 0.15 = 0.4201, no sync (dp 1). The even split would
        // cost 3·0.12 + 1e-4 + 0.18 = 0.5401.
        const AmpEstimate pipe = amp.evaluate(megatronPlacement(c, {2, 1, 1}), 1, 4);
        QCOMPARE(pipe.bounds, (std::vector<int>{0, 3, 4}));
        QVERIFY(std::abs(pipe.seconds - 0.4201) < 1e-12);
        QCOMPARE(pipe.syncSeconds, 0.0);
    }

    void megatronPlacementOrder()
    {
        // 2 nodes × 4 GPUs, degrees (pp 2, dp 2, tp 2): tp pairs inside a node first, then the dp replica
        // on the same node, then the next stage on the next node.
        const Cluster c = plainTwoNodes("V100-16GB", "V100-16GB", 4);
        const Placement p = megatronPlacement(c, {2, 2, 2});
        QCOMPARE(p.tensorGroup(0, 0), (std::vector<int>{0, 1}));
        QCOMPARE(p.tensorGroup(0, 1), (std::vector<int>{2, 3}));
        QCOMPARE(p.dataGroup(0, 1), (std::vector<int>{1, 3}));
        QCOMPARE(p.stageGpus(1), (std::vector<int>{4, 5, 6, 7}));
        for (int s = 0; s < 2; ++s)
            for (int r = 0; r < 2; ++r) {
                const auto g = p.tensorGroup(s, r);
                QVERIFY(c.sameNode(g[0], g[1]));
            }
        QVERIFY(!c.sameNode(p.at(0, 0, 0), p.at(1, 0, 0))); // pipeline is the outermost dimension
        // tp must keep groups in a node: only divisors of every node's GPU count.
        QCOMPARE(intraNodeTensorDegrees(c), (std::vector<int>{1, 2, 4}));
        QCOMPARE(intraNodeTensorDegrees(test::twoNodeCluster("T4", 4, "T4", 6)), (std::vector<int>{1, 2}));
        // In a plan the stage lists replica 0's tp ranks, then replica 1's.
        const Pipeline pl = makePipeline(p, 1, 4, {0, 2, 4});
        QCOMPARE(pl.stages[0].gpus, (std::vector<int>{0, 1, 2, 3}));
        QCOMPARE(pl.stageGpus(0, 1), (std::vector<int>{2, 3}));
    }

    void dominoPlacement()
    {
        // Every tiling is a bijection of ranks to GPUs and each domino is an h×w rectangle of the mesh.
        const Cluster c = exampleCluster("amp-het-cluster");
        std::mt19937_64 rng(3);
        std::set<std::vector<int>> distinct;
        for (bool intraNodeTp : {false, true})
            for (Degrees d : std::vector<Degrees>{{8, 1, 2}, {4, 2, 2}, {2, 2, 4}, {16, 1, 1}, {4, 4, 1}, {1, 4, 4}})
                for (int i = 0; i < 20; ++i) {
                    auto p = randomDominoPlacement(c, d, rng, intraNodeTp);
                    QVERIFY(p.has_value());
                    std::set<int> all(p->gpus.begin(), p->gpus.end());
                    QCOMPARE(int(all.size()), 16);
                    QCOMPARE(*all.begin(), 0);
                    QCOMPARE(*all.rbegin(), 15);
                    for (int s = 0; s < d.pp; ++s) {
                        std::set<int> cols, rows;
                        for (int g : p->stageGpus(s)) {
                            cols.insert(c.gpu(g).node);
                            rows.insert(c.gpu(g).local);
                        }
                        QCOMPARE(int(cols.size() * rows.size()), d.dp * d.tp);
                        // Frameworks keep tp inside a node: with intraNodeTp every group is in one column.
                        for (int r = 0; intraNodeTp && r < d.dp; ++r)
                            for (int g : p->tensorGroup(s, r))
                                QVERIFY(c.sameNode(g, p->tensorGroup(s, r)[0]));
                    }
                    distinct.insert(p->gpus);
                }
        QVERIFY(distinct.size() > 10); // the tilings really vary
        // Same seed, same tiling.
        std::mt19937_64 a(11), b(11);
        QCOMPARE(randomDominoPlacement(c, {4, 2, 2}, a, false)->gpus,
                 randomDominoPlacement(c, {4, 2, 2}, b, false)->gpus);
    }

    void splits()
    {
        QCOMPARE(uniformBounds(10, 4), (std::vector<int>{0, 2, 4, 7, 10}));
        QCOMPARE(uniformBounds(8, 4), (std::vector<int>{0, 2, 4, 6, 8}));
        // Parameters [5, 1, 1, 1, 1, 1] in 2 stages: best max is 5 ([5] | [1 × 5]).
        QCOMPARE(balancedBounds({5, 1, 1, 1, 1, 1}, 2), (std::vector<int>{0, 1, 6}));
        // [1, 1, 1, 1, 4] in 3 stages: the 4 must stand alone (max 4), and the stages before it are balanced
        // in turn → [1,1] [1,1] [4].
        QCOMPARE(balancedBounds({1, 1, 1, 1, 4}, 3), (std::vector<int>{0, 2, 4, 5}));
    }

    void ampPlanIsValid()
    {
        // 4 V100 + 4 T4 (1.25 GB/s between nodes), GPT-2 from the AMP paper, gbs 16.
        const PlanRequest req =
            request(test::twoNodeCluster("V100-16GB", 4, "T4", 4), buildExampleModel("gpt2-amp"), 16);
        const CostModel costs(req.model, req.job, req.profile);
        const Plan plan = run("amp", test::paperSpace(req)); // AMP's own search: its top-k decides
        checkPlan(plan, costs);
        QVERIFY(!plan.candidates.empty() && plan.candidates.size() <= 10);
        QVERIFY(plan.search.candidates >= long(plan.candidates.size()));
        QVERIFY(plan.search.extra.count("dropped_for_memory"));
        // Candidates are ranked by AMP's cost; the returned plan is the simulator's best of them.
        double bestSim = 1e300;
        for (size_t i = 0; i < plan.candidates.size(); ++i) {
            const Candidate& c = plan.candidates[i];
            if (i > 0)
                QVERIFY(plan.candidates[i - 1].plannerCost <= c.plannerCost);
            QCOMPARE(c.pp * c.dp * c.tp, 8);
            int sum = 0;
            for (int n : c.layersPerStage) {
                QVERIFY(n > 0);
                sum += n;
            }
            QCOMPARE(sum, req.model.layerCount());
            QCOMPARE(int(c.layersPerStage.size()), c.pp);
            QVERIFY(c.simulatedCost.has_value());
            bestSim = std::min(bestSim, *c.simulatedCost);
        }
        QVERIFY(std::abs(plan.estimate.iterationSeconds - bestSim) <= 1e-9 * bestSim);
        // planner_estimate is AMP's eq. 4 of the returned plan.
        const AmpCostModel amp(req.cluster, costs);
        const Pipeline& pl = plan.pipelines[0];
        Placement p{{int(pl.stages.size()), pl.replicas, pl.stages[0].tensorParallel}, {}};
        std::vector<int> bounds{0};
        for (const Stage& st : pl.stages) {
            p.gpus.insert(p.gpus.end(), st.gpus.begin(), st.gpus.end());
            bounds.push_back(st.endLayer);
        }
        const double own = amp.estimate(p, pl.microBatchSize, pl.microBatches, bounds).seconds;
        QVERIFY(std::abs(*plan.plannerEstimate - own) <= 1e-9 * own);
    }

    void paperDpGivesSamePlan()
    {
        // dp=paper (eq. 6-8 table) and the default threshold walk find the same optimum (a small model so
        // the O(k²L⁴) table stays quick).
        PlanRequest req = request(test::twoNodeCluster("V100-16GB", 2, "T4", 2), test::toyModel(8, 4e11, 5e7, 4e6), 8);
        const Plan fast = run("amp", req);
        req.options["dp"] = "paper";
        const Plan paper = run("amp", req);
        // (Ties between equally good splits may be broken differently, so compare costs.)
        QVERIFY(std::abs(paper.estimate.iterationSeconds - fast.estimate.iterationSeconds) <=
                1e-9 * fast.estimate.iterationSeconds);
        QCOMPARE(paper.candidates.size(), fast.candidates.size());
        for (size_t i = 0; i < fast.candidates.size(); ++i)
            QVERIFY(std::abs(paper.candidates[i].plannerCost - fast.candidates[i].plannerCost) <=
                    1e-9 * fast.candidates[i].plannerCost);
    }

    void badOptions()
    {
        PlanRequest req = request(plainTwoNodes("V100-16GB", "V100-16GB", 2), test::toyModel(4), 4);
        req.options["top_k"] = "0";
        QVERIFY_THROWS_EXCEPTION(InputError, run("amp", req));
        req.options["top_k"] = "x";
        QVERIFY_THROWS_EXCEPTION(InputError, run("amp", req));
        req.options = {{"dp", "quantum"}};
        QVERIFY_THROWS_EXCEPTION(InputError, run("amp", req));
        req.options = {{"keep_infeasible", "maybe"}};
        QVERIFY_THROWS_EXCEPTION(InputError, run("amp", req));
    }

    void cancellation()
    {
        PlanRequest req = request(plainTwoNodes("V100-16GB", "V100-16GB", 2), test::toyModel(4), 4);
        req.options = resolveOptions(AmpPlanner(), {});
        const CostModel costs(req.model, req.job, req.profile);
        Progress progress;
        progress.cancel(); // before any strategy is evaluated: nothing to keep, so it throws
        QVERIFY_THROWS_EXCEPTION(CancelledError, AmpPlanner().plan(req, costs, progress));
    }

    void runsOnImportedAmpNpy()
    {
        // h2's fixture in AMP's GPT-2 layout (30 entries, powers of two), folded to gpt2-amp's 26 layers.
        ImportOptions o;
        o.params["compact_gpt2"] = "true";
        o.model = "gpt2-amp";
        o.deviceType = "T4";
        Profile prof = importProfile("amp-npy", test::fixture("profiles/amp/gpt2_30.npy"), o);
        o.deviceType = "V100-16GB";
        prof.merge(importProfile("amp-npy", test::fixture("profiles/amp/gpt2_30.npy"), o));
        const ModelSpec m = buildExampleModel("gpt2-amp");
        const CostModel costs(m, jobWithBatch(8), prof);

        // One T4 running all layers (pp = dp = tp = 1), gas 1: T = Σ (forward + 2·forward) over the
        // array = 3 · (2^-10 + 2^-13 + 24·2^-8 + 2^-14 + 2^-13 + 2^-9 + 2^-12) = 3 · 0.09722900390625
        // = 0.29168701171875 s (eq. 5 with one stage and one micro-batch; no p2p, no sync).
        Cluster one = test::twoNodeCluster("T4", 1, "T4", 1);
        one.nodes.pop_back();
        const AmpCostModel amp(one, costs);
        QCOMPARE(amp.estimate(megatronPlacement(one, {1, 1, 1}), 1, 1, {0, 26}).seconds, 0.29168701171875);

        // The planner runs on the measured tables (tp 1; other tp degrees fall back to the analytic model).
        PlanRequest req = request(exampleCluster("amp-het-cluster"), m, 32);
        req.profile = prof;
        const Plan plan = run("amp", req);
        checkPlan(plan, CostModel(m, req.job, prof));
        QVERIFY(!plan.profile.empty()); // the plan carries the measured tables it used
    }

    void runsOnAmpsOwnArrays()
    {
        // AMP's published known_cost arrays (T4 = G4, V100 = P3; mp 1/2/4), if the shared data is present.
        const std::string dir = test::sourceDir() + "/../shared/data/amp-known-cost/";
        if (!QFileInfo::exists(QString::fromStdString(dir + "gpt2_P3_1.npy")))
            QSKIP("shared/data/amp-known-cost not beside the repository");
        Profile prof;
        for (auto [file, device] : {std::pair{"G4", "T4"}, std::pair{"P3", "V100-16GB"}})
            for (int mp : {1, 2, 4}) {
                ImportOptions o;
                o.deviceType = device;
                o.tp = mp;
                o.params["compact_gpt2"] = "true";
                o.model = "gpt2-amp";
                prof.merge(importProfile("amp-npy", dir + "gpt2_" + file + "_" + std::to_string(mp) + ".npy", o));
            }
        QCOMPARE(int(prof.tables().size()), 6);
        PlanRequest req = request(exampleCluster("amp-het-cluster"), buildExampleModel("gpt2-amp"), 32);
        req.profile = prof;
        const Plan amp = run("amp", req);
        const Plan meg = run("megatron", req);
        checkPlan(amp, CostModel(req.model, req.job, prof));
        const Pipeline& pl = amp.pipelines[0];
        qInfo("AMP's own arrays: amp pp %d dp %d tp %d mbs %d %.3f s; megatron %.3f s (%.2fx)", int(pl.stages.size()),
              pl.replicas, pl.stages[0].tensorParallel, pl.microBatchSize, amp.estimate.iterationSeconds,
              meg.estimate.iterationSeconds, meg.estimate.iterationSeconds / amp.estimate.iterationSeconds);
        QVERIFY(amp.estimate.iterationSeconds <= meg.estimate.iterationSeconds);
    }

    void beatsMegatronOnHetCluster()
    {
        // AMP sec. 4.5 / table 4: amp-het-cluster (3 × 4 V100 + 1 × 4 T4, 10 Gbps), GPT-2, gbs 32.
        const PlanRequest req = request(exampleCluster("amp-het-cluster"), buildExampleModel("gpt2-amp"), 32);
        const CostModel costs(req.model, req.job, req.profile);
        const Plan amp = run("amp", req);
        const Plan meg = run("megatron", req);
        checkPlan(amp, costs);
        checkPlan(meg, costs);
        const double ratio = meg.estimate.iterationSeconds / amp.estimate.iterationSeconds;
        auto describe = [](const Plan& p) {
            const Pipeline& pl = p.pipelines[0];
            return QString("pp %1 dp %2 tp %3 mbs %4: %5 s")
                .arg(pl.stages.size())
                .arg(pl.replicas)
                .arg(pl.stages[0].tensorParallel)
                .arg(pl.microBatchSize)
                .arg(p.estimate.iterationSeconds, 0, 'f', 3);
        };
        qInfo("amp      %s", qPrintable(describe(amp)));
        qInfo("megatron %s", qPrintable(describe(meg)));
        qInfo("AMP speed-up over Megatron by the simulator: %.2fx (paper: 1.54x)", ratio);
        QVERIFY(ratio > 1.0);
    }

    void transganLayerSplitBeatsUniform()
    {
        // AMP table 5: TransGAN generator (layers of very different cost) on 4 × 4 V100, gbs 64. Keep AMP's
        // degrees, micro-batch and placement and replace only the layer split by the uniform one.
        const PlanRequest req = request(v100Grid4x4(), buildExampleModel("transgan-amp"), 64);
        const CostModel costs(req.model, req.job, req.profile);
        const Plan amp = run("amp", req);
        checkPlan(amp, costs);
        const Pipeline& pl = amp.pipelines[0];
        const int pp = int(pl.stages.size());
        QVERIFY2(pp > 1, "AMP's best TransGAN plan should be pipelined");
        Plan uniform = amp;
        const std::vector<int> even = uniformBounds(amp.model.layerCount(), pp);
        for (int s = 0; s < pp; ++s) {
            uniform.pipelines[0].stages[s].firstLayer = even[s];
            uniform.pipelines[0].stages[s].endLayer = even[s + 1];
        }
        scorePlan(uniform, costs);
        QString split;
        for (const Stage& st : pl.stages)
            split += QString::number(st.firstLayer) + " ";
        qInfo("transgan-amp: pp %d dp %d tp %d mbs %d, DP split starts [%s]: %.3f s; uniform split: %.3f s (%.2fx)", pp,
              pl.replicas, pl.stages[0].tensorParallel, pl.microBatchSize, qPrintable(split.trimmed()),
              amp.estimate.iterationSeconds, uniform.estimate.iterationSeconds,
              uniform.estimate.iterationSeconds / amp.estimate.iterationSeconds);
        QVERIFY(amp.estimate.iterationSeconds < uniform.estimate.iterationSeconds);
    }
};

QTEST_GUILESS_MAIN(TestAmp)
#include "tst_amp.moc"
