// Hand-computed checks of the shared cost pieces: collectives, analytic layer times, memory, profile
// lookups and the measured-wins rule.
#include "testutil.h"

#include "core/base/errors.h"
#include "core/cost/analytic.h"
#include "core/cost/collectives.h"
#include "core/cost/costmodel.h"
#include "core/cost/gradient_reduction.h"
#include "core/cost/zero_comm.h"
#include "core/cost/memory.h"

#include <QTest>

using namespace hetplan;

class TestCost : public QObject {
    Q_OBJECT
private slots:
    void ringCollectives()
    {
        LinkParams l{1e9, 1e-5};
        // all-reduce: 2(n-1)/n · M/B + 2(n-1)·α = 2·3/4·1 s + 6·10 µs
        QCOMPARE(ringAllReduce(1e9, 4, l), 1.5 + 6e-5);
        // all-gather / reduce-scatter: (n-1)/n · M/B + (n-1)·α
        QCOMPARE(ringAllGather(1e9, 4, l), 0.75 + 3e-5);
        QCOMPARE(ringReduceScatter(1e9, 4, l), 0.75 + 3e-5);
        QCOMPARE(pointToPoint(5e8, l), 0.5 + 1e-5);
        QCOMPARE(ringAllReduce(1e9, 1, l), 0.0);
        QCOMPARE(allToAll(8e8, 2, l), 0.4 + 1e-5);
    }

    void gradientBucketsFillInOrder()
    {
        // Buckets of 7 bytes filled in the order gradients become ready: 3+4 fills one; 2 then 6 would
        // overflow, so 2 goes alone; 6+1 fills the last. A gradient larger than a bucket gets its own.
        QCOMPARE(gradientBuckets({3, 4, 2, 6, 1}, 7), (std::vector<double>{7, 2, 7}));
        QCOMPARE(gradientBuckets({10, 1}, 7), (std::vector<double>{10, 1}));
        QCOMPARE(gradientBuckets({0, 0}, 7), std::vector<double>{});
        QCOMPARE(evenBuckets(25, 10), (std::vector<double>{10, 10, 5}));
        QCOMPARE(evenBuckets(0, 10), std::vector<double>{});
        // Three buckets over a 4-GPU ring: the bandwidth term is that of the total (1.5 · 25 B / 1 GB/s), and
        // each bucket pays the 6 latency steps of a ring all-reduce.
        const LinkParams l{1e9, 1e-5};
        QVERIFY(std::abs(bucketed(ringAllReduce, {10, 10, 5}, 4, l) - (1.5 * 25 / 1e9 + 3 * 6e-5)) < 1e-15);
    }

    void zeroGradientReductionUsesDeepSpeedBuckets()
    {
        // 1.2e9 parameters of an fp16 job: 2.4e9 gradient bytes in DeepSpeed's 5e8-element buckets of 1e9 B,
        // so buckets of 1e9, 1e9 and 4e8 B. bf16 reduces in fp32: 4.8e9 B in buckets of 2e9 B.
        Job job;
        job.precision = Precision::FP16;
        const LinkParams l{1e10, 1e-5};
        const double fp16 = 3 * 2 * 3 * 1e-5 + 1.5 * 2.4e9 / 1e10;
        QVERIFY(std::abs(gradientReduction(ringAllReduce, 1.2e9, job, 4, l) - fp16) < 1e-12);
        job.precision = Precision::BF16;
        const double bf16 = 3 * 2 * 3 * 1e-5 + 1.5 * 4.8e9 / 1e10;
        QVERIFY(std::abs(gradientReduction(ringAllReduce, 1.2e9, job, 4, l) - bf16) < 1e-12);
        // ZeRO-0 reduces once per iteration with exactly that.
        QCOMPARE(zeroCollectiveSeconds(0, 1.2e9, job, 4, l).perIteration, bf16);
    }

