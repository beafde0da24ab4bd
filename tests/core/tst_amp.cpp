// AMP: the eq. 3-5 cost model on hand-computed cases, Megatron and domino placements, the `amp` planner's
// invariants and memory handling, and the paper's two headline comparisons (vs Megatron on the
// heterogeneous cluster, DP layer split vs uniform split on the heterogeneous TransGAN model).
#include "core/base/errors.h"
#include "core/cost/memory.h"
#include "core/io/examples.h"
#include "core/io/importers.h"
#include "core/planners/amp/amp_cost.h"
#include "core/planners/amp/amp_planner.h"
#include "core/planners/amp/domino.h"
#include "core/planners/common/bounds.h"
#include "core/planners/common/strategy.h"
#include "core/sim/simulator.h"
#include "testutil.h"

#include <QFileInfo>
#include <QTest>

#include <cmath>
#include <limits>
#include <random>
#include <set>
#include <tuple>

using namespace hetplan;

namespace {

// Two nodes of `gpus` GPUs each; 100 GB/s inside a node, 1 GB/s between nodes, no latency.
Cluster plainTwoNodes(const std::string& typeA, const std::string& typeB, int gpus)
{
    Cluster c = test::twoNodeCluster(typeA, gpus, typeB, gpus, 1e9);
    for (Node& n : c.nodes)
        n.intraBandwidth = 100e9;
    c.intraLatency = 0;
    c.interLatency = 0;
    return c;
}

// Measured per-layer times at tp 1, micro-batch 1 (so layer times are exactly known).
Profile flatProfile(const std::string& device, int layers, double fwd, double bwd)
{
    Profile p;
    p.model = "toy";
    p.source = "test";
    p.set({device, 1, 1}, std::vector<LayerTiming>(layers, LayerTiming{fwd, bwd, 0, -1}));
    return p;
}

Job jobWithBatch(int gbs)
{
    Job j;
    j.globalBatchSize = gbs;
    return j;
}

PlanRequest request(const Cluster& c, const ModelSpec& m, int gbs)
{
    PlanRequest r;
    r.cluster = c;
    r.model = m;
    r.job = jobWithBatch(gbs);
    return r;
}

Plan run(const std::string& planner, const PlanRequest& req)
{
    registerBuiltinPlanners();
    Progress progress;
    return runPlanner(planner, req, progress);
}

// Structural and memory invariants every pipeline plan from these planners must satisfy.
void checkPlan(const Plan& plan, const CostModel& costs)
{
    QCOMPARE(int(plan.pipelines.size()), 1);
    // Layers once in order, GPU counts, no GPU double-booked, all GPUs used, batches, memory fits.
    test::checkPipelineInvariants(plan, &costs, true);
    if (QTest::currentTestFailed())
        return;
    QVERIFY(plan.estimate.feasible);
    QVERIFY(plan.plannerEstimate.has_value() && *plan.plannerEstimate > 0);
}

Cluster v100Grid4x4()
{
    // AMP's heterogeneous-model setup: 4 p3.8xlarge (4 × V100, NVLink ~170 Gbps), 10 Gbps between nodes.
    Cluster c;
    c.name = "v100-4x4";
    for (int i = 0; i < 4; ++i) {
        Node n;
        n.name = "p3-" + std::to_string(i);
        n.deviceType = "V100-16GB";
        n.gpus = 4;
        n.intraBandwidth = 170e9 / 8;
        n.nicBandwidth = 10e9 / 8;
        c.nodes.push_back(n);
    }
    c.interLatency = 50e-6;
    return c;
}

} // namespace

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
        const Plan plan = run("amp", req);
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
                                open = open && fitsMemory(peak, node, costs.device(node.deviceType));
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
        o.ampCompactGpt2 = true;
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
                o.ampCompactGpt2 = true;
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
