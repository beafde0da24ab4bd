// The AMP paper's baselines: the Megatron heuristic, random search and simulated annealing with the
// domino placement — determinism for a seed and the invariants of every plan they return.
#include "core/base/errors.h"
#include "core/io/examples.h"
#include "core/planners/amp/amp_cost.h"
#include "core/planners/common/bounds.h"
#include "core/planners/common/strategy.h"
#include "core/planners/planner.h"
#include "testutil.h"

#include <QTest>

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

using namespace hetplan;

namespace {

PlanRequest request(const Cluster& c, const ModelSpec& m, int gbs)
{
    PlanRequest r;
    r.cluster = c;
    r.model = m;
    r.job.globalBatchSize = gbs;
    return r;
}

Plan run(const std::string& planner, const PlanRequest& req)
{
    Progress progress;
    return runPlanner(planner, req, progress);
}

void checkPlan(const Plan& plan)
{
    const CostModel costs(plan.model, plan.job, plan.profile);
    QCOMPARE(int(plan.pipelines.size()), 1);
    // These baselines have no data parallelism inside a stage: each stage holds replicas × tp GPUs, unless the
    // search regrouped replicas as a context-parallel group (its only dp ranks).
    for (const Stage& st : plan.pipelines[0].stages)
        QCOMPARE(st.dataParallel, plan.pipelines[0].contextParallel);
    // Layers once in order, GPU counts, no GPU double-booked, all GPUs used, batches, memory fits.
    test::checkPipelineInvariants(plan, &costs, true);
    if (QTest::currentTestFailed())
        return;
    QVERIFY(plan.estimate.feasible && plan.estimate.iterationSeconds > 0);
    QVERIFY(!plan.candidates.empty());
    for (const Candidate& c : plan.candidates) {
        QVERIFY(c.simulatedCost.has_value());
        QVERIFY(*c.simulatedCost >= plan.estimate.iterationSeconds * (1 - 1e-9));
    }
}

PlanRequest hetRequest() { return request(exampleCluster("amp-het-cluster"), buildExampleModel("gpt2-amp"), 32); }

} // namespace

class TestBaselines : public QObject {
    Q_OBJECT

private slots:
    void megatronHeuristic()
    {
        const PlanRequest req = hetRequest();
        const Plan plan = run("megatron", req);
        checkPlan(plan);
        // GPT-2 345M fits one GPU, so with micro-batch 1 or 2 the smallest tp·pp is 1: pure data
        // parallelism over all 16 GPUs (AMP sec. 4.5: "Megatron selects dp = 16"). A micro-batch m needs
        // gbs/dp = 32·tp·pp/16 divisible by m, so tp·pp ≥ m/2; every proposal of one micro-batch size
        // shares the same (smallest fitting) product.
        std::map<int, int> productOfMbs;
        for (const Candidate& c : plan.candidates) {
            QCOMPARE(c.pp * c.dp * c.tp, 16);
            QVERIFY(c.tp <= 4); // tensor parallelism inside a 4-GPU node
            QVERIFY(c.tp * c.pp >= std::max(1, c.microBatchSize / 2));
            if (c.microBatchSize <= 2)
                QCOMPARE(c.dp, 16);
            auto [it, fresh] = productOfMbs.emplace(c.microBatchSize, c.tp * c.pp);
            QCOMPARE(it->second, c.tp * c.pp);
        }
        QVERIFY(productOfMbs.count(1) && productOfMbs.count(2));
    }

