// Context parallelism (ring attention) and expert parallelism (MoE all-to-all): the collectives' closed forms,
// the simulator's per-micro-batch additions on hand-built plans, the memory expert parallelism saves, the
// plan rules, the JSON round trip, the framework verdicts and the Megatron arguments.
#include "simfixtures.h"

#include "core/base/errors.h"
#include "core/cost/context_expert.h"
#include "core/cost/memory.h"
#include "core/io/exporters.h"
#include "core/io/json_io.h"
#include "core/model/frameworks.h"
#include "core/sim/simulator.h"

#include <QTest>

#include <algorithm>
#include <cmath>

using namespace hetplan;
using namespace hetplan::simtest;

namespace {

constexpr double kNic = 1e9, kLatency = 1e-5;

// The durations of the events of `kind` on `gpu`, in time order.
std::vector<double> durations(const SimResult& r, int gpu, EventKind kind)
{
    std::vector<const TimelineEvent*> es;
    for (const TimelineEvent& e : r.events)
        if (e.gpu == gpu && e.kind == kind)
            es.push_back(&e);
    std::sort(es.begin(), es.end(), [](auto* a, auto* b) { return a->start < b->start; });
    std::vector<double> out;
    for (const TimelineEvent* e : es)
        out.push_back(e->end - e->start);
    return out;
}

// Equal durations up to the rounding of end − start.
bool sameTimes(const std::vector<double>& a, const std::vector<double>& b)
{
    if (a.size() != b.size())
        return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (std::abs(a[i] - b[i]) > 1e-12 * std::max(1.0, std::abs(b[i])))
            return false;
    return true;
}

// The first event of `kind` on `gpu`: its duration.
double firstDuration(const SimResult& r, int gpu, EventKind kind)
{
    const std::vector<double> d = durations(r, gpu, kind);
    return d.empty() ? -1 : d.front();
}

SimResult run(const Plan& plan)
{
    return simulate(plan, CostModel(plan.model, plan.job, plan.profile, testCatalog()));
}

// One block measured at 1 s forward and 2 s backward, with `kv` key/value bytes per sample; two one-GPU nodes
// joined by a 1 GB/s NIC. One stage over both GPUs as data-parallel ranks, one micro-batch of one sample
// split over them (as context-parallel ranks when cp = 2).
Plan ringPlan(int cp, double kv)
{
    Cluster c = testCluster({{"TestA", 1}, {"TestA", 1}}, 1e11, kNic, 0, kLatency);
    ModelSpec m = testModel(1);
    m.layers[0].kvBytes = kv;
    Job j;
    j.globalBatchSize = 1;
    j.sequenceLength = 1024;
    Profile prof;
    setTimes(prof, "TestA", 1, 1, {1.0}, {2.0});
    Plan plan = makePlan(c, m, j, prof);
    plan.pipelines.push_back(makePipeline({0, 1}, {{0, 1}}, 1, 1, 1, 1, 2));
    plan.pipelines[0].contextParallel = cp;
    return plan;
}

// One MoE block (1 s forward, 2 s backward) whose tokens send `a2a` bytes per sample, with `experts` experts of
// 1e9 parameters in all, on the same two nodes: two replicas of a one-stage pipeline, one sample each.
Plan moePlan(int ep, double a2a, double capacity = 0)
{
    Cluster c = testCluster({{"TestA", 1}, {"TestA", 1}}, 1e11, kNic, 0, kLatency);
    ModelSpec m = testModel(1, 2e9);
    m.arch.experts = 2;
    LayerSpec& l = m.layers[0];
    l.kind = LayerKind::MoE;
    l.expertAllToAllBytes = a2a;
    l.expertParams = 1e9;
    l.expertFlops = 0.5e9; // half of the layer's 1e9 forward FLOP
    Job j;
    j.globalBatchSize = 2;
    j.moeCapacityFactor = capacity;
    Profile prof;
    setTimes(prof, "TestA", 1, 1, {1.0}, {2.0});
    Plan plan = makePlan(c, m, j, prof);
    plan.pipelines.push_back(makePipeline({0, 1}, {{0, 1}}, 2, 1, 1));
    plan.pipelines[0].expertParallel = ep;
    return plan;
}

} // namespace

