// Hand-computed checks of the analytic profile's physical model (core/cost/analytic.h): one matrix product's
// time at a given size and efficiency, memory-bound products and element-wise work, tensor parallelism
// shrinking the matrices, backward products, launch overhead, precision. The device is made up here so the
// expected values do not move when the catalog is re-calibrated.
#include "core/cost/analytic.h"
#include "core/model/device.h"
#include "core/model/model.h"

#include <QTest>

using namespace hetplan;

namespace {

// 100 TFLOP/s 16-bit, 20 TFLOP/s fp32, 1 TB/s of which 80 % is reachable, ceiling 50 %, half fill at 100.
DeviceType toyDevice()
{
    DeviceType d;
    d.name = "toy";
    d.peakFlops = 1e14;
    d.peakFlopsFp32 = 2e13;
    d.memoryBandwidth = 1e12;
    d.memoryEfficiency = 0.8;
    d.intraNodeBandwidth = 1e11;
    d.effMax = 0.5;
    d.gemmHalfDim = 100;
    d.launchOverhead = 0;
    return d;
}

LayerSpec oneProduct(MatMul mm)
{
    LayerSpec l;
    l.matmuls = {mm};
    l.forwardFlops = mm.flops();
    return l;
}

bool near(double a, double b) { return qAbs(a - b) <= 1e-9 * qAbs(b) + 1e-15; }

} // namespace

class TestAnalytic : public QObject {
    Q_OBJECT
private slots:
    void oneMatmulAtItsEfficiency()
    {
        const DeviceType d = toyDevice();
        // m = n = k = 900: f(900) = 900/1000 = 0.9, eff = 0.5 · 0.9³ = 0.3645.
        QVERIFY(near(matmulEfficiency(d, 900, 900, 900), 0.3645));
        // 2·900³ = 1.458e9 FLOP / (1e14 · 0.3645) = 4e-5 s. Memory: 3·900² values · 2 B = 4.86 MB at
        // 0.8 TB/s = 6.1 µs, less, so compute bound.
        QVERIFY(near(matmulTime(d, Precision::FP16, 900, 900, 900, 1), 4e-5));
        // fp32 runs at 2e13: five times slower (its 9.72 MB still take only 12 µs).
        QVERIFY(near(matmulTime(d, Precision::FP32, 900, 900, 900, 1), 2e-4));
        // TF32 off: the CUDA-core rate, 5e12 here, four times slower again (1.458e9 / (5e12 · 0.3645) = 8e-4 s);
        // 16-bit products do not depend on it.
        DeviceType cores = d;
        cores.peakFlopsFp32CudaCores = 5e12;
        QVERIFY(near(matmulTime(cores, Precision::FP32, 900, 900, 900, 1, false), 8e-4));
        QVERIFY(near(matmulTime(cores, Precision::FP32, 900, 900, 900, 1, true), 2e-4));
        QVERIFY(near(matmulTime(cores, Precision::FP16, 900, 900, 900, 1, false), 4e-5));
        // The efficiency rises with every dimension and saturates at effMax.
        QVERIFY(matmulEfficiency(d, 200, 900, 900) < matmulEfficiency(d, 900, 900, 900));
        QVERIFY(matmulEfficiency(d, 1e7, 1e7, 1e7) > 0.4999 && matmulEfficiency(d, 1e7, 1e7, 1e7) < 0.5);
    }

    void thinMatmulIsMemoryBound()
    {
        DeviceType d = toyDevice();
        d.gemmHalfDim = 0; // eff = effMax
        // 1000×1×1000: 2e6 FLOP / 5e13 = 40 ns; bytes (1000 + 1000 + 1e6)·2 = 2.004e6 / 8e11 = 2.505 µs.
        QVERIFY(near(matmulTime(d, Precision::FP16, 1000, 1000, 1, 1), 2.505e-6));
    }

    void elementwiseIsMemoryBound()
    {
        const DeviceType d = toyDevice();
        LayerSpec l;
        l.memoryBytesReplicated = 4e8;
        l.memoryBytesSharded = 8e8;
        Job job;
        // Micro-batch 2, tp 1: (4e8 + 8e8)·2 = 2.4e9 B / 8e11 B/s = 3 ms; backward twice the traffic.
        LayerTiming t = analyticLayerTiming(l, d, 1, 2, job);
        QVERIFY(near(t.forward, 3e-3));
        QVERIFY(near(t.backward, 6e-3));
        // tp 4 divides only the sharded bytes: (4e8 + 2e8)·2 = 1.2e9 B → 1.5 ms (no all-reduce bytes here).
        QVERIFY(near(analyticLayerTiming(l, d, 4, 2, job).forward, 1.5e-3));
        // fp32 values are twice as wide: 6 ms.
        job.precision = Precision::FP32;
        QVERIFY(near(analyticLayerTiming(l, d, 1, 2, job).forward, 6e-3));
    }

