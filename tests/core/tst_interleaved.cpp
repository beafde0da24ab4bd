// Interleaved 1F1B (Megatron's virtual pipeline stages): the op order written out by hand from Megatron's
// rule, the bubble's closed form, the memory its order keeps in flight, the extra sends, the plan rules,
// the JSON round trip, the framework verdicts and the Megatron arguments.
#include "simfixtures.h"

#include "core/base/errors.h"
#include "core/io/exporters.h"
#include "core/io/json_io.h"
#include "core/model/frameworks.h"
#include "core/sim/pipeline_schedule.h"
#include "core/sim/simulator.h"

#include <QJsonArray>
#include <QTest>

#include <algorithm>
#include <numeric>

using namespace hetplan;
using namespace hetplan::simtest;
using simdetail::ScheduleOp;

namespace {

ScheduleOp F(int chunk, int m) { return {true, chunk, m}; }
ScheduleOp B(int chunk, int m) { return {false, chunk, m}; }

// S stages of `perStage` one-second layers (forward f, backward b per layer) on S GPUs of one node, free
// links, M micro-batches of one sample, v virtual stages.
Plan chain(int S, int perStage, int M, int v, double f, double b, Profile& prof, double activation = 0)
{
    const int L = S * perStage;
    Cluster c = testCluster({{"TestA", S}}, 1e300, 1e300);
    ModelSpec m = testModel(L, 0, 0, activation);
    Job j;
    j.globalBatchSize = M;
    prof = Profile();
    setTimes(prof, "TestA", 1, 1, std::vector<double>(L, f), std::vector<double>(L, b));
    Plan plan = makePlan(c, m, j, prof);
    std::vector<int> bounds;
    std::vector<std::vector<int>> gpus;
    for (int s = 0; s <= S; ++s)
        bounds.push_back(s * perStage);
    for (int s = 0; s < S; ++s)
        gpus.push_back({s});
    plan.pipelines.push_back(makePipeline(bounds, gpus, 1, 1, M));
    plan.pipelines[0].virtualStages = v;
    return plan;
}

SimResult run(const Plan& plan, const Profile& prof)
{
    return simulate(plan, CostModel(plan.model, plan.job, prof, testCatalog()));
}

// gpt2-amp-like layer kinds: an embedding, `blocks` blocks and a head.
ModelSpec withEnds(int blocks)
{
    ModelSpec m = testModel(blocks + 2);
    m.layers.front().kind = LayerKind::Embedding;
    m.layers.back().kind = LayerKind::Head;
    return m;
}

} // namespace

class TestInterleaved : public QObject {
    Q_OBJECT
private slots:
    void opOrderFollowsMegatron()
    {
        // Megatron's rule for 2 stages, 4 micro-batches, 2 chunks: forwards go in groups of 2 micro-batches
        // through chunk 0 then chunk 1; backwards through chunk 1 then chunk 0. Stage 0 warms up with
        // (2 − 0 − 1)·2 + (2 − 1)·2 = 4 forwards, stage 1 with 0 + 2 = 2.
        const std::vector<ScheduleOp> stage0{F(0, 0), F(0, 1), F(1, 0), F(1, 1), F(0, 2), B(1, 0), F(0, 3), B(1, 1),
                                             F(1, 2), B(0, 0), F(1, 3), B(0, 1), B(1, 2), B(1, 3), B(0, 2), B(0, 3)};
        const std::vector<ScheduleOp> stage1{F(0, 0), F(0, 1), F(1, 0), B(1, 0), F(1, 1), B(1, 1), F(0, 2), B(0, 0),
                                             F(0, 3), B(0, 1), F(1, 2), B(1, 2), F(1, 3), B(1, 3), B(0, 2), B(0, 3)};
        QVERIFY(simdetail::stageOps(2, 0, 4, 2, false) == stage0);
        QVERIFY(simdetail::stageOps(2, 1, 4, 2, false) == stage1);
        // One chunk is plain 1F1B: stage 0 of 2 warms up with one forward.
        const std::vector<ScheduleOp> plain{F(0, 0), F(0, 1), B(0, 0), F(0, 2), B(0, 1), F(0, 3), B(0, 2), B(0, 3)};
        QVERIFY(simdetail::stageOps(2, 0, 4, 1, false) == plain);
        // The warm-up is capped at every forward: stage 0 of 2 with 2 micro-batches and 2 chunks would warm up
        // with 4 = all of them; stage 1 warms up with 2 and then alternates.
        const std::vector<ScheduleOp> s0{F(0, 0), F(0, 1), F(1, 0), F(1, 1), B(1, 0), B(1, 1), B(0, 0), B(0, 1)};
        const std::vector<ScheduleOp> s1{F(0, 0), F(0, 1), F(1, 0), B(1, 0), F(1, 1), B(1, 1), B(0, 0), B(0, 1)};
        QVERIFY(simdetail::stageOps(2, 0, 2, 2, false) == s0);
        QVERIFY(simdetail::stageOps(2, 1, 2, 2, false) == s1);
    }

