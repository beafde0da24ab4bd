// HetHub (core/planners/hethub): the DFS against a brute-force enumeration of the same space, the paper's
// stage rules, the orderings, the metrics' definitions, and the check of the paper's ordering claim.
#include "testutil.h"
#include "example_request.h"

#include "core/cost/costmodel.h"
#include "core/cost/memory.h"
#include "core/io/examples.h"
#include "core/planners/hethub/hethub_metrics.h"
#include "core/planners/planner.h"
#include "core/sim/simulator.h"

#include <QJsonArray>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <set>

using namespace hetplan;
using namespace hetplan::hethub;

namespace {

Cluster threeTypes(int gpusPerNode)
{
    Cluster c;
    c.name = "three";
    const char* devices[] = {"A100-40GB", "V100-16GB", "T4"};
    for (int i = 0; i < 3; ++i) {
        Node n;
        n.name = "n" + std::to_string(i);
        n.deviceType = devices[i];
        n.gpus = gpusPerNode;
        n.nicBandwidth = 12.5e9;
        c.nodes.push_back(n);
    }
    return c;
}

// Every split n_1 + ... + n_k = D with n_i ≥ p_i, scored like the DFS scores a leaf: the oracle.
std::vector<ScoredLeaf> bruteForce(const Predictor& p, int config)
{
    std::vector<ScoredLeaf> all;
    const std::vector<int>& stages = p.config().stagesPerType;
    std::vector<int> counts(stages.size(), 0);
    std::function<void(size_t, int)> rec = [&](size_t i, int rest) {
        if (i + 1 == stages.size()) {
            if (rest < stages[i])
                return;
            counts[i] = rest;
            const std::vector<StageSlot> order = p.descendingOrder(counts);
            const LeafScore s = p.score(order);
            if (s.fits)
                all.push_back({config, counts, order, s.seconds});
            return;
        }
        for (int n = stages[i]; n <= rest; ++n) {
            counts[i] = n;
            rec(i + 1, rest - n);
        }
    };
    rec(0, p.decoderCount());
    std::sort(all.begin(), all.end(), [](const ScoredLeaf& a, const ScoredLeaf& b) { return a.seconds < b.seconds; });
    return all;
}

struct Case {
    Cluster cluster;
    ModelSpec model;
    Job job;
};

std::vector<Case> smallCases()
{
    std::vector<Case> cases;
    Job job;
    job.globalBatchSize = 16;
    job.sequenceLength = 512;
    cases.push_back({threeTypes(4), buildGptModel("gpt-12", 12, 1024, 16, 512), job});
    cases.push_back({threeTypes(2), buildGptModel("gpt-10", 10, 2048, 16, 512), job});
    job.globalBatchSize = 32;
    cases.push_back(
        {test::twoNodeCluster("A100-40GB", 8, "T4", 8, 3e9), buildGptModel("gpt-16", 16, 1024, 16, 512), job});
    return cases;
}

// Cases where memory binds: a GPT too big for the small GPUs to hold many layers, so many splits fail and
// the memory bounds cut subtrees (BERT-MoE adds layers of unequal size, so windows differ).
std::vector<Case> tightCases()
{
    std::vector<Case> cases;
    Job job;
    job.globalBatchSize = 32;
    job.sequenceLength = 2048;
    cases.push_back({threeTypes(4), buildGptModel("gpt-wide", 14, 4096, 32, 2048), job});
    job.globalBatchSize = 64;
    job.sequenceLength = 512;
    cases.push_back({threeTypes(2), buildExampleModel("bert-moe", 512), job});
    return cases;
}

// The pruned DFS against the oracle, config by config: the same k best scores. Adds up the counters.
struct DfsTotals {
    long long pruned = 0, prunedMemory = 0, leavesDfs = 0, leavesAll = 0, feasible = 0;
};
void compareWithBruteForce(const Case& c, DfsTotals& totals)
{
    const CostModel costs(c.model, c.job, {});
    const std::vector<TypeGroup> groups = typeGroups(c.cluster);
    const std::vector<SpaceConfig> configs = enumerateConfigs(c.cluster, c.model, groups, c.job.globalBatchSize, 4);
    QVERIFY(!configs.empty());
    for (size_t i = 0; i < configs.size(); ++i) {
        const Predictor p(c.cluster, costs, groups, configs[i]);
        const std::vector<ScoredLeaf> all = bruteForce(p, int(i));
        for (int keep : {1, 3}) {
            LeafPool pool(keep);
            Progress progress;
            QVERIFY(searchSplits(p, int(i), pool, progress) == StopReason::None);
            const std::vector<ScoredLeaf> top = pool.sorted();
            QCOMPARE(top.size(), std::min(all.size(), size_t(keep)));
            for (size_t k = 0; k < top.size(); ++k)
                QCOMPARE(top[k].seconds, all[k].seconds); // same scores, same order
            // The best split itself, where the oracle's best is unique.
            if (!top.empty() && (all.size() == 1 || all[1].seconds > all[0].seconds))
                QCOMPARE(top[0].layersPerType, all[0].layersPerType);
            totals.pruned += pool.pruned;
            totals.prunedMemory += pool.prunedMemory;
            totals.leavesDfs += pool.leaves;
        }
        totals.leavesAll += 2 * (long long)all.size();
        totals.feasible += (long long)all.size();
    }
}

} // namespace

