// The plan summary (core/sim/summary.h) on hand-built plans whose numbers are known exactly: the 1F1B
// bubble (S − 1) / (M + S − 1), per-type shares adding up to 1, headroom = capacity − peak, MFU, the
// bottleneck in words, and the summary's JSON round trip and schema.
#include "simfixtures.h"
#include "testutil.h"

#include "core/base/errors.h"
#include "core/io/json_io.h"
#include "core/io/schema_validate.h"
#include "core/sim/summary.h"

#include <QJsonArray>
#include <QTest>

#include <cmath>
#include <numeric>

using namespace hetplan;
using namespace hetplan::simtest;

namespace {

constexpr double kEps = 1e-12;

// S one-layer stages on S TestA GPUs of one node; sends and optimizer cost nothing (no bytes, no
// parameters), so only f[s] / b[s] per micro-batch take time.
Plan chainPlan(const std::vector<double>& f, const std::vector<double>& b, int M, Schedule sched = Schedule::OneFOneB)
{
    const int S = int(f.size());
    Job j;
    j.schedule = sched;
    j.globalBatchSize = M;
    Profile prof;
    setTimes(prof, "TestA", 1, 1, f, b);
    Plan plan = makePlan(testCluster({{"TestA", S}}, 1e300, 1e300), testModel(S), j, prof);
    std::vector<int> bounds(S + 1);
    std::iota(bounds.begin(), bounds.end(), 0);
    std::vector<std::vector<int>> gpus(S);
    for (int s = 0; s < S; ++s)
        gpus[s] = {s};
    plan.pipelines.push_back(makePipeline(bounds, gpus, 1, 1, M));
    return plan;
}

// Two stages on two types with real sends and gradient all-reduces (two replicas): every share is non-zero.
// The JSON tests use catalog types (a plan file names its devices from the catalog).
Plan mixedPlan(const std::string& typeA = "TestA", const std::string& typeB = "TestB")
{
    Job j;
    j.globalBatchSize = 8;
    Profile prof;
    setTimes(prof, typeA, 1, 1, {0.1, 0.1, 0.1, 0.1}, {0.2, 0.2, 0.2, 0.2});
    setTimes(prof, typeB, 1, 1, {0.2, 0.2, 0.2, 0.2}, {0.4, 0.4, 0.4, 0.4});
    Plan plan = makePlan(testCluster({{typeA, 2}, {typeB, 2}}, 1e9, 1e8), testModel(4, 1e7, 4e6, 1e6), j, prof);
    plan.pipelines.push_back(makePipeline({0, 2, 4}, {{0, 1}, {2, 3}}, 2, 1, 4));
    return plan;
}

Plan catalogPlanWithSummary()
{
    Plan plan = mixedPlan("A100-80GB", "V100-16GB");
    plan.summary = summarize(plan, CostModel(plan.model, plan.job, plan.profile));
    return plan;
}

PlanSummary summaryOf(const Plan& plan)
{
    const CostModel costs(plan.model, plan.job, plan.profile, testCatalog());
    return summarize(plan, costs);
}

} // namespace

class TestPlanSummary : public QObject {
    Q_OBJECT
private slots:
    void bubbleOfBalancedPipeline_data();
    void bubbleOfBalancedPipeline();
    void sharesOfBalancedPipeline();
    void sharesAddUpToOne();
    void headroomIsCapacityMinusPeak();
    void mfuByHand();
    void degreesAndLayerSplit();
    void bottleneckInWords();
    void jsonRoundTrip();
    void planWithoutSummaryIsRead();
    void badSummaryRefused();
};

void TestPlanSummary::bubbleOfBalancedPipeline_data()
{
    QTest::addColumn<int>("S");
    QTest::addColumn<int>("M");
    QTest::addColumn<bool>("gpipe");
    QTest::newRow("1f1b S=4 M=8") << 4 << 8 << false;
    QTest::newRow("gpipe S=4 M=8") << 4 << 8 << true;
    QTest::newRow("1f1b S=2 M=4") << 2 << 4 << false;
    QTest::newRow("1f1b S=1 M=3") << 1 << 3 << false;
}