    void groupBottleneck()
    {
        Cluster c = test::twoNodeCluster("V100-16GB", 2, "T4", 2, 1.25e9);
        c.nodes[0].intraBandwidth = 1.5e11;
        c.nodes[1].intraBandwidth = 1.6e10;
        QCOMPARE(groupLink(c, {0, 1}).bandwidth, 1.5e11);       // inside the V100 node
        QCOMPARE(groupLink(c, {2, 3}).bandwidth, 1.6e10);       // inside the T4 node
        QCOMPARE(groupLink(c, {0, 1, 2, 3}).bandwidth, 1.25e9); // crossing nodes: the NIC
        QCOMPARE(groupLink(c, {0, 2}).latency, c.interLatency);
        QCOMPARE(c.path(0, 2), Communicator::GpuRdma); // V100 and T4: one vendor, the GPU path
        c.nodes[1].communicator = Communicator::CpuEthernet;
        c.cpuInterBandwidth = 1e9;
        c.cpuIntraBandwidth = 4e9;
        QCOMPARE(c.path(0, 2), Communicator::CpuEthernet);
        QCOMPARE(c.bandwidth(0, 2), 1e9);    // host-staged: min(NIC 1.25 GB/s, CPU path 1 GB/s)
        QCOMPARE(c.bandwidth(2, 3), 4e9);    // a node without a GPU path stages even inside itself
        QCOMPARE(c.bandwidth(0, 1), 1.5e11); // the other node keeps its NVLink
        c.cpuInterBandwidth = 2e9;
        QCOMPARE(c.bandwidth(0, 2), 1.25e9); // a CPU path faster than the NIC leaves the NIC the bottleneck
    }

    void unifiedCommunicatorByVendor()
    {
        // HetHub sec. 3.1: NVIDIA ↔ AMD cannot use one vendor's library, so the pair takes the CPU path at
        // the cluster's CPU-path bandwidth (default: the paper's 2.1 GB/s between nodes); NVIDIA ↔ NVIDIA
        // keeps RDMA at the NIC rate; inside a node each vendor keeps its own link.
        Cluster c = test::twoNodeCluster("A100-40GB", 2, "MI210", 2, 25e9);
        Node v100 = c.nodes[0];
        v100.name = "c";
        v100.deviceType = "V100-16GB";
        c.nodes.push_back(v100);
        QCOMPARE(c.cpuInterBandwidth, 2.1e9);
        QCOMPARE(c.cpuIntraBandwidth, 4.7e9);
        QCOMPARE(c.path(0, 2), Communicator::CpuEthernet); // A100 ↔ MI210
        QCOMPARE(c.bandwidth(0, 2), 2.1e9);
        QCOMPARE(c.path(0, 4), Communicator::GpuRdma); // A100 ↔ V100
        QCOMPARE(c.bandwidth(0, 4), 25e9);
        QCOMPARE(c.path(2, 3), Communicator::GpuRdma); // inside the MI210 node
        QVERIFY(c.bandwidth(2, 3) > 4.7e9);
        // An explicit link between vendors is capped by the CPU path as well.
        c.links.push_back({"a", "b", 50e9, 1e-5});
        QCOMPARE(c.bandwidth(0, 2), 2.1e9);
    }

