// The shared iteration simulator: closed forms, AMP's eq. 5, hand-computed ZeRO iterations, memory peaks,
// and invariants over random plans.
#include "simfixtures.h"

#include "core/base/errors.h"
#include "core/cost/collectives.h"
#include "core/cost/memory.h"
#include "core/sim/simulator.h"

#include <QTest>

#include <algorithm>
#include <map>
#include <numeric>
#include <random>

using namespace hetplan;
using namespace hetplan::simtest;

namespace {

constexpr double kEps = 1e-9;

// A pipeline of S one-layer stages on S GPUs of one node, no communication cost, no parameters; stage s
// takes f[s] / b[s] per micro-batch.
Plan chainPlan(const std::vector<double>& f, const std::vector<double>& b, int M, Schedule sched, Profile& prof)
{
    const int S = int(f.size());
    Cluster c = testCluster({{"TestA", S}}, 1e300, 1e300);
    ModelSpec m = testModel(S);
    Job j;
    j.schedule = sched;
    j.globalBatchSize = M;
    prof = Profile();
    setTimes(prof, "TestA", 1, 1, f, b);
    Plan plan = makePlan(c, m, j, prof);
    std::vector<int> bounds(S + 1);
    std::iota(bounds.begin(), bounds.end(), 0);
    std::vector<std::vector<int>> gpus(S);
    for (int s = 0; s < S; ++s)
        gpus[s] = {s};
    plan.pipelines.push_back(makePipeline(bounds, gpus, 1, 1, M));
    return plan;
}

double simulateTime(const Plan& plan, const Profile& prof)
{
    CostModel costs(plan.model, plan.job, prof, testCatalog());
    return simulate(plan, costs).iterationSeconds;
}

// AMP eq. 5 without communication: (gas − 1)·max_s t_s + Σ_s t_s, t_s = f_s + b_s.
double ampBound(const std::vector<double>& f, const std::vector<double>& b, int M)
{
    double sum = 0, mx = 0;
    for (size_t s = 0; s < f.size(); ++s) {
        sum += f[s] + b[s];
        mx = std::max(mx, f[s] + b[s]);
    }
    return (M - 1) * mx + sum;
}

const TimelineEvent* findEvent(const std::vector<TimelineEvent>& ev, EventKind k, int p, int r, int s, int m, int gpu)
{
    for (const TimelineEvent& e : ev)
        if (e.kind == k && e.pipeline == p && e.replica == r && e.stage == s && e.microBatch == m && e.gpu == gpu)
            return &e;
    return nullptr;
}

} // namespace

class TestSimulator : public QObject {
    Q_OBJECT
private slots:
    void uniformPipeline_data();
    void uniformPipeline();
    void ampEq5Bound();
    void oneFOneBCanBeatEq5();
    void singleStageWithAllReduce();
    void slowerLinkIsSlower();
    void multiPipelineSegments();
    void zeroStages_data();
    void zeroStages();
    void memoryPeaks();
    void randomPlanInvariants();
    void rejectsBadPlans();
    void scorePlanFillsEstimate();
};

void TestSimulator::uniformPipeline_data()
{
    QTest::addColumn<int>("S");
    QTest::addColumn<int>("M");
    QTest::addColumn<bool>("gpipe");
    for (bool g : {false, true})
        for (int S : {1, 2, 4, 7})
            for (int M : {1, 3, 4, 8, 16}) {
                const QByteArray name =
                    QByteArray(g ? "gpipe" : "1f1b") + " S=" + QByteArray::number(S) + " M=" + QByteArray::number(M);
                QTest::newRow(name.constData()) << S << M << g;
            }
}

void TestSimulator::uniformPipeline()
{
    QFETCH(int, S);
    QFETCH(int, M);
    QFETCH(bool, gpipe);
    // f = 0.25 s, b = 0.5 s (exact in binary): (M + S − 1)(f + b), e.g. S=4, M=8: 11 × 0.75 = 8.25 s.
    Profile prof;
    Plan plan = chainPlan(std::vector<double>(S, 0.25), std::vector<double>(S, 0.5), M,
                          gpipe ? Schedule::GPipe : Schedule::OneFOneB, prof);
    const double t = simulateTime(plan, prof);
    QVERIFY2(std::abs(t - (M + S - 1) * 0.75) < kEps, qPrintable(QString::number(t)));
}