void TestPlanSummary::bubbleOfBalancedPipeline()
{
    QFETCH(int, S);
    QFETCH(int, M);
    QFETCH(bool, gpipe);
    // Every stage computes M (f + b) of the (M + S − 1)(f + b) phase: idle (S − 1) / (M + S − 1), 3/11 for
    // S = 4, M = 8.
    const PlanSummary s = summaryOf(chainPlan(std::vector<double>(S, 0.25), std::vector<double>(S, 0.5), M,
                                              gpipe ? Schedule::GPipe : Schedule::OneFOneB));
    QVERIFY(s.bubbleFraction.has_value());
    QVERIFY2(std::abs(*s.bubbleFraction - double(S - 1) / (M + S - 1)) < kEps,
             qPrintable(QString::number(*s.bubbleFraction, 'g', 17)));
}

void TestPlanSummary::sharesOfBalancedPipeline()
{
    // S = 4, M = 8, f + b = 0.75 s: the iteration is 11 × 0.75 s; each GPU computes 8 × 0.75 s (8/11), sends
    // nothing and idles 3/11.
    const PlanSummary s = summaryOf(chainPlan({0.25, 0.25, 0.25, 0.25}, {0.5, 0.5, 0.5, 0.5}, 8));
    QCOMPARE(s.iterationSeconds, 8.25);
    QCOMPARE(int(s.deviceTypes.size()), 1);
    const DeviceTypeSummary& a = s.deviceTypes[0];
    QCOMPARE(a.deviceType, std::string("TestA"));
    QCOMPARE(a.gpus, 4);
    QVERIFY(std::abs(a.computeShare - 8.0 / 11) < kEps);
    QVERIFY(std::abs(a.communicationShare) < kEps);
    QVERIFY(std::abs(a.idleShare - 3.0 / 11) < kEps);
}

void TestPlanSummary::sharesAddUpToOne()
{
    const PlanSummary s = summaryOf(mixedPlan());
    QCOMPARE(int(s.deviceTypes.size()), 2);
    for (const DeviceTypeSummary& d : s.deviceTypes) {
        QVERIFY(d.computeShare > 0 && d.communicationShare > 0 && d.idleShare >= 0);
        QVERIFY2(std::abs(d.computeShare + d.communicationShare + d.idleShare - 1) < 1e-9, d.deviceType.c_str());
    }
    // TestB's stage is twice as slow per micro-batch: it computes a larger share than TestA.
    QCOMPARE(s.deviceTypes[0].deviceType, std::string("TestA"));
    QVERIFY(s.deviceTypes[1].computeShare > s.deviceTypes[0].computeShare);
}

void TestPlanSummary::headroomIsCapacityMinusPeak()
{
    // No parameters or activations: each GPU holds the default context, 1 GB, and the NCCL buffers of its
    // communicators: the 2-stage pipeline's model-parallel ring at NCCL's 32 channels (the test node's
    // unbounded bandwidth) × 9,633,792 B = 308,281,344 B, and 8 MiB of p2p buffers for its one neighbour:
    // 1,316,669,952 B of TestA's 80 GB.
    const PlanSummary chain = summaryOf(chainPlan({0.25, 0.25}, {0.5, 0.5}, 2));
    const double peak = 1e9 + 308'281'344.0 + 8'388'608.0;
    QCOMPARE(chain.deviceTypes[0].memoryCapacityBytes, 80e9);
    QCOMPARE(chain.deviceTypes[0].peakMemoryBytes, peak);
    QCOMPARE(chain.deviceTypes[0].headroomBytes, 80e9 - peak);
    // The breakdown of that peak, term by term.
    const GpuMemory& m = chain.deviceTypes[0].peakMemory;
    QCOMPARE(m.context, 1e9);
    QCOMPARE(m.communicators, 308'281'344.0 + 8'388'608.0);
    QCOMPARE(m.weights + m.gradients + m.optimizer + m.activations + m.gradientBuffer + m.allocatorReserve, 0.0);
    QCOMPARE(m.total(), peak);

    // With model states: each type's headroom is its capacity (TestA 80 GB, TestB 40 GB) minus the largest
    // peak the simulator gives its GPUs.
    Plan plan = mixedPlan();
    const CostModel costs(plan.model, plan.job, plan.profile, testCatalog());
    const SimResult r = simulate(plan, costs);
    const PlanSummary s = summarize(plan, costs, r);
    const double peakA = std::max(r.peakMemoryBytes.at(0), r.peakMemoryBytes.at(1));
    const double peakB = std::max(r.peakMemoryBytes.at(2), r.peakMemoryBytes.at(3));
    QVERIFY(peakA > 1e9 && peakB > 1e9);
    QCOMPARE(s.deviceTypes[0].headroomBytes, 80e9 - peakA);
    QCOMPARE(s.deviceTypes[1].headroomBytes, 40e9 - peakB);
}