class TestContextExpert : public QObject {
    Q_OBJECT
private slots:
    // cp = 4, a 1 MB chunk over 1 GB/s: each of the 3 hops takes 1 ms against a 0.5 ms block of a 2 ms
    // attention core, so 3 × 0.5 ms shows; the backward's 2 ms hops against 1 ms blocks show 3 × 1 ms.
    void ringShowsWhatTheBlocksDoNotHide()
    {
        const RingAttentionSeconds r = ringAttentionExposed(1e6, 4, {1e9, 0}, 2e-3, 4e-3);
        QCOMPARE(r.forward, 1.5e-3);
        QCOMPARE(r.backward, 3e-3);
        const RingAttentionSeconds hidden = ringAttentionExposed(1e6, 4, {1e9, 0}, 8e-3, 16e-3);
        QCOMPARE(hidden.forward, 0.0);
        QCOMPARE(hidden.backward, 0.0);
        QCOMPARE(ringAttentionExposed(1e6, 1, {1e9, 0}, 0, 0).forward, 0.0);
    }

    // Dispatch and combine: two all-to-alls of half the bytes, each sending 3/4 of its 4 MB in 3 steps.
    void dispatchAndCombineAreTwoAllToAlls()
    {
        QCOMPARE(expertAllToAllSeconds(8e6, 4, {1e9, 1e-5}), 2 * (0.75 * 4e6 / 1e9 + 3e-5));
        QCOMPARE(expertAllToAllSeconds(8e6, 1, {1e9, 1e-5}), 0.0);
    }

    // Two nodes of two GPUs, 100 GB/s inside, 1 GB/s NICs. A rank sends to its local peer over its own link
    // (one local flow: 100 GB/s) and to the two remote ranks through its NIC, which both GPUs of the node
    // share: 4 flows leave each NIC, 0.25 GB/s each; bandwidth = 3 × 0.25 GB/s. One node alone: 3 local peers
    // share a GPU's 100 GB/s, so 3 × 100/3.
    void allToAllLinkSharesNicsAndGpuLinks()
    {
        const Cluster c = testCluster({{"TestA", 2}, {"TestA", 2}}, 1e11, kNic, 0, kLatency);
        const LinkParams across = allToAllLink(c, {{0, 1, 2, 3}});
        QCOMPARE(across.bandwidth, 3 * 0.25e9);
        QCOMPARE(across.latency, kLatency);
        const Cluster one = testCluster({{"TestA", 4}}, 1e11, kNic);
        QCOMPARE(allToAllLink(one, {{0, 1, 2, 3}}).bandwidth, 1e11);
    }

    // A 1e8-byte K/V per sample, half a sample per rank: 5e7 bytes per hop over the 1 GB/s NIC, one hop
    // (cp − 1) in forward and one of twice the bytes in backward; the measured block has no attention core
    // to hide them behind. Everything else is the same as the plain data-parallel split.
    void contextParallelAddsTheRingToEachMicroBatch()
    {
        // The compute is the data-parallel split's; the ring follows it on the communication track, drawn as
        // the all-gather of keys and values it is; the iteration is longer by both hops.
        const SimResult plain = run(ringPlan(1, 1e8)), ring = run(ringPlan(2, 1e8));
        const double fwd = kLatency + 5e7 / kNic, bwd = kLatency + 1e8 / kNic;
        QCOMPARE(firstDuration(ring, 0, EventKind::Forward), firstDuration(plain, 0, EventKind::Forward));
        QCOMPARE(firstDuration(ring, 0, EventKind::Backward), firstDuration(plain, 0, EventKind::Backward));
        QVERIFY(sameTimes(durations(ring, 0, EventKind::AllGather), {fwd, bwd}));
        QCOMPARE(ring.iterationSeconds - plain.iterationSeconds, fwd + bwd);
        QCOMPARE(ring.peakMemoryBytes.at(0), plain.peakMemoryBytes.at(0));
        // Selective recomputation reruns the attention core, and with it the forward's hop, in the backward.
        Plan p1 = ringPlan(1, 1e8), p2 = ringPlan(2, 1e8);
        p1.job.selectiveRecompute = p2.job.selectiveRecompute = true;
        QVERIFY(sameTimes(durations(run(p2), 0, EventKind::AllGather), {fwd, fwd + bwd}));
    }