class TestHetHub : public QObject {
    Q_OBJECT
private slots:
    void dfsEqualsBruteForce()
    {
        DfsTotals t;
        for (const Case& c : smallCases()) {
            compareWithBruteForce(c, t);
            if (QTest::currentTestFailed())
                return;
        }
        QVERIFY(t.pruned > 0);              // the bound did cut subtrees ...
        QVERIFY(t.leavesDfs < t.leavesAll); // ... and fewer leaves were scored than exist
    }

    // Where memory binds, the memory bounds cut subtrees and the answer is still the oracle's.
    void memoryBoundsKeepTheExactAnswer()
    {
        DfsTotals t;
        for (const Case& c : tightCases()) {
            compareWithBruteForce(c, t);
            if (QTest::currentTestFailed())
                return;
        }
        qInfo("tight cases: %lld feasible splits, %lld subtrees pruned, %lld of them for memory", t.feasible, t.pruned,
              t.prunedMemory);
        QVERIFY(t.feasible > 0);     // something fits, so the comparison is not vacuous ...
        QVERIFY(t.prunedMemory > 0); // ... and the memory bounds did cut
    }

    // inFlightTolerance against its definition, by direct calls to the shared memory model: for every
    // stage size n, the most micro-batches in flight with which some window of n decoder layers fits.
    void inFlightToleranceIsTheBestWindow()
    {
        int bounded = 0;
        for (const Case& c : tightCases()) {
            const CostModel costs(c.model, c.job, {});
            const std::vector<TypeGroup> groups = typeGroups(c.cluster);
            const DecoderRange dec = decoderRange(c.model);
            for (const SpaceConfig& cfg : enumerateConfigs(c.cluster, c.model, groups, c.job.globalBatchSize, 2)) {
                const Predictor p(c.cluster, costs, groups, cfg);
                const int shards = c.job.zeroStage > 0 ? cfg.dp : 1;
                for (int t = 0; t < p.typeCount(); ++t) {
                    const Node& node = c.cluster.nodeOf(groups[size_t(t)].gpus.front()); // one node per type
                    const DeviceType& device = costs.device(groups[size_t(t)].device);
                    for (int n = 1; n <= dec.count(); ++n) {
                        int expect = 0;
                        for (int a = dec.first; a + n <= dec.end; ++a)
                            for (int f = 1; f <= cfg.microBatches; ++f)
                                // The tolerance is an upper bound: the fewest communicators (tp only).
                                if (fitsMemory(stagePeakMemory(c.model, a, a + n, cfg.tp, shards, cfg.microBatchSize, f,
                                                               c.job),
                                               node, device, c.job, RankGroups::pipelineStage(cfg.tp, 1, 1, 0, false)))
                                    expect = std::max(expect, f);
                        QCOMPARE(p.inFlightTolerance(t, n), expect);
                        bounded += expect < cfg.microBatches ? 1 : 0;
                    }
                    int most = 0;
                    while (most < dec.count() && p.inFlightTolerance(t, most + 1) >= 1)
                        ++most;
                    QCOMPARE(p.maxStageLayers(t), most);
                }
            }
        }
        QVERIFY(bounded > 0); // memory limits the in-flight count somewhere, so the check has teeth
    }

