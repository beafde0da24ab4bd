// The simulator on SPMD plans: closed-form times (all GPUs meet at each collective, compute scaled by each
// GPU's ratio), re-balancing by the largest change of share, per-GPU memory, and input checks.
#include "core/base/errors.h"
#include "core/cost/spmd_costs.h"
#include "core/model/device.h"
#include "core/sim/simulator.h"
#include "testutil.h"

#include <QTest>

#include <map>

using namespace hetplan;

namespace {

using K = SpmdInstruction::Kind;

SpmdInstruction compute(double flops, bool sharded, bool backward = false, int seg = 0)
{
    SpmdInstruction i;
    i.kind = K::Compute;
    i.flops = flops;
    i.sharded = sharded;
    i.backward = backward;
    i.segment = seg;
    i.group = "layer";
    return i;
}

SpmdInstruction collective(const std::string& c, double bytes, int seg = 0, int from = -1)
{
    SpmdInstruction i;
    i.kind = K::Collective;
    i.collective = c;
    i.bytes = bytes;
    i.segment = seg;
    i.fromSegment = from;
    return i;
}

Plan spmdPlan(std::vector<SpmdInstruction> ins, std::vector<std::vector<double>> ratios)
{
    Plan p;
    p.cluster = test::twoNodeCluster("V100-16GB", 1, "P100-16GB", 1);
    p.model = buildExampleModel("bert-base");
    p.job.globalBatchSize = 8;
    p.spmd = SpmdPlan{std::vector<std::string>(ins.size(), "instruction"), ratios, ins, {}, {}};
    return p;
}

double rate(const char* device, Precision precision = Precision::FP16)
{
    const DeviceType* d = DeviceCatalog::builtin().find(device);
    return (precision == Precision::FP32 ? d->peakFlopsFp32 : d->peakFlops) * d->effMax;
}

} // namespace

class TestSpmdSim : public QObject {
    Q_OBJECT
private slots:
    void stagesSynchroniseAtCollectives()
    {
        // GPU 0 (V100) holds 3/4 of the sharded op, GPU 1 (P100) 1/4. Stage 1: max(0.75 F / r0, 0.25 F / r1);
        // then the all-reduce of S bytes on the 2-GPU ring; stage 2: the replicated op, max(F / r0, F / r1).
        const double F = 1e13, S = 64e6;
        const Plan plan =
            spmdPlan({compute(F, true), collective("all-reduce", S), compute(F, false, true)}, {{0.75, 0.25}});
        const CostModel costs(plan.model, plan.job, plan.profile);
        const SimResult r = simulate(plan, costs);
        const double r0 = rate("V100-16GB"), r1 = rate("P100-16GB");
        const double ar = ringAllReduce(S, 2, groupLink(plan.cluster, {0, 1}));
        const double expected = std::max(0.75 * F / r0, 0.25 * F / r1) + ar + std::max(F / r0, F / r1);
        QVERIFY(std::abs(r.iterationSeconds - expected) < 1e-9 * expected);
        // Busy time: its own compute only.
        QVERIFY(std::abs(r.busySeconds.at(0) - (0.75 * F + F) / r0) < 1e-9);
        QVERIFY(r.feasible);
    }

    void gradientAllReducesRunInBucketsAfterTheBackward()
    {
        // Two backward computes, each followed by the all-reduce of a parameter's gradient (G1, G2 bytes of
        // fp16 values). The frameworks put both gradients in one bucket reduced after the backward, so the
        // iteration is both computes plus ONE ring all-reduce of G1 + G2 (one latency), not two.
        const double F = 1e12, G1 = 3e6, G2 = 5e6;
        SpmdInstruction g1 = collective("all-reduce", G1), g2 = collective("all-reduce", G2);
        g1.parameter = g2.parameter = g1.backward = g2.backward = true;
        Plan plan = spmdPlan({compute(F, true, true), g1, compute(F, true, true), g2}, {{0.5, 0.5}});
        const CostModel costs(plan.model, plan.job, plan.profile);
        const LinkParams link = groupLink(plan.cluster, {0, 1});
        const double c = 0.5 * F / std::min(rate("V100-16GB"), rate("P100-16GB"));
        const double expected = 2 * c + ringAllReduce(G1 + G2, 2, link);
        QVERIFY(std::abs(simulate(plan, costs).iterationSeconds - expected) < 1e-9 * expected);
        QVERIFY(ringAllReduce(G1, 2, link) + ringAllReduce(G2, 2, link) > ringAllReduce(G1 + G2, 2, link));
        // bf16 reduces gradients in fp32: twice the bytes of the bf16 values.
        plan.job.precision = Precision::BF16;
        const CostModel costs16(plan.model, plan.job, plan.profile);
        const double expected16 = 2 * c + ringAllReduce(2 * (G1 + G2), 2, link);
        QVERIFY(std::abs(simulate(plan, costs16).iterationSeconds - expected16) < 1e-9 * expected16);
        // An activation all-reduce (not a parameter's gradient) still runs where the program puts it.
        g1.parameter = false;
        plan.job.precision = Precision::FP16;
        plan.spmd->instructions[1] = g1;
        const double expectedAct = 2 * c + ringAllReduce(G1, 2, link) + ringAllReduce(G2, 2, link);
        QVERIFY(std::abs(simulate(plan, costs).iterationSeconds - expectedAct) < 1e-9 * expectedAct);
    }

