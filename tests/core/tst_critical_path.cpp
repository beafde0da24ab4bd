// The critical path and idle gaps of simulated timelines: hand-computed 2-stage pipelines (a slow second
// stage with costly sends, a balanced one without), a hand-built collective, and invariants over random
// communication-free pipelines.
#include "simfixtures.h"

#include "core/sim/critical_path.h"

#include <QTest>

#include <numeric>
#include <random>

using namespace hetplan;
using namespace hetplan::simtest;

namespace {

constexpr double kEps = 1e-9;

// Two one-layer stages on GPUs 0 and 1 of one node, M micro-batches of 1 sample, 1F1B, no parameters (so no
// optimizer or all-reduce events). Each activation is `outputBytes`; the node moves 4e9 B/s, no latency.
SimResult twoStages(const std::vector<double>& f, const std::vector<double>& b, int M, double outputBytes)
{
    Cluster c = testCluster({{"TestA", 2}}, 4e9, 4e9);
    ModelSpec m = testModel(2, 0, outputBytes);
    Job j;
    j.globalBatchSize = M;
    Profile prof;
    setTimes(prof, "TestA", 1, 1, f, b);
    Plan plan = makePlan(c, m, j, prof);
    plan.pipelines.push_back(makePipeline({0, 1, 2}, {{0}, {1}}, 1, 1, M));
    CostModel costs(m, j, prof, testCatalog());
    return simulate(plan, costs);
}

struct Step {
    EventKind kind;
    int stage, microBatch, gpu;
};

QString describe(const SimResult& r, const std::vector<int>& chain)
{
    QStringList parts;
    for (int i : chain) {
        const TimelineEvent& e = r.events[size_t(i)];
        parts << QStringLiteral("%1(s%2,m%3,g%4)[%5,%6]")
                     .arg(QString::fromStdString(toString(e.kind)))
                     .arg(e.stage)
                     .arg(e.microBatch)
                     .arg(e.gpu)
                     .arg(e.start)
                     .arg(e.end);
    }
    return parts.join(QStringLiteral(" → "));
}

bool matches(const SimResult& r, const std::vector<int>& chain, const std::vector<Step>& expected)
{
    if (chain.size() != expected.size())
        return false;
    for (size_t k = 0; k < chain.size(); ++k) {
        const TimelineEvent& e = r.events[size_t(chain[k])];
        const Step& s = expected[k];
        if (e.kind != s.kind || e.stage != s.stage || e.microBatch != s.microBatch || e.gpu != s.gpu)
            return false;
    }
    return true;
}

// A chain with no waiting: it starts at 0, each step begins as the one before ends, and it ends at T.
void verifyGapless(const SimResult& r, const std::vector<int>& chain)
{
    QVERIFY(!chain.empty());
    QVERIFY(std::abs(r.events[size_t(chain.front())].start) < kEps);
    for (size_t k = 1; k < chain.size(); ++k)
        QVERIFY2(std::abs(r.events[size_t(chain[k])].start - r.events[size_t(chain[k - 1])].end) < kEps,
                 qPrintable(describe(r, chain)));
    QVERIFY(std::abs(r.events[size_t(chain.back())].end - r.iterationSeconds) < kEps);
}

double gapSum(const std::vector<IdleGap>& gaps)
{
    double s = 0;
    for (const IdleGap& g : gaps)
        s += g.end - g.start;
    return s;
}

} // namespace

class TestCriticalPath : public QObject {
    Q_OBJECT
private slots:
    void slowSecondStage();
    void balancedPipeline();
    void idleGapsOfOneFOneB();
    void collectiveWaitsForItsLastMember();
    void emptyTimeline();
    void randomPipelinesAreGapless();
};