    void bubbleShrinksByTheChunks_data()
    {
        QTest::addColumn<int>("S");
        QTest::addColumn<int>("M");
        QTest::addColumn<int>("v");
        QTest::newRow("4 stages, 8 micro-batches, 2 chunks") << 4 << 8 << 2;
        QTest::newRow("4 stages, 8 micro-batches, 4 chunks") << 4 << 8 << 4;
        QTest::newRow("2 stages, 6 micro-batches, 2 chunks") << 2 << 6 << 2;
        QTest::newRow("8 stages, 16 micro-batches, 2 chunks") << 8 << 16 << 2;
    }
    void bubbleShrinksByTheChunks()
    {
        QFETCH(int, S);
        QFETCH(int, M);
        QFETCH(int, v);
        // Equal one-layer chunks (forward = backward = 1 s), free sends: 1F1B takes (M + S − 1)·(F + B) with
        // F = B = v per stage; interleaving divides the bubble by v: (M + (S − 1)/v)·(F + B).
        Profile prof;
        const Plan plain = chain(S, v, M, 1, 1, 1, prof);
        QCOMPARE(run(plain, prof).iterationSeconds, (M + S - 1) * 2.0 * v);
        const Plan interleaved = chain(S, v, M, v, 1, 1, prof);
        QCOMPARE(run(interleaved, prof).iterationSeconds, (M + double(S - 1) / v) * 2.0 * v);
    }

    void memoryHoldsTheWarmUpChunks()
    {
        // Stage 0 of 2 with 2 chunks and 4 micro-batches peaks at 5 chunk-micro-batches in flight (its 4
        // warm-up forwards and the first steady one), each half the stage's activations: 2.5 stages' worth,
        // Korthikanti et al.'s (1 + (p − 1)/(p·v)) = 1.25 times plain 1F1B's 2. Stage 1: 3 chunks.
        const std::vector<double> half{0.5, 0.5};
        QCOMPARE(simdetail::peakInFlight(simdetail::stageOps(2, 0, 4, 2, false), half), 2.5);
        QCOMPARE(simdetail::peakInFlight(simdetail::stageOps(2, 1, 4, 2, false), half), 1.5);
        QCOMPARE(simdetail::peakInFlight(simdetail::stageOps(2, 0, 4, 1, false), {1.0}), 2.0);
        // The simulator's memory: two 1e6-byte layers per stage, one sample per micro-batch.
        Profile prof;
        const SimResult r = run(chain(2, 2, 4, 2, 1, 1, prof, 1e6), prof);
        QCOMPARE(r.memory.at(0).activations, 5e6);
        QCOMPARE(r.memory.at(1).activations, 3e6);
        QCOMPARE(run(chain(2, 2, 4, 1, 1, 1, prof, 1e6), prof).memory.at(0).activations, 4e6);
    }