void TestSimulator::ampEq5Bound()
{
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(0.1, 1.0);
    std::uniform_int_distribution<int> us(2, 6), um(1, 12);
    for (int trial = 0; trial < 200; ++trial) {
        const int S = us(rng), M = um(rng);
        std::vector<double> f(S), b(S);
        for (int s = 0; s < S; ++s) {
            f[s] = u(rng);
            b[s] = u(rng);
        }
        Profile prof;
        const double bound = ampBound(f, b, M);
        // GPipe: the chain "first micro-batch reaches the slowest stage k, k runs all its forwards, the last
        // one travels to the end and its gradient back to k, k runs all its backwards, the last gradient
        // travels to stage 0" makes eq. 5 a true lower bound.
        const double tg = simulateTime(chainPlan(f, b, M, Schedule::GPipe, prof), prof);
        QVERIFY2(tg >= bound - kEps, qPrintable(QString("gpipe %1 < bound %2").arg(tg).arg(bound)));
        // 1F1B: stage k cannot finish before micro-batch 0 reaches it, it does all M of its (f+b), and the
        // last gradient returns to stage 0: T ≥ Σ_{i<k} t_i + M·t_k for every k.
        const double t1 = simulateTime(chainPlan(f, b, M, Schedule::OneFOneB, prof), prof);
        double prefix = 0;
        for (int k = 0; k < S; ++k) {
            QVERIFY(t1 >= prefix + M * (f[k] + b[k]) - kEps);
            prefix += f[k] + b[k];
        }
        // Where eq. 5 must be exact: the last stage is the slowest. 1F1B then keeps it busy from the arrival
        // of micro-batch 0 to its last backward, and the upstream stages keep pace.
        std::vector<double> f2 = f, b2 = b;
        f2[S - 1] += 1.0; // > any other stage's f + b (both < 1)
        b2[S - 1] += 1.0;
        const double bound2 = ampBound(f2, b2, M);
        const double t1s = simulateTime(chainPlan(f2, b2, M, Schedule::OneFOneB, prof), prof);
        QVERIFY2(std::abs(t1s - bound2) < 1e-9, qPrintable(QString("1f1b %1 vs %2").arg(t1s).arg(bound2)));
        // GPipe is exact too when the last stage is the slowest in forward and in backward separately.
        const double tgs = simulateTime(chainPlan(f2, b2, M, Schedule::GPipe, prof), prof);
        QVERIFY2(std::abs(tgs - bound2) < 1e-9, qPrintable(QString("gpipe %1 vs %2").arg(tgs).arg(bound2)));
    }
}

void TestSimulator::oneFOneBCanBeatEq5()
{
    // Eq. 5 is not a lower bound for 1F1B when the slowest stage comes first. S = 2, M = 2,
    // stage 0: f = b = 1, stage 1: f = b = 0.125.
    //   stage 0 (one warm-up forward): F0 [0,1] F1 [1,2] B0 [2,3] B1 [3,4]  → T = 4
    //   stage 1: F0 [1,1.125] B0 [1.125,1.25] F1 [2,2.125] B1 [2.125,2.25]
    //   (stage 0's B0 needs stage 1's B0, done at 1.25, long before stage 0 is free at 2.)
    // eq. 5: (2−1)·2 + (2 + 0.25) = 4.25 > 4. GPipe reaches eq. 5 here:
    //   stage 1: F0 [1,1.125] F1 [2,2.125] B0 [2.125,2.25] B1 [2.25,2.375]
    //   stage 0: F0 [0,1] F1 [1,2] B0 [2.25,3.25] B1 [3.25,4.25] → T = 4.25
    Profile prof;
    const std::vector<double> f{1, 0.125}, b{1, 0.125};
    QCOMPARE(simulateTime(chainPlan(f, b, 2, Schedule::OneFOneB, prof), prof), 4.0);
    QCOMPARE(simulateTime(chainPlan(f, b, 2, Schedule::GPipe, prof), prof), 4.25);
    QCOMPARE(ampBound(f, b, 2), 4.25);
}