void TestCriticalPath::slowSecondStage()
{
    // f = (0.25, 1), b = (0.5, 2), M = 4, every send 1e9 B / 4e9 B/s = 0.25 s and blocking. Stage 1 never
    // waits for an activation after the first: T = f0 + send + M·(f1 + b1 + send) + b0 = 0.5 + 4·3.25 + 0.5.
    const SimResult r = twoStages({0.25, 1.0}, {0.5, 2.0}, 4, 1e9);
    QVERIFY2(std::abs(r.iterationSeconds - 14.0) < kEps, qPrintable(QString::number(r.iterationSeconds)));
    const CriticalPath path = criticalPath(r);
    // Back from stage 0's last backward: the gradient it waited for, then all of stage 1's work (each op
    // held by stage 1's own previous op or gradient send), to micro-batch 0's activation send and forward
    // on stage 0.
    std::vector<Step> expected{{EventKind::Forward, 0, 0, 0}, {EventKind::SendActivation, 0, 0, 0}};
    for (int m = 0; m < 4; ++m) {
        expected.push_back({EventKind::Forward, 1, m, 1});
        expected.push_back({EventKind::Backward, 1, m, 1});
        expected.push_back({EventKind::SendGradient, 1, m, 1});
    }
    expected.push_back({EventKind::Backward, 0, 3, 0});
    QVERIFY2(matches(r, path.chain, expected), qPrintable(describe(r, path.chain)));
    verifyGapless(r, path.chain);
    // Only chain events are marked (one GPU per stage: no twins), and stage 0's other work is not.
    QCOMPARE(int(std::count(path.onPath.begin(), path.onPath.end(), 1)), int(expected.size()));
}

void TestCriticalPath::balancedPipeline()
{
    // f = 0.25, b = 0.5 on both stages, free sends: T = (M + S − 1)(f + b) = 5 × 0.75. Ties (an op whose
    // input arrives just as its GPU frees up) keep the chain on its GPU, so it runs down to stage 1, does
    // all of stage 1's work and returns for stage 0's last backward.
    const SimResult r = twoStages({0.25, 0.25}, {0.5, 0.5}, 4, 0);
    QVERIFY(std::abs(r.iterationSeconds - 3.75) < kEps);
    const CriticalPath path = criticalPath(r);
    std::vector<Step> expected{{EventKind::Forward, 0, 0, 0}};
    for (int m = 0; m < 4; ++m) {
        expected.push_back({EventKind::Forward, 1, m, 1});
        expected.push_back({EventKind::Backward, 1, m, 1});
    }
    expected.push_back({EventKind::Backward, 0, 3, 0});
    QVERIFY2(matches(r, path.chain, expected), qPrintable(describe(r, path.chain)));
    verifyGapless(r, path.chain);
    // Stage 1's first forward waited on stage 0's (the free send leaves the compute as what it waited on).
    const TimelineEvent& f0s1 = r.events[size_t(path.chain[1])];
    QCOMPARE(f0s1.waitedOn, path.chain[0]);
}