    void rebalanceCostsTheLargestChange()
    {
        // Segment 0 at (1/2, 1/2), segment 1 at (0.8, 0.2): the largest change is 0.3 of the tensor.
        const double S = 1e9;
        Plan plan = spmdPlan({collective("rebalance", S, 1, 0)}, {{0.5, 0.5}, {0.8, 0.2}});
        const CostModel costs(plan.model, plan.job, plan.profile);
        const double expected =
            spmdCollectiveCost(SpmdCollective::Rebalance, S, 2, groupLink(plan.cluster, {0, 1})).at(0.3);
        QVERIFY(expected > 0);
        QVERIFY(std::abs(simulate(plan, costs).iterationSeconds - expected) < 1e-9 * expected);
        plan.spmd->shardingRatios[1] = {0.5, 0.5}; // no change, no time
        QCOMPARE(simulate(plan, costs).iterationSeconds, 0.0);
    }

    void memoryScalesWithTheShard()
    {
        // A sharded parameter of P bytes of fp16 values = P / 2 parameters at Megatron's 20 B per parameter
        // (weights 2, gradients 2, optimizer 12 + the fp32 gradient copy 4) = 10 × P per GPU share; a
        // replicated forward output of A bytes is kept whole.
        const double P = 1e9, A = 2e8;
        SpmdInstruction load;
        load.kind = K::Load;
        load.parameter = true;
        load.sharded = true;
        load.bytes = P;
        SpmdInstruction fwd = compute(1e9, false);
        fwd.bytes = A;
        Plan plan = spmdPlan({load, fwd}, {{0.75, 0.25}});
        const CostModel costs(plan.model, plan.job, plan.profile);
        const SimResult r = simulate(plan, costs);
        // The gradients are reduced in DeepSpeed's (or DDP's) buckets: a flattened fp16 copy of the GPU's
        // gradients up to 5e8 of them, 0.75 · 5e8 · 2 B on GPU 0 and 0.25 · 5e8 · 2 B on GPU 1; the allocator
        // reserve is the largest layer's activations once more (the one kept output, A, replicated).
        // The simulator adds each GPU's context (0.75 GiB for both Volta and Pascal in the catalog) and the
        // NCCL buffers of the one data-parallel ring of the two GPUs, at each node's channel count: V100's
        // NVLink 150 GB/s / 20 GB/s = 8 channels, P100's PCIe 16 GB/s -> NCCL's minimum 2; 9,633,792 B each.
        const double context = 0.75 * (1 << 30);
        const double over0 = r.peakMemoryBytes.at(0) - (0.75 * P * 10 + A);
        const double over1 = r.peakMemoryBytes.at(1) - (0.25 * P * 10 + A);
        QCOMPARE(over0, 0.75 * 5e8 * 2 + A + context + 8 * 9'633'792.0);
        QCOMPARE(over1, 0.25 * 5e8 * 2 + A + context + 2 * 9'633'792.0);
        // The breakdown names each term.
        const GpuMemory& m0 = r.memory.at(0);
        QCOMPARE(m0.weights + m0.gradients + m0.optimizer, 0.75 * P * 10);
        QCOMPARE(m0.activations, A);
        QCOMPARE(m0.allocatorReserve, A);
        QCOMPARE(m0.gradientBuffer, 0.75 * 5e8 * 2);
        QCOMPARE(m0.total(), r.peakMemoryBytes.at(0));
        // fp32: the same P bytes are P / 4 parameters at 16 B (weights 4, gradients 4, Adam moments 8) = 4 × P,
        // and a 4-byte gradient buffer of 0.75 · 2.5e8 of them.
        plan.job.precision = Precision::FP32;
        const CostModel costs32(plan.model, plan.job, plan.profile);
        const SimResult r32 = simulate(plan, costs32);
        QCOMPARE(r32.peakMemoryBytes.at(0) - (0.75 * P * 4 + A), 0.75 * 2.5e8 * 4 + A + context + 8 * 9'633'792.0);
    }

    void fp32RunsAtTheFp32Peak()
    {
        // An fp32 job prices compute at the fp32 matrix peak (V100 15.7, P100 9.3 TFLOPS) × efficiency_max,
        // not the fp16 tensor-core peak: one sharded op of F FLOP at (0.6, 0.4) takes max(0.6 F / r0, 0.4 F / r1).
        const double F = 1e13;
        Plan plan = spmdPlan({compute(F, true)}, {{0.6, 0.4}});
        plan.job.precision = Precision::FP32;
        const CostModel costs(plan.model, plan.job, plan.profile);
        const double expected =
            std::max(0.6 * F / rate("V100-16GB", Precision::FP32), 0.4 * F / rate("P100-16GB", Precision::FP32));
        QVERIFY(std::abs(simulate(plan, costs).iterationSeconds - expected) < 1e-9 * expected);
        QVERIFY(rate("V100-16GB", Precision::FP32) > 0 && rate("V100-16GB", Precision::FP32) < rate("V100-16GB"));
    }