void TestSimulator::singleStageWithAllReduce()
{
    // One stage (2 layers), 4 replicas on one node: bandwidth 1e9 B/s, latency 1e-5 s.
    // Each layer: f = 0.25, b = 0.5 at micro-batch 2; M = 3 → compute 3 × 2 × 0.75 = 4.5 s.
    // Gradients: 2 layers × 1e8 params × 2 B (fp16) = 4e8 B; ring all-reduce over 4:
    //   2·(3/4)·4e8/1e9 + 2·3·1e-5 = 0.6 + 6e-5 s.
    // Optimizer (no measured update): 3 passes × 2e8 params × 12 B / 1.2e12 B/s = 0.006 s.
    Cluster c = testCluster({{"TestA", 4}}, 1e9, 1e9, 1e-5, 1e-5);
    ModelSpec m = testModel(2, 1e8);
    Job j;
    j.globalBatchSize = 24;
    Profile prof;
    setTimes(prof, "TestA", 1, 2, {0.25, 0.25}, {0.5, 0.5});
    Plan plan = makePlan(c, m, j, prof);
    plan.pipelines.push_back(makePipeline({0, 2}, {{0, 1, 2, 3}}, 4, 2, 3));
    CostModel costs(m, j, prof, testCatalog());
    const SimResult r = simulate(plan, costs);
    const double expect = 4.5 + (0.6 + 6e-5) + 0.006;
    QVERIFY2(std::abs(r.iterationSeconds - expect) < 1e-9, qPrintable(QString::number(r.iterationSeconds, 'g', 12)));
    // Busy = compute + optimizer; the all-reduce is communication.
    QVERIFY(std::abs(r.busySeconds.at(0) - 4.506) < 1e-9);
    // 24 samples × 1024 tokens / T.
    QVERIFY(std::abs(r.tokensPerSecond - 24.0 * 1024 / expect) < 1e-6);
    int allReduces = 0;
    for (const TimelineEvent& e : r.events)
        allReduces += e.kind == EventKind::AllReduce;
    QCOMPARE(allReduces, 4);
}

void TestSimulator::slowerLinkIsSlower()
{
    // Two stages on two nodes with activations of 1e6 B per sample, plus 2 replicas (gradient all-reduce
    // across nodes too). Every NIC bandwidth step down must increase the iteration time.
    ModelSpec m = testModel(4, 1e7, 1e6);
    Job j;
    j.globalBatchSize = 16;
    Profile prof;
    setTimes(prof, "TestA", 1, 2, {0.01, 0.01, 0.01, 0.01}, {0.02, 0.02, 0.02, 0.02});
    double previous = 0;
    for (double nic : {1e11, 1e10, 1e9, 1e8}) {
        Cluster c = testCluster({{"TestA", 2}, {"TestA", 2}}, 1e11, nic, 1e-6, 1e-5);
        Plan plan = makePlan(c, m, j, prof);
        // Stage 0 on node 0 (GPUs 0,1 = replicas 0,1), stage 1 on node 1 (GPUs 2,3).
        plan.pipelines.push_back(makePipeline({0, 2, 4}, {{0, 1}, {2, 3}}, 2, 2, 4));
        CostModel costs(m, j, prof, testCatalog());
        const double t = simulate(plan, costs).iterationSeconds;
        QVERIFY2(t > previous, qPrintable(QString("%1 <= %2").arg(t).arg(previous)));
        previous = t;
    }
    // Only the all-reduce path: one stage, 2 replicas across the nodes.
    previous = 0;
    for (double nic : {1e11, 1e10, 1e9}) {
        Cluster c = testCluster({{"TestA", 1}, {"TestA", 1}}, 1e11, nic);
        Plan plan = makePlan(c, m, j, prof);
        plan.pipelines.push_back(makePipeline({0, 4}, {{0, 1}}, 2, 2, 4));
        CostModel costs(m, j, prof, testCatalog());
        const double t = simulate(plan, costs).iterationSeconds;
        QVERIFY(t > previous);
        previous = t;
    }
}