    // 4e8 bytes per sample over two ranks on two nodes: two all-to-alls of 2e8, half of each leaving the node
    // at 1 GB/s, in forward and again in backward.
    void expertParallelAddsTheAllToAlls()
    {
        const SimResult plain = run(moePlan(1, 4e8)), ep = run(moePlan(2, 4e8));
        const double a2a = 2 * (0.5 * 2e8 / kNic + kLatency);
        QCOMPARE(firstDuration(ep, 0, EventKind::Forward), firstDuration(plain, 0, EventKind::Forward));
        QVERIFY(sameTimes(durations(ep, 0, EventKind::AllToAll), {a2a, a2a}));
        QVERIFY(durations(plain, 0, EventKind::AllToAll).empty());
        // Full recomputation runs the forward's two all-to-alls again in the backward.
        Plan p2 = moePlan(2, 4e8);
        p2.job.recompute = true;
        QVERIFY(sameTimes(durations(run(p2), 0, EventKind::AllToAll), {a2a, 2 * a2a}));
    }

    // Each rank keeps one of the two experts' halves: 0.5e9 parameters fewer, at the job's bytes per parameter.
    void expertParallelHalvesTheExpertStates()
    {
        const Plan p1 = moePlan(1, 4e8), p2 = moePlan(2, 4e8);
        const double saved = 0.5e9 * stateBytesPerParam(p1.job).total();
        QCOMPARE(run(p1).peakMemoryBytes.at(0) - run(p2).peakMemoryBytes.at(0), saved);
        // With the distributed optimizer the states were already sharded over both ranks: only weights and
        // gradients shrink.
        Plan z1 = p1, z2 = p2;
        z1.job.zeroStage = z2.job.zeroStage = 1;
        const StateBytesPerParam per = stateBytesPerParam(z1.job);
        QCOMPARE(run(z1).peakMemoryBytes.at(0) - run(z2).peakMemoryBytes.at(0), 0.5e9 * (per.weights + per.gradients));
    }

    // Four replicas on two nodes of two GPUs, experts over ep = 2: GPUs 0 and 2 hold the same experts, so do 1
    // and 3. The layer is all experts, so the gradient all-reduce is theirs only: 0.5e9 parameters of 2 bytes
    // over a ring of 2, both rings leaving each node through its NIC at once (0.5 GB/s each):
    // 2 · 1/2 · 1e9 B / 0.5e9 B/s + 2 latencies.
    void expertGradientsReduceOverTheirCopies()
    {
        Plan p = moePlan(2, 4e8);
        p.cluster = testCluster({{"TestA", 2}, {"TestA", 2}}, 1e11, kNic, 0, kLatency);
        p.model.layers[0].params = p.model.layers[0].expertParams;
        p.job.globalBatchSize = 4;
        p.pipelines[0] = makePipeline({0, 1}, {{0, 1, 2, 3}}, 4, 1, 1);
        p.pipelines[0].expertParallel = 2;
        QCOMPARE(refusal(p), std::string());
        QCOMPARE(firstDuration(run(p), 0, EventKind::AllReduce), 2.0 + 2 * kLatency);
    }