    void wholeUnitsSetTheShare()
    {
        // A sharded op of F FLOP on a dimension of 3 units split 2 + 1 (the plan's integer shards), ratios
        // 0.5 / 0.5: GPU 0 computes 2/3 F, GPU 1 1/3 F, so max(2/3 F / r0, 1/3 F / r1), not the ratios' half.
        const double F = 1e13;
        SpmdInstruction op = compute(F, true);
        op.dimension = 0;
        Plan plan = spmdPlan({op}, {{0.5, 0.5}});
        plan.spmd->dimensions = {{"E", 3, 0, {2, 1}}};
        const CostModel costs(plan.model, plan.job, plan.profile);
        const double expected = std::max(2.0 / 3 * F / rate("V100-16GB"), 1.0 / 3 * F / rate("P100-16GB"));
        QVERIFY(std::abs(simulate(plan, costs).iterationSeconds - expected) < 1e-9 * expected);
        plan.spmd->dimensions = {{"E", 3, 0, {2, 2}}}; // does not add up to 3
        QVERIFY_THROWS_EXCEPTION(InputError, simulate(plan, costs));
    }

    void alikeGpusRunTogetherAndOthersApart()
    {
        // Four V100s and one P100. V100s 0 and 1 hold 0.3 of the batch-sharded op, V100s 2 and 3 hold 0.1
        // and split a 3-unit dimension 2 + 1 (same type, same ratio, different units), the P100 0.2. Each
        // GPU's busy time is its own share of F at its rate, plus the replicated op: GPUs that agree on
        // everything run alike, and any difference keeps them apart.
        const double F = 1e13;
        SpmdInstruction units = compute(F, true);
        units.dimension = 0;
        Plan plan = spmdPlan({compute(F, true), units, collective("all-reduce", 64e6), compute(F, false, true)},
                             {{0.3, 0.3, 0.1, 0.1, 0.2}});
        plan.cluster = test::twoNodeCluster("V100-16GB", 4, "P100-16GB", 1);
        plan.spmd->dimensions = {{"E", 3, 0, {0, 0, 2, 1, 0}}};
        const CostModel costs(plan.model, plan.job, plan.profile);
        SimOptions withTimeline;
        withTimeline.timeline = true;
        const SimResult r = simulate(plan, costs, withTimeline);
        const double r0 = rate("V100-16GB"), r1 = rate("P100-16GB");
        const double expected[] = {(0.3 * F + F) / r0, (0.3 * F + F) / r0, (0.1 * F + 2.0 / 3 * F + F) / r0,
                                   (0.1 * F + 1.0 / 3 * F + F) / r0, (0.2 * F + F) / r1};
        for (int g = 0; g < 5; ++g)
            QVERIFY2(std::abs(r.busySeconds.at(g) - expected[g]) < 1e-9 * expected[g], qPrintable(QString::number(g)));
        // Every GPU has its own events: forward, all-reduce, backward and the optimizer step.
        std::map<int, int> events;
        for (const TimelineEvent& e : r.events)
            ++events[e.gpu];
        QCOMPARE(int(events.size()), 5);
        for (const auto& [g, n] : events)
            QCOMPARE(n, 4);
    }

    void layerOpsTakeTheLayerModelsRate()
    {
        // An op of bert-base's block0 (forward, F FLOP for the whole batch of 8, sharded 0.75 / 0.25 = 6 and 2
        // samples) takes the layer-level cost model's block0 forward time of the GPU's micro-batch:
        // 0.75 F × (T(V100, 6) × 8/6 / F) = T(V100, 6), and T(P100, 2) on GPU 1; the iteration is the larger.
        const double F = 1e12;
        SpmdInstruction op = compute(F, true);
        op.group = "block0";
        const Plan plan = spmdPlan({op}, {{0.75, 0.25}});
        const CostModel costs(plan.model, plan.job, plan.profile);
        const int l = spmdLayerOf(plan.model, "block0");
        QVERIFY(l >= 0);
        const double expected =
            std::max(costs.layer(l, "V100-16GB", 1, 6).forward, costs.layer(l, "P100-16GB", 1, 2).forward);
        QVERIFY(std::abs(simulate(plan, costs).iterationSeconds - expected) < 1e-9 * expected);
    }

    void badSpmdPlansRefused()
    {
        Plan plan = spmdPlan({compute(1, true)}, {{1.0}}); // one ratio for two GPUs
        const CostModel costs(plan.model, plan.job, plan.profile);
        QVERIFY_THROWS_EXCEPTION(InputError, simulate(plan, costs));
        plan = spmdPlan({collective("all-sum", 1)}, {{0.5, 0.5}});
        QVERIFY_THROWS_EXCEPTION(InputError, simulate(plan, costs));
        plan = spmdPlan({compute(1, true, false, 3)}, {{0.5, 0.5}});
        QVERIFY_THROWS_EXCEPTION(InputError, simulate(plan, costs));
    }
};

QTEST_GUILESS_MAIN(TestSpmdSim)
#include "tst_spmd_sim.moc"