    void chunksChangeStagesOverTheLastLink()
    {
        // Costly links: the last stage now sends activations (its chunk 0 to stage 0's chunk 1) and stage 0
        // sends gradients back to it, M of each, besides the plain boundary sends of both chunks.
        Profile prof;
        Plan plan = chain(2, 2, 4, 2, 1, 1, prof);
        plan.cluster = testCluster({{"TestA", 2}}, 1e6, 1e6);
        for (LayerSpec& l : plan.model.layers)
            l.outputBytes = 1e5;
        const SimResult r = run(plan, prof);
        auto count = [&](EventKind k, int stage, int chunk) {
            return std::count_if(r.events.begin(), r.events.end(), [&](const TimelineEvent& e) {
                return e.kind == k && e.stage == stage && e.chunk == chunk;
            });
        };
        QCOMPARE(count(EventKind::SendActivation, 1, 0), 4L);
        QCOMPARE(count(EventKind::SendActivation, 1, 1), 0L); // the model's end
        QCOMPARE(count(EventKind::SendActivation, 0, 0) + count(EventKind::SendActivation, 0, 1), 8L);
        QCOMPARE(count(EventKind::SendGradient, 0, 1), 4L);
        QCOMPARE(count(EventKind::SendGradient, 0, 0), 0L); // the model's start
        // Every compute event carries its chunk.
        QCOMPARE(count(EventKind::Forward, 0, 1), 4L);
        QCOMPARE(count(EventKind::Backward, 1, 0), 4L);
    }

    void chunksKeepTheEmbeddingAndHeadAtTheEnds()
    {
        // 26 layers (embedding, 24 blocks, head) in stages of 7, 6, 6, 7 layers, 2 chunks: every chunk gets
        // 3 blocks; the embedding rides with stage 0's first chunk, the head with stage 3's last.
        Pipeline pl;
        for (auto [first, end] : {std::pair{0, 7}, {7, 13}, {13, 19}, {19, 26}})
            pl.stages.push_back(Stage{first, end, {}, 1, 1});
        pl.virtualStages = 2;
        const std::vector<ModelChunk> c = pl.chunks(withEnds(24));
        QCOMPARE(int(c.size()), 8);
        const std::vector<std::pair<int, int>> want{{0, 4}, {4, 7}, {7, 10}, {10, 13}, {13, 16}, {16, 19}, {19, 22}, {22, 26}};
        for (size_t q = 0; q < c.size(); ++q) {
            QCOMPARE(c[q].stage, int(q % 4));
            QCOMPARE(c[q].chunk, int(q / 4));
            QCOMPARE(std::pair(c[q].firstLayer, c[q].endLayer), want[q]);
        }
        // Uneven: 5 blocks in 2 chunks are 3 + 2, the larger chunk first.
        pl.stages = {Stage{0, 6, {}, 1, 1}, Stage{6, 12, {}, 1, 1}};
        const std::vector<ModelChunk> u = pl.chunks(withEnds(10));
        QCOMPARE(u[0].endLayer - u[0].firstLayer, 1 + 3); // embedding + 3
        QCOMPARE(u[1].endLayer - u[1].firstLayer, 3);
        QCOMPARE(u[2].endLayer - u[2].firstLayer, 2);
        QCOMPARE(u[3].endLayer - u[3].firstLayer, 2 + 1); // 2 + head
    }

    void planRulesRefuseWhatMegatronCannotRun()
    {
        Profile prof;
        QVERIFY(refusal(chain(2, 2, 4, 2, 1, 1, prof)).empty());
        QVERIFY(refusal(chain(2, 2, 5, 2, 1, 1, prof)).find("multiple of the stages") != std::string::npos);
        QVERIFY(refusal(chain(2, 1, 4, 2, 1, 1, prof)).find("chunks") != std::string::npos);
        QVERIFY(refusal(chain(1, 2, 4, 2, 1, 1, prof)).find("two stages") != std::string::npos);
        Plan gpipe = chain(2, 2, 4, 2, 1, 1, prof);
        gpipe.job.schedule = Schedule::GPipe;
        QVERIFY(refusal(gpipe).find("GPipe") != std::string::npos);
    }

    void jsonKeepsTheVirtualStages()
    {
        Profile prof;
        Plan plan = chain(2, 2, 4, 2, 1, 1, prof);
        plan.job.selectiveRecompute = true;
        plan.cluster = testCluster({{"V100-16GB", 2}}, 1e11, 1e10); // a device the catalog knows
        plan.profile = Profile();
        const Plan back = planFromJson(toJson(plan), "plan");
        QCOMPARE(back.pipelines[0].virtualStages, 2);
        QVERIFY(back.job.selectiveRecompute);
        // A plain plan does not write the key.
        plan.pipelines[0].virtualStages = 1;
        QVERIFY(!toJson(plan).value("pipelines").toArray()[0].toObject().contains("virtual_stages"));
    }
};

QTEST_GUILESS_MAIN(TestInterleaved)
#include "tst_interleaved.moc"