    void analyticRooflineAndEfficiency()
    {
        const DeviceType& t4 = *DeviceCatalog::builtin().find("T4");
        LayerSpec l;
        l.forwardFlops = 1e12;
        l.params = 0;
        Job job;
        // Compute bound: t = F·b / (peak · eff(b)), eff(b) = effMax·b/(b + half)
        for (double b : {1.0, 2.0, 8.0}) {
            const double eff = t4.effMax * b / (b + t4.effHalfBatch);
            const double expect = 1e12 * b / (t4.peakFlops * eff);
            LayerTiming t = analyticLayerTiming(l, t4, 1, b, job);
            QVERIFY(qAbs(t.forward - expect) < 1e-12 * expect + 1e-15);
            QVERIFY(qAbs(t.backward - 2 * t.forward) < 1e-15); // backward = 2 × forward by default
        }
        // Per-sample time falls with the micro-batch and saturates at F / (peak · effMax).
        double prev = 1e9;
        for (int b = 1; b <= 256; b *= 2) {
            const double perSample = analyticLayerTiming(l, t4, 1, b, job).forward / b;
            QVERIFY(perSample < prev);
            prev = perSample;
        }
        const double floor = 1e12 / (t4.peakFlops * t4.effMax);
        QVERIFY(prev > floor && prev < 1.01 * floor);
        // Memory bound: a layer that streams 3.2 GB from T4 memory (320 GB/s) cannot beat 10 ms.
        LayerSpec big;
        big.weightBytesMoved = 3.2e9;
        big.forwardFlops = 1;
        QVERIFY(qAbs(analyticLayerTiming(big, t4, 1, 1, job).forward - 3.2e9 / t4.memoryBandwidth) < 1e-12);
        job.backwardFactor = 3;
        QVERIFY(qAbs(analyticLayerTiming(l, t4, 1, 1, job).backward -
                     3 * analyticLayerTiming(l, t4, 1, 1, {}).forward) < 1e-12);
    }

    void analyticTensorParallel()
    {
        const DeviceType& v = *DeviceCatalog::builtin().find("V100-16GB");
        LayerSpec l;
        l.forwardFlops = 4e12;
        l.tpAllReduceBytes = 8e6;
        Job job;
        const double t1 = analyticLayerTiming(l, v, 1, 2, job).forward;
        AnalyticContext ctx{1e11, 0};
        const double t2 = analyticLayerTiming(l, v, 2, 2, job, ctx).forward;
        // Half the FLOPs plus Megatron's two all-reduces of half the 2 samples × 8 MB each over 2 ranks:
        // bandwidth 2 · 2·(1/2)·8e6/1e11 = 16e6/1e11 (no latency steps here), and each call's fixed cost
        // (V100's launch_overhead + NCCL's 8.4 µs base latency).
        QVERIFY(qAbs(t2 - (t1 / 2 + 16e6 / 1e11 + 2 * (v.launchOverhead + 8.4e-6))) < 1e-12);
        QCOMPARE(collectiveCallSeconds(v), v.launchOverhead + 8.4e-6);
    }

    void zeroShardingMemory()
    {
        // fp16 with Adam, Megatron's accounting: 2 (weights) + 2 (fp16 grads) + 16 (fp32 master, fp32 grad
        // copy, two moments) = 20 bytes per parameter.
        ModelSpec m = test::toyModel(1, 1, 1e9);
        Job job;
        MemoryBreakdown b = modelStateMemory(m, 0, 1, 1, 4, job);
        QCOMPARE(b.weights, 2e9);
        QCOMPARE(b.gradients, 2e9);
        QCOMPARE(b.optimizer, 16e9);
        job.zeroStage = 1;
        QCOMPARE(modelStateMemory(m, 0, 1, 1, 4, job).total(), 2e9 + 2e9 + 4e9);
        job.zeroStage = 2;
        QCOMPARE(modelStateMemory(m, 0, 1, 1, 4, job).total(), 2e9 + 0.5e9 + 4e9);
        job.zeroStage = 3;
        QCOMPARE(modelStateMemory(m, 0, 1, 1, 4, job).total(), 20e9 / 4);
        QCOMPARE(modelStateMemory(m, 0, 1, 2, 1, Job{}).total(), 10e9); // tp 2 halves the states
    }