void TestSimulator::multiPipelineSegments()
{
    // Ditto-style: pipeline A holds layers [0,2) in one stage on GPU 0; pipeline B splits them over
    // GPU 1 ([0,1)) and GPU 2 ([1,2)). Each layer: f = 1, b = 2; M = 2; no activation traffic.
    //   A: 2 micro-batches × 2 layers × 3 = 12 → ready at 12.
    //   B (1F1B, S=2): stage 0 F0[0,1] F1[1,2]; stage 1 F0[1,2] B0[2,4] F1[4,5] B1[5,7];
    //     stage 0 B0[4,6] B1[7,9] → stage 1 ready 7, stage 0 ready 9.
    // Segments [0,1) {A, B0} and [1,2) {A, B1}, each 2.5e8 params × 2 B = 5e8 B; ring of 2 at 1e9 B/s,
    // no latency: 2·(1/2)·5e8/1e9 = 0.5 s. Both become ready at 12 (A); later layers go first:
    //   [1,2): [12, 12.5] on GPUs 0, 2;  [0,1): [12.5, 13] on GPUs 0, 1 (GPU 0 is busy until 12.5).
    // Optimizer of A (2 layers): 3 × 5e8 × 12 / 1.2e12 = 0.015 s → T = 13.015.
    Cluster c = testCluster({{"TestA", 3}}, 1e9, 1e9);
    ModelSpec m = testModel(2, 2.5e8);
    Job j;
    j.globalBatchSize = 4;
    Profile prof;
    setTimes(prof, "TestA", 1, 1, {1, 1}, {2, 2});
    Plan plan = makePlan(c, m, j, prof);
    plan.pipelines.push_back(makePipeline({0, 2}, {{0}}, 1, 1, 2));
    plan.pipelines.push_back(makePipeline({0, 1, 2}, {{1}, {2}}, 1, 1, 2));
    CostModel costs(m, j, prof, testCatalog());
    const SimResult r = simulate(plan, costs);
    QVERIFY2(std::abs(r.iterationSeconds - 13.015) < 1e-9, qPrintable(QString::number(r.iterationSeconds, 'g', 12)));
    const TimelineEvent* ar2 = findEvent(r.events, EventKind::AllReduce, 1, 0, 1, -1, 2);
    const TimelineEvent* ar1 = findEvent(r.events, EventKind::AllReduce, 1, 0, 0, -1, 1);
    QVERIFY(ar1 && ar2);
    QVERIFY(std::abs(ar2->start - 12) < kEps && std::abs(ar2->end - 12.5) < kEps);
    QVERIFY(std::abs(ar1->start - 12.5) < kEps && std::abs(ar1->end - 13) < kEps);
}

void TestSimulator::zeroStages_data()
{
    // Two single-GPU nodes linked at 1e9 B/s with 1e-5 s latency. Model: 2 layers × 5e7 params → 1e8 params, 2e8 B
    // fp16. GPU 0 (TestA): micro-batch 4, 3 steps, last 2; per layer at mb 4: f 0.1, b 0.2; at mb 2: f 0.06, b 0.12.
    // GPU 1 (TestB): micro-batch 2, 2 steps, last 2;  per layer at mb 2: f 0.1, b 0.2.
    //   GPU 0 compute: 2 × 0.6 + 0.36 = 1.56 s; GPU 1: 2 × 0.6 = 1.2 s.
    // Collectives over 2 ranks: AR = 2·½·2e8/1e9 + 2·1e-5 = 0.20002; AG = RS = ½·2e8/1e9 + 1e-5 = 0.10001.
    // bf16 reduces gradients in fp32 (4e8 B): AR = 0.40002, RS = 0.20001; parameters still gather 2e8 B.
    // Optimizer 3 × 1e8 × 12 B / bw: TestA 1.2e12 → 0.003, TestB 0.6e12 → 0.006; sharded (÷2): 0.0015, 0.003.
    QTest::addColumn<int>("stage");
    QTest::addColumn<bool>("bf16");
    QTest::addColumn<double>("expected");
    QTest::newRow("zero-0") << 0 << false << 1.56 + 0.20002 + 0.006;
    QTest::newRow("zero-0 bf16") << 0 << true << 1.56 + 0.40002 + 0.006;
    // DeepSpeed's ZeRO-1: reduce-scatter (not all-reduce) of the gradients, shard step, all-gather: 2Ψ.
    QTest::newRow("zero-1") << 1 << false << 1.56 + 0.10001 + 0.003 + 0.10001;
    QTest::newRow("zero-1 bf16") << 1 << true << 1.56 + 0.20001 + 0.003 + 0.10001;
    // Rounds: max(0.6,0.6) + RS, 0.6 + RS, 0.36 (GPU 1 idle) + RS; then step, then all-gather.
    QTest::newRow("zero-2") << 2 << false << 0.6 + 0.6 + 0.36 + 3 * 0.10001 + 0.003 + 0.10001;
    QTest::newRow("zero-2 bf16") << 2 << true << 0.6 + 0.6 + 0.36 + 3 * 0.20001 + 0.003 + 0.10001;
    // Rounds: AG, F (max 0.2 | 0.2 | 0.12), AG, B (0.4 | 0.4 | 0.24), RS; then step.
    QTest::newRow("zero-3") << 3 << false << (0.2 + 0.4) * 2 + 0.12 + 0.24 + 3 * 3 * 0.10001 + 0.003;
    QTest::newRow("zero-3 bf16") << 3 << true << (0.2 + 0.4) * 2 + 0.12 + 0.24 + 3 * (2 * 0.10001 + 0.20001) + 0.003;
}