    // The seeding pass (a leaf budget) followed by the full search gives exactly the full search's pool:
    // the budget stops after that many leaves, and a leaf found twice is kept once.
    void seedingPassChangesNothing()
    {
        for (const Case& c : smallCases()) {
            const CostModel costs(c.model, c.job, {});
            const std::vector<TypeGroup> groups = typeGroups(c.cluster);
            const std::vector<SpaceConfig> configs =
                enumerateConfigs(c.cluster, c.model, groups, c.job.globalBatchSize, 4);
            for (size_t i = 0; i < configs.size(); ++i) {
                const Predictor p(c.cluster, costs, groups, configs[i]);
                Progress progress;
                LeafPool full(3), seeded(3);
                searchSplits(p, int(i), full, progress);
                searchSplits(p, int(i), seeded, progress, true, 2);
                QVERIFY(seeded.leaves <= 2);
                searchSplits(p, int(i), seeded, progress);
                const std::vector<ScoredLeaf> a = full.sorted(), b = seeded.sorted();
                QCOMPARE(a.size(), b.size());
                for (size_t k = 0; k < a.size(); ++k) {
                    QCOMPARE(b[k].seconds, a[k].seconds);
                    QCOMPARE(b[k].layersPerType, a[k].layersPerType);
                }
            }
        }
    }

    void noPruneVisitsEverySplit()
    {
        // Three types of 2 GPUs, dp = tp = 1: p = (2, 2, 2), D = 10 → n_i ≥ 2, Σ = 10 → C(10-6+2, 2) = 15
        // splits; without pruning the DFS scores all 15 (memory permitting, and gpt-10 fits).
        const Case c = smallCases()[1];
        const CostModel costs(c.model, c.job, {});
        const std::vector<TypeGroup> groups = typeGroups(c.cluster);
        SpaceConfig cfg;
        cfg.stagesPerType = {2, 2, 2};
        cfg.microBatches = c.job.globalBatchSize;
        const Predictor p(c.cluster, costs, groups, cfg);
        LeafPool pool(1000);
        Progress progress;
        searchSplits(p, 0, pool, progress, false);
        QCOMPARE(pool.leaves, 15LL);
        QCOMPARE(pool.pruned, 0LL);
    }

    void stageRules()
    {
        const Case c = smallCases()[0]; // 3 types × 4 GPUs, 12 decoder layers between embedding and head
        const CostModel costs(c.model, c.job, {});
        const std::vector<TypeGroup> groups = typeGroups(c.cluster);
        SpaceConfig cfg;
        cfg.dp = 2;
        cfg.stagesPerType = {2, 2, 2};
        cfg.microBatches = 8;
        const Predictor p(c.cluster, costs, groups, cfg);
        // A100 gets 5 → stages of 3 and 2; V100 4 → 2 + 2; T4 3 → 2 + 1 (±1 inside a type).
        const std::vector<StageSlot> order = p.descendingOrder({5, 4, 3});
        QCOMPARE(order.size(), size_t(6));
        for (size_t s = 0; s + 1 < order.size(); ++s) // descending estimated time
            QVERIFY(p.decoderSeconds(order[s].type, order[s].layers) >=
                    p.decoderSeconds(order[s + 1].type, order[s + 1].layers));
        std::vector<int> perType(3, 0);
        for (const StageSlot& s : order)
            perType[s.type] += s.layers;
        QCOMPARE(perType, (std::vector<int>{5, 4, 3}));
        // Bounds: the embedding (layer 0) rides with stage 0, the head (layer 13) with the last stage.
        const std::vector<int> b = p.bounds(order);
        QCOMPARE(b.front(), 0);
        QCOMPARE(b.back(), c.model.layerCount());
        QCOMPARE(b[1], 1 + order[0].layers);
        // Stage GPUs: the k-th stage of a type takes chunk k (dp·tp = 2 GPUs), no GPU twice.
        std::set<int> seen;
        for (const std::vector<int>& g : p.stageGpus(order)) {
            QCOMPARE(g.size(), size_t(2));
            for (int x : g)
                QVERIFY(seen.insert(x).second);
        }
        QCOMPARE(seen.size(), size_t(12));
    }

    void orderings()
    {
        // {A:2, A:2, B:3}: 3!/2! = 3 distinct orders; {A:2, A:3, B:3}: 3! = 6.
        QCOMPARE(allOrderings({{0, 2}, {0, 2}, {1, 3}}, 100)->size(), size_t(3));
        QCOMPARE(allOrderings({{0, 2}, {0, 3}, {1, 3}}, 100)->size(), size_t(6));
        QVERIFY(!allOrderings({{0, 2}, {0, 3}, {1, 3}}, 5).has_value());
    }