    // Capacity factor 1.5, padded: the experts (half of the layer's FLOP) run 1.5 times their share, so the
    // 1 s forward becomes 1.25 s and the 2 s backward 2.5 s; the all-to-all carries 1.5 times the bytes.
    void paddedCapacityScalesExpertsAndBytes()
    {
        const SimResult dropless = run(moePlan(1, 4e8)), padded = run(moePlan(1, 4e8, 1.5));
        QCOMPARE(firstDuration(padded, 0, EventKind::Forward) - firstDuration(dropless, 0, EventKind::Forward), 0.25);
        QCOMPARE(firstDuration(padded, 0, EventKind::Backward) - firstDuration(dropless, 0, EventKind::Backward), 0.5);
        const SimResult epPadded = run(moePlan(2, 4e8, 1.5));
        QCOMPARE(firstDuration(epPadded, 0, EventKind::AllToAll), 2 * (0.5 * 3e8 / kNic + kLatency));
    }

    void planRules()
    {
        QCOMPARE(refusal(ringPlan(2, 1e8)), std::string());
        Plan odd = ringPlan(2, 1e8);
        odd.job.sequenceLength = 1026; // not 4 equal chunks
        QVERIFY(refusal(odd).find("2 × 2 equal chunks") != std::string::npos);
        QVERIFY(refusal(ringPlan(2, 0)).find("kv_bytes") != std::string::npos);
        Plan three = ringPlan(2, 1e8);
        three.pipelines[0].contextParallel = 3;
        QVERIFY(refusal(three).find("not a multiple of the context-parallel size 3") != std::string::npos);

        QCOMPARE(refusal(moePlan(2, 4e8)), std::string());
        Plan tooMany = moePlan(2, 4e8);
        tooMany.model.layers[0].expertParams = 3e9; // the layer has 2e9 parameters in all
        QVERIFY_THROWS_EXCEPTION(InputError, tooMany.model.validate("model"));
        Plan dense = ringPlan(1, 1e8);
        dense.pipelines[0].expertParallel = 2;
        QVERIFY(refusal(dense).find("no MoE layers") != std::string::npos);
        Plan threeExperts = moePlan(2, 4e8);
        threeExperts.model.arch.experts = 3;
        QVERIFY(refusal(threeExperts).find("whole experts") != std::string::npos);
        Plan oneReplica = moePlan(2, 4e8);
        oneReplica.pipelines[0].replicas = 1;
        oneReplica.pipelines[0].stages[0].gpus = {0};
        oneReplica.job.globalBatchSize = 1;
        QVERIFY(refusal(oneReplica).find("not a multiple of the expert-parallel size 2") != std::string::npos);
    }

    void jsonRoundTrip()
    {
        // A plan file names catalogue devices: the test GPUs become V100s, without the measured times.
        auto catalogued = [](Plan p) {
            for (Node& n : p.cluster.nodes)
                n.deviceType = "V100-32GB";
            p.profile = Profile();
            return p;
        };
        const Plan back = planFromJson(toJson(catalogued(ringPlan(2, 1e8))), "plan");
        QCOMPARE(back.pipelines[0].contextParallel, 2);
        QCOMPARE(back.model.layers[0].kvBytes, 1e8);
        const Plan mb = planFromJson(toJson(catalogued(moePlan(2, 4e8, 1.25))), "plan");
        QCOMPARE(mb.pipelines[0].expertParallel, 2);
        QCOMPARE(mb.job.moeCapacityFactor, 1.25);
        QCOMPARE(mb.model.layers[0].expertParams, 1e9);
        QCOMPARE(mb.model.layers[0].expertFlops, 0.5e9);
    }

    void deepSpeedRefusesBoth()
    {
        for (const Plan& p : {ringPlan(2, 1e8), moePlan(2, 4e8)}) {
            const FrameworkVerdict v = checkDeepSpeed(p);
            QVERIFY(!v.ok);
            QVERIFY(std::any_of(v.reasons.begin(), v.reasons.end(), [](const std::string& r) {
                return r.find("context parallelism") != std::string::npos ||
                       r.find("expert-parallel") != std::string::npos;
            }));
        }
    }
};

QTEST_APPLESS_MAIN(TestContextExpert)
#include "tst_context_expert.moc"