    void megatronSmallestFittingProduct()
    {
        // 8 layers × 4e8 params (6.4 GB of model state per layer) on 2 nodes × 4 V100-16GB, gbs 8: at most
        // 2 layers' worth fit per GPU, so tp·pp ≥ 4; a micro-batch m also needs gbs/dp = tp·pp divisible
        // by m. Hence tp·pp = max(4, m), and for m ≤ 4 all of (tp 1, pp 4), (tp 2, pp 2), (tp 4, pp 1)
        // are proposed.
        PlanRequest req =
            request(test::twoNodeCluster("V100-16GB", 4, "V100-16GB", 4), test::toyModel(8, 1e9, 4e8, 1e5), 8);
        const Plan plan = run("megatron", req);
        checkPlan(plan);
        std::set<std::pair<int, int>> tpPp;
        for (const Candidate& c : plan.candidates) {
            QCOMPARE(c.tp * c.pp, std::max(4, c.microBatchSize));
            if (c.microBatchSize == 1)
                tpPp.insert({c.tp, c.pp});
        }
        QCOMPARE(tpPp, (std::set<std::pair<int, int>>{{1, 4}, {2, 2}, {4, 1}}));
    }

    void megatronBlockSplitAsAmpRanIt()
    {
        // AMP's GPT-2 has 30 entries: embedding, a no-op, 24 blocks, two no-ops, the output layer, a no-op.
        // Its table 8 lists Megatron's assignments [0, 14, 30] (pp 2) and [0, 8, 14, 20, 30] (pp 4): 12 or 6
        // blocks per stage, the embedding (and no-op) with the first, the tail with the last.
        ModelSpec m;
        m.name = "amp-gpt2";
        for (int i = 0; i < 30; ++i) {
            LayerSpec l;
            l.kind = (i >= 2 && i < 26) ? LayerKind::Transformer : LayerKind::Other;
            m.layers.push_back(l);
        }
        m.layers[0].kind = LayerKind::Embedding;
        m.layers[28].kind = LayerKind::Head;
        QCOMPARE(blockBounds(m, 2), (std::vector<int>{0, 14, 30}));
        QCOMPARE(blockBounds(m, 4), (std::vector<int>{0, 8, 14, 20, 30}));
        // 24 blocks over 5 stages: 4, 5, 5, 5, 5 blocks (the extra ones last, like uniformBounds): stage
        // starts at blocks 0, 4, 9, 14, 19 → layers 0, 6, 11, 16, 21.
        QCOMPARE(blockBounds(m, 5), (std::vector<int>{0, 6, 11, 16, 21, 30}));
        // Fewer blocks than stages: the plain layer split.
        QCOMPARE(blockBounds(m, 25), uniformBounds(30, 25));
    }

    void zeroTwoKeepsOneStage()
    {
        // DeepSpeed refuses ZeRO-2/3 with pipeline parallelism (so does the simulator): the search keeps only
        // one-stage strategies and says how many it dropped.
        PlanRequest req = hetRequest();
        req.job.zeroStage = 2;
        for (const char* name : {"amp", "random"}) {
            const Plan plan = run(name, req);
            QCOMPARE(int(plan.pipelines[0].stages.size()), 1);
            QVERIFY(plan.search.extra.at("dropped_for_zero") > 0);
        }
    }

    void megatronSplits()
    {
        // GPT-2's embedding and head carry far more parameters than a block: split=params moves layers
        // away from those stages, split=layers keeps the counts equal.
        PlanRequest req =
            request(test::twoNodeCluster("V100-16GB", 2, "V100-16GB", 2), buildExampleModel("gpt2-amp"), 4);
        req.model.layers[0].params *= 8; // make the first layer outweigh several blocks
        const Plan byLayers = run("megatron", req);
        req.options["split"] = "params";
        const Plan byParams = run("megatron", req);
        checkPlan(byLayers);
        checkPlan(byParams);
        // split=layers divides GPT-2's 24 blocks evenly, the embedding with the first stage and the head with
        // the last (pp = 2: 13 + 13 layers = 1 + 12 blocks and 12 blocks + 1).
        for (const Candidate& c : byLayers.candidates)
            if (c.pp > 1)
                QCOMPARE(c.layersPerStage.front(), 24 / c.pp + 1);
        bool uneven = false;
        for (const Candidate& c : byParams.candidates)
            if (c.pp > 1)
                uneven = uneven || c.layersPerStage.front() < c.layersPerStage.back();
        QVERIFY(uneven);
        req.options["split"] = "bogus";
        QVERIFY_THROWS_EXCEPTION(InputError, run("megatron", req));
    }