    void configsUseEveryGpu()
    {
        // 4 + 4 GPUs, gpt-12 (heads 16): tp ∈ {1, 2, 4}; dp | 4/tp; stages per type = 4 / (dp·tp).
        const Cluster c = threeTypes(4);
        const ModelSpec m = buildGptModel("gpt-12", 12, 1024, 16, 512);
        const std::vector<TypeGroup> groups = typeGroups(c);
        for (const SpaceConfig& cfg : enumerateConfigs(c, m, groups, 16, 1)) {
            for (int p : cfg.stagesPerType)
                QCOMPARE(p * cfg.dp * cfg.tp, 4);
            QCOMPARE(cfg.microBatches * cfg.dp * cfg.microBatchSize, 16);
        }
        QCOMPARE(enumerateConfigs(c, m, groups, 16, 1).size(), size_t(6)); // (1,1),(1,2),(1,4),(2,1),(2,2),(4,1)
    }

    void metricsDefinitions()
    {
        PlanRequest req;
        req.cluster = test::twoNodeCluster("A100-40GB", 4, "V100-16GB", 4, 3e9);
        req.model = buildGptModel("gpt-8", 8, 1024, 16, 512);
        req.job.globalBatchSize = 16;
        req.job.sequenceLength = 512;
        test::usePaperSpace(req.options); // the paper's metrics of the paper's plan
        Progress progress;
        const Plan plan = runPlanner("hethub", req, progress);
        const QJsonObject d = plan.details.at("hethub");
        // eq. 2 by hand: 512 tokens × 16 samples / (8 GPUs × T).
        const double tpgs = 512.0 * 16 / (8 * plan.estimate.iterationSeconds);
        QVERIFY(std::abs(d["tokens_per_gpu_second"].toDouble() - tpgs) <= 1e-9 * tpgs);
        // eq. 4 by hand: 3 × forward FLOPs × 16 / (8 × T) over the mean of 312 and 125 TFLOPS.
        const double mfu =
            3 * req.model.totalForwardFlops() * 16 / (8 * plan.estimate.iterationSeconds) / ((312e12 + 125e12) / 2);
        QVERIFY(std::abs(d["mfu"].toDouble() - mfu) <= 1e-9 * mfu);
        // eq. 3: Σ T_i N_i / Σ N_i over the two homogeneous runs.
        const QJsonArray h = d["homogeneous"].toArray();
        QCOMPARE(h.size(), 2);
        const double ub = (h[0].toObject()["tokens_per_gpu_second"].toDouble() * 4 +
                           h[1].toObject()["tokens_per_gpu_second"].toDouble() * 4) /
                          8;
        QVERIFY(std::abs(d["additive_upper_bound_tokens_per_gpu_second"].toDouble() - ub) <= 1e-9 * ub);
        QVERIFY(d["uniform_split_tokens_per_gpu_second"].toDouble() > 0);
        QVERIFY(d["uniform_split_feasible"].toBool());
        // The gain is the chosen plan's throughput over the twin's.
        QCOMPARE(d["gain_over_uniform_split"].toDouble(),
                 d["tokens_per_gpu_second"].toDouble() / d["uniform_split_tokens_per_gpu_second"].toDouble());
        test::checkPipelineInvariants(plan, nullptr, true);
    }