void TestPlanSummary::mfuByHand()
{
    // 4 layers × 1e9 FLOP forward per sample, × 3 for forward + backward, × 8 samples = 9.6e10 FLOP in
    // 8.25 s on 4 GPUs of 1e14 FLOP/s peak.
    const PlanSummary s = summaryOf(chainPlan({0.25, 0.25, 0.25, 0.25}, {0.5, 0.5, 0.5, 0.5}, 8));
    QVERIFY(std::abs(s.mfu - 9.6e10 / (8.25 * 4e14)) < 1e-18);
    // tokens/s: 8 samples × the job's sequence length per 8.25 s.
    QVERIFY(std::abs(s.tokensPerSecond - 8.0 * Job{}.sequenceLength / 8.25) < 1e-9);
}

void TestPlanSummary::degreesAndLayerSplit()
{
    const PlanSummary s = summaryOf(mixedPlan());
    QCOMPARE(s.kind, std::string("pipelines"));
    QCOMPARE(s.pp, 2);
    QCOMPARE(s.dp, 2);
    QCOMPARE(s.tp, 1);
    QCOMPARE(s.microBatchSize, 1);
    QCOMPARE(s.microBatches, 4);
    QCOMPARE(int(s.pipelines.size()), 1);
    const std::vector<StageSummary>& st = s.pipelines[0].stages;
    QCOMPARE(int(st.size()), 2);
    QCOMPARE(st[0], (StageSummary{0, 2, "TestA", 1, 1, 2}));
    QCOMPARE(st[1], (StageSummary{2, 4, "TestB", 1, 1, 2}));
}

void TestPlanSummary::bottleneckInWords()
{
    // The last stage takes 1.5 s per micro-batch, the others 0.75 s. 1F1B: T = (M − 1)·1.5 + Σ t_s =
    // 7 × 1.5 + 3.75 = 14.25 s, of which stage 3 computes 8 × 1.5 = 12 s: 84 %.
    const PlanSummary s = summaryOf(chainPlan({0.25, 0.25, 0.25, 0.5}, {0.5, 0.5, 0.5, 1.0}, 8));
    QCOMPARE(s.iterationSeconds, 14.25);
    QCOMPARE(s.bottleneck.stage, 3);
    QCOMPARE(s.bottleneck.deviceType, std::string("TestA"));
    QVERIFY(std::abs(s.bottleneck.share - 12 / 14.25) < kEps);
    QCOMPARE(s.bottleneck.text, std::string("stage 3 on TestA is the slowest stage: 84 % of the iteration"));
}

void TestPlanSummary::jsonRoundTrip()
{
    const Plan plan = catalogPlanWithSummary();
    const QJsonObject o = toJson(plan);
    QVERIFY(o.contains("summary"));
    const std::vector<SchemaViolation> problems = validatePlanJson(o);
    QVERIFY2(problems.empty(), problems.empty() ? "" : problems.front().message.c_str());
    const Plan back = planFromJson(o, "plan.json");
    QVERIFY(back.summary.has_value());
    QCOMPARE(*back.summary, *plan.summary);
    QVERIFY(back.details.empty()); // "summary" is the plan's own key, not a planner section
}

void TestPlanSummary::planWithoutSummaryIsRead()
{
    Plan plan = catalogPlanWithSummary();
    plan.summary.reset();
    QJsonObject o = toJson(plan);
    QVERIFY(!o.contains("summary"));
    QVERIFY(validatePlanJson(o).empty());
    QVERIFY(!planFromJson(o, "old.json").summary.has_value());
}

void TestPlanSummary::badSummaryRefused()
{
    QJsonObject o = toJson(catalogPlanWithSummary());
    QJsonObject s = o["summary"].toObject();
    s["kind"] = "spaghetti";
    o["summary"] = s;
    const auto err = test::errorOf([&] { planFromJson(o, "bad.json"); });
    QVERIFY(err.has_value());
    QCOMPARE(err->field(), std::string("summary.kind"));
    QVERIFY(!validatePlanJson(o).empty());
}

QTEST_APPLESS_MAIN(TestPlanSummary)
#include "tst_plan_summary.moc"