    void randomSearchDeterministic()
    {
        PlanRequest req = hetRequest();
        req.options["trials"] = "30";
        req.seed = 5;
        const Plan a = run("random", req);
        const Plan b = run("random", req);
        checkPlan(a);
        QCOMPARE(a.pipelines, b.pipelines);
        QCOMPARE(a.candidates, b.candidates);
        QCOMPARE(a.search.candidates, 30LL);
        // Candidates: top-k by simulated time, ascending.
        QVERIFY(a.candidates.size() <= 10);
        for (size_t i = 1; i < a.candidates.size(); ++i)
            QVERIFY(*a.candidates[i - 1].simulatedCost <= *a.candidates[i].simulatedCost);
        // Another seed explores other strategies.
        req.seed = 6;
        const Plan c = run("random", req);
        checkPlan(c);
        QVERIFY(c.candidates != a.candidates);
        req.options["trials"] = "0";
        QVERIFY_THROWS_EXCEPTION(InputError, run("random", req));
    }

    void randomSearchUsesRandomPlacements()
    {
        // Random placements are not Megatron's identity order (with 16 GPUs a shuffle is almost surely not).
        PlanRequest req = hetRequest();
        req.options["trials"] = "20";
        req.options["top_k"] = "20";
        const Plan p = run("random", req);
        std::vector<int> order;
        for (const Stage& st : p.pipelines[0].stages)
            order.insert(order.end(), st.gpus.begin(), st.gpus.end());
        std::vector<int> identity(order.size());
        std::iota(identity.begin(), identity.end(), 0);
        QVERIFY(order != identity);
    }

    void annealingDeterministic()
    {
        PlanRequest req = hetRequest();
        req.options["iterations"] = "120";
        req.seed = 42;
        const Plan a = run("annealing", req);
        const Plan b = run("annealing", req);
        checkPlan(a);
        QCOMPARE(a.pipelines, b.pipelines);
        QCOMPARE(a.candidates, b.candidates);
        QVERIFY(a.search.extra.at("recorded") >= 1);
        // The top-k recorded states are ranked by AMP's cost.
        for (size_t i = 1; i < a.candidates.size(); ++i)
            QVERIFY(a.candidates[i - 1].plannerCost <= a.candidates[i].plannerCost);
        // Its plan's layer split is AMP's DP on its own placement: re-solving gives the same cost.
        const Pipeline& pl = a.pipelines[0];
        Placement p{{int(pl.stages.size()), pl.replicas, pl.stages[0].tensorParallel}, {}};
        for (const Stage& st : pl.stages)
            p.gpus.insert(p.gpus.end(), st.gpus.begin(), st.gpus.end());
        const CostModel costs(a.model, a.job, a.profile);
        const AmpCostModel amp(a.cluster, costs);
        const AmpEstimate e = amp.evaluate(p, pl.microBatchSize, pl.microBatches);
        QVERIFY(std::abs(e.seconds - *a.plannerEstimate) <= 1e-9 * e.seconds);
        req.options["temperature"] = "-1";
        QVERIFY_THROWS_EXCEPTION(InputError, run("annealing", req));
    }

    void annealingDifferentSeeds()
    {
        PlanRequest req = hetRequest();
        req.options["iterations"] = "60";
        std::vector<std::vector<Candidate>> seen;
        for (unsigned long long seed : {1ULL, 2ULL, 3ULL}) {
            req.seed = seed;
            const Plan p = run("annealing", req);
            checkPlan(p);
            seen.push_back(p.candidates);
        }
        QVERIFY(seen[0] != seen[1] || seen[0] != seen[2]);
    }

    void registered()
    {
        for (const char* name : {"amp", "megatron", "random", "annealing"}) {
            auto p = PlannerRegistry::instance().create(name);
            QVERIFY(p != nullptr);
            QCOMPARE(p->name(), std::string(name));
            QVERIFY(!p->description().empty());
            QVERIFY(!p->options().empty());
        }
    }
};

QTEST_GUILESS_MAIN(TestBaselines)
#include "tst_baselines.moc"