    // The paper's claim (sec. 3.3.2): for 1F1B the iteration is shortest with stages in descending order of
    // their time. For every config of some small cases, the DFS's best split is simulated in descending
    // order and in every other order; the table printed is the report's ordering-claim table.
    void orderingClaim()
    {
        struct Row {
            std::string name;
            int points = 0, fails = 0;
            double worst = 0, sum = 0;
        };
        std::vector<Row> rows;
        std::vector<std::pair<std::string, Case>> cases;
        const std::vector<Case> small = smallCases();
        cases.push_back({"A100+V100+T4 x4, gpt-12, gbs16", small[0]});
        cases.push_back({"A100+V100+T4 x2, gpt-10, gbs16", small[1]});
        cases.push_back({"A100-40GB 8 + T4 8, gpt-16, gbs32", small[2]});
        Case pair{exampleCluster("hethub-pair"), buildExampleModel("llama2-7b", 1024), {}};
        pair.job.globalBatchSize = 64;
        pair.job.sequenceLength = 1024;
        cases.push_back({"hethub-pair, llama2-7b, gbs64", pair});
        for (const auto& [name, c] : cases) {
            Row row{name};
            const CostModel costs(c.model, c.job, {});
            const std::vector<TypeGroup> groups = typeGroups(c.cluster);
            const std::vector<SpaceConfig> configs =
                enumerateConfigs(c.cluster, c.model, groups, c.job.globalBatchSize, 2);
            PlanRequest req;
            req.cluster = c.cluster;
            req.model = c.model;
            req.job = c.job;
            for (size_t i = 0; i < configs.size(); ++i) {
                const Predictor p(c.cluster, costs, groups, configs[i]);
                LeafPool pool(1);
                Progress progress;
                searchSplits(p, int(i), pool, progress);
                if (pool.sorted().empty() || p.config().stageCount() > 7)
                    continue; // nothing fits, or too many orders to enumerate here
                const std::vector<StageSlot> desc = pool.sorted()[0].order;
                long long tried = 0;
                auto [best, bestPlan] = bestOrdering(p, req, costs, desc, 5040, tried);
                Plan descPlan = strategyPlan(leafStrategy(p, desc, 0), req.cluster, req.model, req.job);
                scorePlan(descPlan, costs);
                QVERIFY(bestPlan.estimate.iterationSeconds <= descPlan.estimate.iterationSeconds);
                const double gap = descPlan.estimate.iterationSeconds / bestPlan.estimate.iterationSeconds - 1;
                ++row.points;
                row.fails += gap > 1e-9 ? 1 : 0;
                row.worst = std::max(row.worst, gap);
                row.sum += gap;
            }
            rows.push_back(row);
        }
        qInfo("%-38s %6s %6s %10s %10s", "case", "splits", "fails", "mean gap", "worst gap");
        for (const Row& r : rows)
            qInfo("%-38s %6d %6d %9.3f%% %9.3f%%", r.name.c_str(), r.points, r.fails,
                  r.points ? 100 * r.sum / r.points : 0.0, 100 * r.worst);
    }

    // Two nodes of two vendors, so the boundary takes the CPU path: 2 A100-80GB + 2 MI210, NICs and CPU
    // path at 2 GB/s, 20 µs between nodes. Four toy layers, measured at f = 10 ms, b = 20 ms, step 1 ms;
    // dp 2, tp 1, 2 layers per stage, global batch 8 → M = 4 micro-batches of 1.
    //   Boundary: both replicas' flows leave node a at once and split its NIC: 1 GB/s each, so one send
    //   of 1e8 B takes c = 20 µs + 0.1 s = 0.10002 s (the old model took 2 GB/s: 0.05002 s).
    //   Stage time t = 0.06 s; a blocking send holds its stage, so each stage spends 0.06 + c per
    //   micro-batch. 1F1B, stage 0 with one warm-up forward:
    //     s0 F0 [0, .02] send → .12002; F1 [.12002, .14002] send → .24004
    //     s1 F0 [.12002, .14002] B0 → .18002 send → .28004; s0 B0 → .32004, F2 → .34004 send → .44006
    //     s1 F1 [.28004, .30004] B1 → .34004 send → .44006; s0 B1 → .48006, F3 → .50006 send → .60008
    //     s1 F2 [.44006, .46006] B2 → .50006 send → .60008; s0 B2 → .64008
    //     s1 F3 [.60008, .62008] B3 → .66008 send → .76010; s0 B3 → .80010
    //   Then stage 0's all-reduce of 2e6 fp16 gradients over NVLink (~0.1 ms) and its 2 ms step:
    //   about 0.8022 s.
    void cpuPathEstimateMatchesSimulator()
    {
        Cluster cluster = test::twoNodeCluster("A100-80GB", 2, "MI210", 2, 2e9);
        cluster.cpuInterBandwidth = 2e9;
        cluster.interLatency = 20e-6;
        QCOMPARE(cluster.path(0, 2), Communicator::CpuEthernet);
        ModelSpec model = test::toyModel(4, 1e9, 1e6, 1e8);
        Job job;
        job.globalBatchSize = 8;
        job.sequenceLength = 1;
        Profile prof;
        for (const char* device : {"A100-80GB", "MI210"})
            prof.set({device, 1, 1}, std::vector<LayerTiming>(4, LayerTiming{0.010, 0.020, 0.001}));
        const CostModel costs(model, job, prof);
        const std::vector<TypeGroup> groups = typeGroups(cluster);
        std::optional<SpaceConfig> config;
        for (const SpaceConfig& c : enumerateConfigs(cluster, model, groups, 8, 1))
            if (c.dp == 2 && c.tp == 1)
                config = c;
        QVERIFY(config && config->microBatches == 4);
        const Predictor p(cluster, costs, groups, *config);
        const std::vector<StageSlot> order{{0, 2}, {1, 2}};
        const double predicted = p.score(order).seconds;
        QVERIFY2(std::abs(predicted - 0.8022) < 0.0005, qPrintable(QString::number(predicted, 'g', 8)));
        PlanRequest req;
        req.cluster = cluster;
        req.model = model;
        req.job = job;
        Plan plan = strategyPlan(leafStrategy(p, order, predicted), cluster, model, job);
        scorePlan(plan, costs);
        const double simulated = plan.estimate.iterationSeconds;
        QVERIFY2(std::abs(simulated - 0.8022) < 0.0005, qPrintable(QString::number(simulated, 'g', 8)));
        QVERIFY(std::abs(predicted / simulated - 1) < 0.02);
    }