    void fusedAttentionOnlyIn16Bit()
    {
        const DeviceType d = toyDevice();
        LayerSpec l;
        l.attentionScoreBytes = 8e8;
        l.fusedAttention = true;
        Job job;
        // fp16 with a fused kernel: the scores never reach memory.
        QCOMPARE(analyticLayerTiming(l, d, 1, 1, job).forward, 0.0);
        // fp32 has no FlashAttention: 8e8 B × 2 (fp32) / 8e11 B/s = 2 ms, and tp 2 halves it.
        job.precision = Precision::FP32;
        QVERIFY(near(analyticLayerTiming(l, d, 1, 1, job).forward, 2e-3));
        QVERIFY(near(analyticLayerTiming(l, d, 2, 1, job).forward, 1e-3));
        // Unfused (eager attention) pays them in 16-bit too: 1 ms.
        l.fusedAttention = false;
        QVERIFY(near(analyticLayerTiming(l, d, 1, 1, Job{}).forward, 1e-3));
    }

    void tensorParallelShrinksTheMatrices()
    {
        DeviceType d = toyDevice();
        d.gemmHalfDim = 1000;
        // Column-parallel 1000×2000×1000 product (split n), micro-batch 1.
        LayerSpec l = oneProduct({1000, 2000, 1000, 1, TpSplit::N, false});
        l.tpAllReduceBytes = 1e6;
        Job job;
        // tp 1: eff = 0.5 · (1/2)(2/3)(1/2) = 1/12; 4e9 FLOP / (1e14/12) = 4.8e-4 s.
        QVERIFY(near(analyticLayerTiming(l, d, 1, 1, job).forward, 4.8e-4));
        // tp 2: n = 1000, eff = 0.5 · 1/8 = 1/16; 2e9 / (1e14/16) = 3.2e-4 s: 1.5x faster, not 2x, because the
        // smaller matrices fill the GPU less. Plus Megatron's two all-reduces of 0.5 MB each over 1e11 B/s,
        // 2-rank rings with 5 µs per step: 2·(1/2)·0.5e6/1e11 + 2·5e-6 = 1.5e-5 s, plus the fixed cost of the
        // call (launch_overhead 0 here + NCCL's 8.4 µs ring base latency): 2 · 2.34e-5 = 4.68e-5 s.
        QVERIFY(near(analyticLayerTiming(l, d, 2, 1, job).forward, 3.2e-4 + 4.68e-5));
        // Row-parallel (split k) shrinks k instead: the same numbers by symmetry of f.
        LayerSpec row = oneProduct({1000, 1000, 2000, 1, TpSplit::K, false});
        QVERIFY(near(analyticLayerTiming(row, d, 2, 1, job).forward, 3.2e-4));
    }

    // The fixed costs of tensor parallelism: every all-reduce call pays the framework's dispatch (the device's
    // launch_overhead) and NCCL's base latency whatever its size, and each of a layer's two calls pays its own
    // ring latency steps. They dominate a small layer and vanish relatively in a large one.
    void tensorParallelFixedCostsPerCall()
    {
        DeviceType d = toyDevice();
        d.launchOverhead = 10e-6;
        LayerSpec l;
        l.tensorParallel = true;
        l.tpAllReduceBytes = 8e3; // 8 kB per sample and pass: two calls of 4 kB at micro-batch 1
        Job job;
        const LinkParams link{1e11, 5e-6};
        // tp 4, one call: ring 2·(3/4)·4e3/1e11 = 6e-8 s + 2·3·5e-6 = 3e-5 s; fixed 10e-6 + 8.4e-6 = 1.84e-5 s.
        // Two calls: 2 · (6e-8 + 3e-5 + 1.84e-5) = 9.692e-5 s, of which 9.68e-5 is fixed.
        QVERIFY(near(collectiveCallSeconds(d), 1.84e-5));
        QVERIFY(near(tpAllReduceSeconds(l, d, 4, 1, job, link), 9.692e-5));
        // The same calls at 1000 samples (8 MB each): bandwidth 2 · 2·(3/4)·4e6/1e11 = 1.2e-4 s, so the
        // fixed 9.68e-5 s is 45 % of 2.168e-4 s instead of 99.9 %.
        QVERIFY(near(tpAllReduceSeconds(l, d, 4, 1000, job, link), 1.2e-4 + 9.68e-5));
        // No tensor parallelism, or a layer not split: no calls at all.
        QCOMPARE(tpAllReduceSeconds(l, d, 1, 1, job, link), 0.0);
        l.tensorParallel = false;
        QCOMPARE(tpAllReduceSeconds(l, d, 4, 1, job, link), 0.0);
        // In the layer time both passes pay them (forward after attention and MLP, backward for their input
        // gradients) over the device's own link (1e11 B/s here, not PCIe): forward = 9.692e-5 s, no other work.
        l.tensorParallel = true;
        const LayerTiming t = analyticLayerTiming(l, d, 4, 1, job);
        QVERIFY(near(t.forward, 9.692e-5));
        QVERIFY(near(t.backward, 9.692e-5));
    }