void TestSimulator::zeroStages()
{
    QFETCH(int, stage);
    QFETCH(bool, bf16);
    QFETCH(double, expected);
    Cluster c = testCluster({{"TestA", 1}}, 1e9, 1e9, 1e-5, 1e-5);
    c.nodes.push_back(c.nodes[0]);
    c.nodes[1].name = "n1";
    c.nodes[1].deviceType = "TestB";
    ModelSpec m = testModel(2, 5e7, 0, 1e6);
    Job j;
    j.globalBatchSize = 14;
    j.zeroStage = stage;
    j.precision = bf16 ? Precision::BF16 : Precision::FP16;
    Profile prof;
    setTimes(prof, "TestA", 1, 4, {0.1, 0.1}, {0.2, 0.2});
    setTimes(prof, "TestA", 1, 2, {0.06, 0.06}, {0.12, 0.12});
    setTimes(prof, "TestB", 1, 2, {0.1, 0.1}, {0.2, 0.2});
    Plan plan = makePlan(c, m, j, prof);
    ZeroPlan z;
    z.stage = stage;
    z.gpus = {ZeroGpu{0, 4, 3, 2}, ZeroGpu{1, 2, 2, 2}};
    plan.zero = z;
    CostModel costs(m, j, prof, testCatalog());
    const SimResult r = simulate(plan, costs);
    QVERIFY2(std::abs(r.iterationSeconds - expected) < 1e-9,
             qPrintable(QString("%1 vs %2").arg(r.iterationSeconds, 0, 'g', 12).arg(expected, 0, 'g', 12)));
    QCOMPARE(simulate(plan, costs, SimOptions{false}).iterationSeconds, r.iterationSeconds);
    // 14 samples × 1024 tokens.
    QVERIFY(std::abs(r.tokensPerSecond - 14.0 * 1024 / expected) < 1e-6);
    if (stage <= 1) {
        // Unequal batches, bulk-synchronous: GPU 1 finishes its 1.2 s of compute and idles until GPU 0 is done
        // at 1.56 s, when the gradient collective starts on both (the Gantt chart shows the gap).
        double computeEnd1 = 0, collectiveStart1 = -1;
        for (const TimelineEvent& e : r.events)
            if (e.gpu == 1 && !isCommunication(e.kind) && e.kind != EventKind::Optimizer)
                computeEnd1 = std::max(computeEnd1, e.end);
            else if (e.gpu == 1 && isCommunication(e.kind) && collectiveStart1 < 0)
                collectiveStart1 = e.start;
        QVERIFY(std::abs(computeEnd1 - 1.2) < 1e-9);
        QVERIFY(std::abs(collectiveStart1 - 1.56) < 1e-9);
    }
    // Memory, Megatron's bytes per parameter for 1e8 parameters: fp16 = weights 2 + gradients 2 + optimizer
    // 12 + 4 (fp32 gradient copy) = 20; bf16 = 2 + 4 (fp32 gradients) + 12 = 18. Stage k shards the first k
    // of (optimizer, gradients, weights) over 2 GPUs. Activations: 2 layers × 1e6 B × micro-batch.
    const double w = 2e8, g = bf16 ? 4e8 : 2e8, o = bf16 ? 1.2e9 : 1.6e9;
    // Each GPU's reported peak also holds the device's runtime overhead (the test devices keep the catalog
    // default, kDefaultRuntimeOverheadBytes).
    const double states[] = {w + g + o, w + g + o / 2, w + g / 2 + o / 2, w / 2 + g / 2 + o / 2};
    const double overhead = kDefaultRuntimeOverheadBytes;
    // A ZeRO plan runs on DeepSpeed's engine. Its gradient buffer: ZeRO-0 flattens min(1e8, 5e8) gradients
    // in the reduction's dtype (fp16 2e8 B, bf16 4e8 B); ZeRO-1/2/3 allocate the 5e8-element reduce bucket
    // in the parameters' 16-bit dtype, 1e9 B. Allocator reserve: one layer's activations of one micro-batch
    // (GPU 0: 4 samples, 4e6; GPU 1: 2 samples, 2e6). Communicators: one data-parallel ring of the two GPUs
    // at 2 NCCL channels (1 GB/s between GPUs: NCCL's minimum) x 9,633,792 B = 19,267,584 B.
    const double buffer = stage == 0 ? (bf16 ? 4e8 : 2e8) : 1e9;
    const double comms = 2 * 9'633'792.0;
    QVERIFY2(std::abs(r.peakMemoryBytes.at(0) - (states[stage] + buffer + overhead + comms + 8e6 + 4e6)) < 1,
             qPrintable(QString::number(r.peakMemoryBytes.at(0), 'g', 12)));
    QVERIFY(std::abs(r.peakMemoryBytes.at(1) - (states[stage] + buffer + overhead + comms + 4e6 + 2e6)) < 1);
    QCOMPARE(r.memory.at(0).gradientBuffer, buffer);
    QCOMPARE(r.memory.at(0).communicators, comms);
    QVERIFY(r.feasible);
    // Busy: GPU 0 computes 1.56 s plus its optimizer step.
    const double opt0 = stage == 0 ? 0.003 : 0.0015;
    QVERIFY(std::abs(r.busySeconds.at(0) - (1.56 + opt0)) < 1e-9);
}