    // A batch no dp > 1 divides: 4 + 4 GPUs allow dp 2 and 4 (tp 1: 4 groups per type), 1023 = 3·11·31.
    void oddBatchSaysDataParallelismIsOff()
    {
        const Cluster c = test::twoNodeCluster("A100-40GB", 4, "V100-16GB", 4, 3e9);
        const ModelSpec m = buildGptModel("gpt-8", 8, 1024, 16, 512);
        const std::vector<TypeGroup> groups = typeGroups(c);
        const std::string w = dataParallelWarning(c, m, groups, 1023);
        QVERIFY2(w.find("global batch 1023 has no divisor ≤ 4") == 0, w.c_str());
        QVERIFY2(w.find("(2, 4)") != std::string::npos, w.c_str());
        QVERIFY(dataParallelWarning(c, m, groups, 1022).empty()); // 2 divides it
        QVERIFY(dataParallelWarning(c, m, groups, 0).empty());    // bad input: no warning, no crash
        PlanRequest req;
        req.cluster = c;
        req.model = m;
        req.job.globalBatchSize = 1023;
        req.job.sequenceLength = 512;
        req.options["metrics"] = "false";
        Progress progress;
        const Plan plan = runPlanner("hethub", req, progress);
        const QJsonObject d = plan.details.at("hethub");
        QCOMPARE(plan.pipelines.at(0).replicas, 1);
        QCOMPARE(d["warnings"].toArray().at(0).toString(), QString::fromStdString(w));
    }

    // A100-80GB + T4, one GPU each, a GPT of 16 layers of hidden 4096: 12·4096² ≈ 201 M parameters a layer,
    // 16 B each with mixed-precision Adam ≈ 3.2 GB. The even split puts 8 layers (≈ 26 GB of model states)
    // on the 16 GB T4, which cannot fit, while the A100 can take all but a few layers. So the uniform twin reports
    // that it does not fit and no gain.
    void uniformTwinThatDoesNotFitHasNoGain()
    {
        PlanRequest req;
        req.cluster = test::twoNodeCluster("A100-80GB", 1, "T4", 1, 3e9);
        req.model = buildGptModel("gpt-wide", 16, 4096, 32, 512);
        req.job.globalBatchSize = 4;
        req.job.sequenceLength = 512;
        Progress progress;
        const Plan plan = runPlanner("hethub", req, progress);
        QVERIFY(plan.estimate.feasible);
        const QJsonObject d = plan.details.at("hethub");
        QCOMPARE(d["uniform_split_feasible"].toBool(), false);
        QCOMPARE(d["uniform_split"].toString(), QStringLiteral("uniform split does not fit memory"));
        QVERIFY(!d.contains("uniform_split_tokens_per_gpu_second"));
        QVERIFY(!d.contains("gain_over_uniform_split"));
    }

    void subCluster()
    {
        Cluster c = threeTypes(2);
        c.links.push_back({"n0", "n1", 1e9, 1e-5});
        const Cluster sub = typeSubCluster(c, "V100-16GB");
        QCOMPARE(sub.nodes.size(), size_t(1));
        QCOMPARE(sub.nodes[0].name, std::string("n1"));
        QVERIFY(sub.links.empty());
    }
};

QTEST_MAIN(TestHetHub)
#include "tst_hethub.moc"