    void attentionHeadsSplitAndMicroBatchStacks()
    {
        DeviceType d = toyDevice();
        d.gemmHalfDim = 0;
        // 16 heads of 100×100×50 products, micro-batch 2 over tp 4: 16·2/4 = 8 products of 1e6 FLOP =
        // 8e6 / 5e13 = 1.6e-7 s; bytes 8·(5000 + 5000 + 10000)·2 = 3.2e5 / 8e11 = 4e-7 s, memory bound.
        LayerSpec l = oneProduct({100, 100, 50, 16, TpSplit::Batch, true});
        QVERIFY(near(analyticLayerTiming(l, d, 4, 2, Job{}).forward, 4e-7));
        // A weight product stacks the micro-batch in m instead: 2000×1000×1000 = 4e9 / 5e13 = 8e-5 s.
        LayerSpec w = oneProduct({1000, 1000, 1000, 1, TpSplit::None, false});
        QVERIFY(near(analyticLayerTiming(w, d, 4, 2, Job{}).forward, 8e-5));
    }

    void backwardProductsAndFactor()
    {
        const DeviceType d = toyDevice();
        // 900³ product: its two gradient products have the same dimensions permuted, so the same 4e-5 s each.
        LayerSpec l = oneProduct({900, 900, 900, 1, TpSplit::None, false});
        Job job;
        QVERIFY(near(analyticLayerTiming(l, d, 1, 1, job).backward, 8e-5));
        // 100×900×900: forward eff 0.5·0.5·0.9·0.9 = 0.2025, 1.62e8 FLOP → 8e-6 s; input gradient
        // (100×900·900×900) and weight gradient (900×100·100×900) have the same f-product → 16e-6 s.
        LayerSpec thin = oneProduct({100, 900, 900, 1, TpSplit::None, false});
        QVERIFY(near(analyticLayerTiming(thin, d, 1, 1, job).forward, 8e-6));
        QVERIFY(near(analyticLayerTiming(thin, d, 1, 1, job).backward, 1.6e-5));
        // backward_factor scales the gradient products: 3 → 1.5 × 8e-5.
        job.backwardFactor = 3;
        QVERIFY(near(analyticLayerTiming(l, d, 1, 1, job).backward, 1.2e-4));
        // Recomputation adds one forward.
        job.backwardFactor = 2;
        job.recompute = true;
        QVERIFY(near(analyticLayerTiming(l, d, 1, 1, job).backward, 1.2e-4));
    }

    void launchOverheadPerKernel()
    {
        DeviceType d = toyDevice();
        d.launchOverhead = 5e-6;
        LayerSpec l;
        l.kernels = 20;
        // 20 kernels × 5 µs = 100 µs forward, twice as many launches backward.
        const LayerTiming t = analyticLayerTiming(l, d, 1, 1, Job{});
        QVERIFY(near(t.forward, 1e-4));
        QVERIFY(near(t.backward, 2e-4));
    }

    void exampleMatmulsAddUpToTheLayerFlops()
    {
        // Property: the work list of every transformer block and head is the layer's forwardFlops.
        for (const std::string& name : exampleModelNames()) {
            const ModelSpec m = buildExampleModel(name);
            for (const LayerSpec& l : m.layers) {
                if (l.matmuls.empty() || l.kind == LayerKind::Embedding)
                    continue;
                double flops = 0;
                for (const MatMul& mm : l.matmuls)
                    flops += mm.flops();
                // BERT's pooler (2·h² on one token) is the only product not in the list.
                QVERIFY2(qAbs(flops - l.forwardFlops) <= 1e-9 * l.forwardFlops + 2.0 * 768 * 768,
                         (name + "/" + l.name).c_str());
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestAnalytic)
#include "tst_analytic.moc"