void TestCriticalPath::idleGapsOfOneFOneB()
{
    // Balanced 1F1B above. GPU 0: F0 F1 [0, 0.5], waits for B0's gradient until 1.0, busy to 3.0, waits for
    // B3's until 3.25. GPU 1: waits 0.25 for F0, busy to 3.25, idle while stage 0 runs B3.
    const SimResult r = twoStages({0.25, 0.25}, {0.5, 0.5}, 4, 0);
    const auto gaps = idleGaps(r);
    QCOMPARE(int(gaps.size()), 2);
    const std::vector<std::pair<double, double>> gpu0{{0.5, 1.0}, {3.0, 3.25}}, gpu1{{0, 0.25}, {3.25, 3.75}};
    for (auto [gpu, want] : {std::pair{0, gpu0}, std::pair{1, gpu1}}) {
        const std::vector<IdleGap>& got = gaps.at(gpu);
        QCOMPARE(got.size(), want.size());
        for (size_t k = 0; k < want.size(); ++k) {
            QVERIFY(std::abs(got[k].start - want[k].first) < kEps);
            QVERIFY(std::abs(got[k].end - want[k].second) < kEps);
        }
        // No communication events: the gaps are exactly the iteration minus the compute time.
        QVERIFY(std::abs(gapSum(got) - (r.iterationSeconds - r.busySeconds.at(gpu))) < kEps);
    }
    // With sends, a GPU is also busy while it sends: stage 0 of the slow case computes 3 s and sends 1 s of
    // its 14 s, idle [1, 3.75], [4.75, 7], [8, 10.25], [10.75, 13.5].
    const SimResult slow = twoStages({0.25, 1.0}, {0.5, 2.0}, 4, 1e9);
    const std::vector<IdleGap> g0 = idleGaps(slow).at(0);
    QCOMPARE(int(g0.size()), 4);
    QVERIFY(std::abs(g0[0].start - 1.0) < kEps && std::abs(g0[0].end - 3.75) < kEps);
    QVERIFY(std::abs(g0[3].start - 10.75) < kEps && std::abs(g0[3].end - 13.5) < kEps);
    QVERIFY(std::abs(gapSum(g0) - (14.0 - 3.0 - 1.0)) < kEps);
}

void TestCriticalPath::collectiveWaitsForItsLastMember()
{
    // GPU 0 computes [0, 1], GPU 1 [0, 3]; they all-reduce [3, 4] together. The all-reduce on GPU 0 ends
    // last (first in index order), but what held it is GPU 1's compute.
    SimResult r;
    r.iterationSeconds = 4;
    r.events = {TimelineEvent{0, EventKind::Backward, 0, 0, 0, 0, 0.0, 1.0},
                TimelineEvent{1, EventKind::Backward, 0, 1, 0, 0, 0.0, 3.0},
                TimelineEvent{0, EventKind::AllReduce, 0, 0, 0, -1, 3.0, 4.0},
                TimelineEvent{1, EventKind::AllReduce, 0, 1, 0, -1, 3.0, 4.0}};
    const CriticalPath path = criticalPath(r);
    QCOMPARE(path.chain, (std::vector<int>{1, 2}));
    QCOMPARE(path.onPath, (std::vector<char>{0, 1, 1, 1})); // both members of the all-reduce
    const auto gaps = idleGaps(r);
    QCOMPARE(int(gaps.at(0).size()), 1);
    QVERIFY(gaps.at(0)[0].start == 1.0 && gaps.at(0)[0].end == 3.0);
    QVERIFY(gaps.at(1).empty());
}

void TestCriticalPath::emptyTimeline()
{
    const SimResult r;
    QVERIFY(criticalPath(r).chain.empty());
    QVERIFY(idleGaps(r).empty());
}

void TestCriticalPath::randomPipelinesAreGapless()
{
    // Without communication every op starts when its GPU's previous op or its input's producer ends, so the
    // chain never waits: its durations add up to the iteration. Checked on random 2-stage timings.
    std::mt19937 rng(11);
    std::uniform_int_distribution<int> quarter(1, 12), um(1, 9);
    for (int trial = 0; trial < 100; ++trial) {
        const std::vector<double> f{quarter(rng) / 4.0, quarter(rng) / 4.0}, b{quarter(rng) / 4.0, quarter(rng) / 4.0};
        const SimResult r = twoStages(f, b, um(rng), 0);
        const CriticalPath path = criticalPath(r);
        verifyGapless(r, path.chain);
        double sum = 0;
        for (int i : path.chain)
            sum += r.events[size_t(i)].end - r.events[size_t(i)].start;
        QVERIFY(std::abs(sum - r.iterationSeconds) < kEps);
        for (const auto& [gpu, gaps] : idleGaps(r))
            QVERIFY(std::abs(gapSum(gaps) - (r.iterationSeconds - r.busySeconds.at(gpu))) < kEps);
    }
}

QTEST_GUILESS_MAIN(TestCriticalPath)
#include "tst_critical_path.moc"