void TestSimulator::memoryPeaks()
{
    // 4 stages × 1 layer, 1e6 params per layer, activations 1e6 B per sample, micro-batch 2, M = 3.
    // States per GPU (no ZeRO, fp16, Megatron's 20 B/param): 1e6 × 20 = 2e7 B, plus the context
    // kDefaultRuntimeOverheadBytes. One micro-batch of activations: 2e6 B, and the allocator reserve of one
    // layer's micro-batch, 2e6 B. 1F1B keeps min(S − s, M) in flight: 3, 3, 2, 1. GPipe keeps all 3.
    // Communicators (Megatron, 100 GB/s between GPUs: 5 NCCL channels): the model-parallel ring of the
    // 4-stage pipeline, 5 x 9,633,792 = 48,168,960 B, and 8 MiB of p2p buffers per pipeline neighbour
    // (stages 0 and 3: one, 1 and 2: two); no tp or dp group, the test model is untied.
    Cluster c = testCluster({{"TestA", 4}}, 1e11, 1e11);
    ModelSpec m = testModel(4, 1e6, 0, 1e6);
    Job j;
    j.globalBatchSize = 6;
    Profile prof;
    setTimes(prof, "TestA", 1, 2, {1, 1, 1, 1}, {1, 1, 1, 1});
    for (Schedule sched : {Schedule::OneFOneB, Schedule::GPipe}) {
        j.schedule = sched;
        Plan plan = makePlan(c, m, j, prof);
        plan.pipelines.push_back(makePipeline({0, 1, 2, 3, 4}, {{0}, {1}, {2}, {3}}, 1, 2, 3));
        CostModel costs(m, j, prof, testCatalog());
        const SimResult r = simulate(plan, costs);
        const int inFlight1f1b[] = {3, 3, 2, 1};
        for (int s = 0; s < 4; ++s) {
            const int n = sched == Schedule::GPipe ? 3 : inFlight1f1b[s];
            const double comms = 48'168'960.0 + (s == 0 || s == 3 ? 1 : 2) * 8'388'608.0;
            QVERIFY(std::abs(r.peakMemoryBytes.at(s) - (2e7 + kDefaultRuntimeOverheadBytes + n * 2e6 + 2e6 + comms)) <
                    1);
        }
        QVERIFY(r.feasible);
    }
    // A device too small: TestB has 40 GB; give a layer 3e9 params → 4.8e10 B of states on stage 0.
    ModelSpec big = testModel(2, 3e9);
    Cluster cb = testCluster({{"TestB", 2}}, 1e11, 1e11);
    Profile pb;
    setTimes(pb, "TestB", 1, 1, {1, 1}, {1, 1});
    Plan plan = makePlan(cb, big, j, pb);
    plan.pipelines.push_back(makePipeline({0, 1, 2}, {{0}, {1}}, 1, 1, 2));
    CostModel costs(big, j, pb, testCatalog());
    QVERIFY(!simulate(plan, costs).feasible);
}