    void korthikantiActivations()
    {
        ModelSpec m = buildExampleModel("gpt2-amp");
        int block = -1;
        for (int i = 0; i < m.layerCount(); ++i)
            if (m.layers[i].kind == LayerKind::Transformer) {
                block = i;
                break;
            }
        QVERIFY(block >= 0);
        Job job;
        const double s = 1024, h = 1024, a = 16;
        // Korthikanti et al. 2022, eq. 2/3: s·b·h·(34 + 5as/h) without tp, s·b·h·(10 + 24/t + 5as/(ht)) with tp t.
        const double tp1 = s * h * (34 + 5 * a * s / h);
        const double tp2 = s * h * (10 + 24.0 / 2 + 5 * a * s / (h * 2));
        QVERIFY(qAbs(activationMemory(m, block, block + 1, 1, 1, job) / tp1 - 1) < 0.02);
        QVERIFY(qAbs(activationMemory(m, block, block + 1, 2, 1, job) / tp2 - 1) < 0.02);
        QVERIFY(qAbs(activationMemory(m, block, block + 1, 1, 4, job) / (4 * tp1) - 1) < 0.02);
        // fp32 doubles every activation byte (model sizes are stated for 16-bit values).
        Job fp32;
        fp32.precision = Precision::FP32;
        QVERIFY(qAbs(activationMemory(m, block, block + 1, 1, 1, fp32) / (2 * tp1) - 1) < 0.02);
        // Full recomputation keeps only the layer input (2sh bytes) plus one layer's working set.
        job.recompute = true;
        QVERIFY(activationMemory(m, block, block + 1, 1, 1, job) < 1.05 * (2 * s * h + tp1));
        QVERIFY(activationMemory(m, 1, 25, 1, 1, job) < activationMemory(m, 1, 25, 1, 1, Job{}) / 4);
    }

    void profileInterpolation()
    {
        Profile p;
        p.set({"T4", 1, 2}, {{0.2, 0.4, 0.01, 100}});
        p.set({"T4", 1, 4}, {{0.3, 0.6, 0.01, 200}});
        // Two sizes: the per-sample time runs linearly between them (forward 0.1 -> 0.075 s per sample), so
        // micro-batch 3 takes 3 x 0.0875 = 0.2625 s forward and 3 x 0.175 = 0.525 s backward; activation
        // bytes are linear in the batch (150).
        auto mid = p.lookup(0, "T4", 1, 3);
        QVERIFY(mid);
        QVERIFY(qAbs(mid->forward - 0.2625) < 1e-15);
        QVERIFY(qAbs(mid->backward - 0.525) < 1e-15);
        QCOMPARE(mid->activationBytes, 150.0);
        auto above = p.lookup(0, "T4", 1, 8); // saturated: per-sample time flat from the largest size
        QCOMPARE(above->forward, 0.6);
        auto below = p.lookup(0, "T4", 1, 1);
        QCOMPARE(below->forward, 0.1);
        QCOMPARE(below->update, 0.01);     // the optimizer step does not scale with the batch
        QVERIFY(!p.lookup(0, "T4", 2, 2)); // tp 2 not measured
        QVERIFY(!p.lookup(0, "V100-16GB", 1, 2));
        QVERIFY(!p.lookup(1, "T4", 1, 2)); // no such layer
    }

    void measuredWinsOverAnalytic()
    {
        ModelSpec m = test::toyModel(2);
        Profile p;
        p.set({"T4", 1, 1}, {{0.5, 1.0, 0, -1}, {0.25, 0.5, 0, -1}});
        CostModel costs(m, Job{}, p);
        QCOMPARE(costs.layer(0, "T4", 1, 1).forward, 0.5);
        QCOMPARE(costs.range(0, 2, "T4", 1, 1).backward, 1.5);
        const DeviceType& v = *DeviceCatalog::builtin().find("V100-16GB");
        QCOMPARE(costs.layer(0, "V100-16GB", 1, 1).forward, analyticLayerTiming(m.layers[0], v, 1, 1, Job{}).forward);
        Profile wrong;
        wrong.set({"T4", 1, 1}, {{0.5, 1.0, 0, -1}});
        QVERIFY_THROWS_EXCEPTION(InputError, CostModel(m, Job{}, wrong));
    }
};

QTEST_GUILESS_MAIN(TestCost)
#include "tst_cost.moc"