void TestSimulator::randomPlanInvariants()
{
    std::mt19937 rng(20240607);
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    auto real = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
    int checkedPlans = 0;
    for (int trial = 0; trial < 150; ++trial) {
        const int S = pick(1, 5), M = pick(1, 9), R = pick(1, 3);
        const int tp = pick(1, 2), dp = pick(1, 2);
        const int L = S + pick(0, 4);
        const int perStage = R * dp * tp;
        // Nodes of 4 GPUs alternating TestA / TestB, enough for every stage.
        const int need = S * perStage;
        std::vector<std::pair<std::string, int>> nodes;
        for (int have = 0, i = 0; have < need; have += 4, ++i)
            nodes.push_back({i % 2 ? "TestB" : "TestA", 4});
        Cluster c = testCluster(nodes, real(1e9, 1e11), real(1e8, 1e10), real(0, 1e-5), real(1e-5, 1e-4));
        ModelSpec m = testModel(L, real(0, 1e7), real(0, 1e6), 1e5);
        Job j;
        j.schedule = pick(0, 1) ? Schedule::GPipe : Schedule::OneFOneB;
        j.zeroStage = pick(0, 1);
        Profile prof;
        for (const char* dev : {"TestA", "TestB"})
            for (int t = 1; t <= 2; ++t) {
                std::vector<double> f(L), b(L);
                for (int l = 0; l < L; ++l) {
                    f[l] = real(0.001, 0.01);
                    b[l] = real(0.001, 0.02);
                }
                setTimes(prof, dev, t, 1, f, b);
            }
        // Random cut points, random GPU permutation.
        std::vector<int> cuts(L - 1);
        std::iota(cuts.begin(), cuts.end(), 1);
        std::shuffle(cuts.begin(), cuts.end(), rng);
        cuts.resize(S - 1);
        cuts.push_back(0);
        cuts.push_back(L);
        std::sort(cuts.begin(), cuts.end());
        std::vector<int> perm(c.gpuCount());
        std::iota(perm.begin(), perm.end(), 0);
        std::shuffle(perm.begin(), perm.end(), rng);
        std::vector<std::vector<int>> gpus(S);
        for (int s = 0, k = 0; s < S; ++s)
            for (int g = 0; g < perStage; ++g)
                gpus[s].push_back(perm[k++]);
        const int mbs = dp * pick(1, 2);
        j.globalBatchSize = R * mbs * M;
        Plan plan = makePlan(c, m, j, prof);
        plan.pipelines.push_back(makePipeline(cuts, gpus, R, mbs, M, tp, dp));
        CostModel costs(m, j, prof, testCatalog());
        const SimResult r = simulate(plan, costs);
        const SimResult fast = simulate(plan, costs, SimOptions{false});
        QCOMPARE(fast.iterationSeconds, r.iterationSeconds);
        QVERIFY(fast.events.empty());

        // (a) No GPU runs two compute events at once; busy time = sum of its compute events.
        std::map<int, std::vector<const TimelineEvent*>> compute;
        for (const TimelineEvent& e : r.events) {
            QVERIFY(e.end >= e.start);
            QVERIFY(e.end <= r.iterationSeconds + kEps);
            if (!isCommunication(e.kind))
                compute[e.gpu].push_back(&e);
        }
        for (auto& [gpu, list] : compute) {
            std::sort(list.begin(), list.end(), [](auto* a, auto* b) { return a->start < b->start; });
            double sum = 0;
            for (size_t i = 0; i < list.size(); ++i) {
                sum += list[i]->end - list[i]->start;
                if (i > 0)
                    QVERIFY2(list[i]->start >= list[i - 1]->end - kEps, "overlapping compute on one GPU");
            }
            QVERIFY(std::abs(sum - r.busySeconds.at(gpu)) < 1e-9);
            // (c) the iteration is at least every GPU's busy time.
            QVERIFY(r.iterationSeconds >= r.busySeconds.at(gpu) - kEps);
        }
        // (d) Sends block (Megatron's 1F1B): no compute starts on a GPU while its own send is in flight.
        for (const TimelineEvent& e : r.events) {
            if (e.kind != EventKind::SendActivation && e.kind != EventKind::SendGradient)
                continue;
            for (const TimelineEvent* x : compute[e.gpu])
                QVERIFY2(x->start <= e.start + kEps || x->start >= e.end - kEps, "compute started during a send");
        }
        // (b) Dependencies, on every GPU of every stage and replica.
        const Pipeline& pl = plan.pipelines[0];
        for (int rep = 0; rep < R; ++rep)
            for (int s = 0; s < S; ++s) {
                const std::vector<int> mine = pl.stageGpus(s, rep);
                for (int mb = 0; mb < M; ++mb) {
                    const TimelineEvent* F = findEvent(r.events, EventKind::Forward, 0, rep, s, mb, mine[0]);
                    const TimelineEvent* B = findEvent(r.events, EventKind::Backward, 0, rep, s, mb, mine[0]);
                    QVERIFY(F && B);
                    QVERIFY(B->start >= F->end - kEps);
                    if (s > 0) {
                        const std::vector<int> prev = pl.stageGpus(s - 1, rep);
                        const TimelineEvent* Fp = findEvent(r.events, EventKind::Forward, 0, rep, s - 1, mb, prev[0]);
                        QVERIFY(Fp);
                        // The activation send of stage s−1 (on its first GPU) sits between the two forwards.
                        const double bytes = m.layers[pl.stages[s - 1].endLayer - 1].outputBytes * mbs;
                        const TimelineEvent* send =
                            findEvent(r.events, EventKind::SendActivation, 0, rep, s - 1, mb, prev[0]);
                        if (bytes > 0) {
                            QVERIFY(send);
                            QVERIFY(send->start >= Fp->end - kEps);
                            QVERIFY(F->start >= send->end - kEps);
                            // Shared NICs only slow a send: never faster than its share over the unshared link.
                            LinkParams lp{c.bandwidth(prev[0], mine[0]), c.latency(prev[0], mine[0])};
                            QVERIFY(send->end - send->start >= pointToPoint(bytes / dp, lp) - 1e-12);
                            if (dp == 1 && tp == 1 && c.sameNode(prev[0], mine[0])) {
                                // One flow inside a node (nothing shares it): the full micro-batch over the
                                // link between the two GPUs.
                                QVERIFY(std::abs((send->end - send->start) - pointToPoint(bytes, lp)) < 1e-12);
                            }
                        }
                        QVERIFY(F->start >= Fp->end - kEps);
                    }
                    if (s + 1 < S) {
                        const std::vector<int> nxt = pl.stageGpus(s + 1, rep);
                        const TimelineEvent* Bn = findEvent(r.events, EventKind::Backward, 0, rep, s + 1, mb, nxt[0]);
                        QVERIFY(Bn);
                        QVERIFY(B->start >= Bn->end - kEps);
                        const TimelineEvent* send =
                            findEvent(r.events, EventKind::SendGradient, 0, rep, s + 1, mb, nxt[0]);
                        if (send) {
                            QVERIFY(send->start >= Bn->end - kEps);
                            QVERIFY(B->start >= send->end - kEps);
                        }
                    }
                }
            }
        ++checkedPlans;
    }
    QVERIFY(checkedPlans >= 100);
}

void TestSimulator::rejectsBadPlans()
{
    Profile prof;
    Plan plan = chainPlan({1, 1}, {1, 1}, 2, Schedule::OneFOneB, prof);
    CostModel costs(plan.model, plan.job, prof, testCatalog());

    Plan spmd = plan;
    spmd.pipelines.clear();
    spmd.spmd = SpmdPlan{};
    try {
        simulate(spmd, costs);
        QFAIL("an SPMD plan without instructions cannot be simulated");
    } catch (const InputError& e) {
        QCOMPARE(QString::fromStdString(e.field()), QString("spmd.instructions"));
    }

    Plan badGpu = plan;
    badGpu.pipelines[0].stages[1].gpus = {9};
    QVERIFY_THROWS_EXCEPTION(InputError, simulate(badGpu, costs));
    Plan twice = plan;
    twice.pipelines[0].stages[1].gpus = {0};
    QVERIFY_THROWS_EXCEPTION(InputError, simulate(twice, costs));
    Plan gap = plan;
    gap.pipelines[0].stages[1].firstLayer = 0;
    QVERIFY_THROWS_EXCEPTION(InputError, simulate(gap, costs));
    Plan noMicro = plan;
    noMicro.pipelines[0].microBatches = 0;
    QVERIFY_THROWS_EXCEPTION(InputError, simulate(noMicro, costs));
    Plan both = plan;
    both.zero = ZeroPlan{0, {ZeroGpu{1, 1, 1, 1}}};
    QVERIFY_THROWS_EXCEPTION(InputError, simulate(both, costs));
    Plan empty = plan;
    empty.pipelines.clear();
    QVERIFY_THROWS_EXCEPTION(InputError, simulate(empty, costs));
    Plan badZero = empty;
    badZero.zero = ZeroPlan{2, {ZeroGpu{0, 2, 1, 3}}};
    QVERIFY_THROWS_EXCEPTION(InputError, simulate(badZero, costs));
}

void TestSimulator::scorePlanFillsEstimate()
{
    Profile prof;
    Plan plan = chainPlan({0.25, 0.25}, {0.5, 0.5}, 4, Schedule::OneFOneB, prof);
    CostModel costs(plan.model, plan.job, prof, testCatalog());
    scorePlan(plan, costs);
    // (4 + 2 − 1) × 0.75 = 3.75 s; 4 samples × 1024 tokens.
    QVERIFY(std::abs(plan.estimate.iterationSeconds - 3.75) < kEps);
    QVERIFY(std::abs(plan.estimate.tokensPerSecond - 4 * 1024 / 3.75) < 1e-6);
    QCOMPARE(int(plan.estimate.peakMemoryBytes.size()), 2);
    QVERIFY(plan.estimate.feasible);
}

QTEST_GUILESS_MAIN(TestSimulator)
#include "tst_simulator.moc"
