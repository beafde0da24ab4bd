// What a GPU really holds, hand-computed: Megatron's bytes per parameter, recomputation keeping one layer's
// activations once per stage, measured activations winning, the framework's gradient buffer, the allocator
// reserve, NCCL communicator buffers, the context (catalog, node override) in the simulator's reported peak
// and breakdown and in the feasibility check.
#include "simfixtures.h"
#include "testutil.h"

#include "core/base/errors.h"
#include "core/cost/memory.h"
#include "core/cost/stage_peak_scan.h"
#include "core/model/catalog_json.h"
#include "core/sim/simulator.h"

#include <QJsonDocument>
#include <QTest>

#include <initializer_list>
#include <utility>

using namespace hetplan;
using namespace hetplan::simtest;

class TestMemoryModel : public QObject {
    Q_OBJECT
private slots:
    // Megatron-LM docs/source/api-guide/dist_optimizer.md: bytes per parameter without / with the
    // distributed optimizer over d ranks: fp16 20 / 4 + 16/d, bf16 18 / 6 + 12/d, fp32 16 / 8 + 8/d.
    void megatronBytesPerParameter()
    {
        ModelSpec m = test::toyModel(1, 1, 1e9); // one layer of 1e9 parameters
        Job job;                                 // Adam: optimizerStateBytesPerParam 8 (+ 4 master copy)
        const double d = 4;
        struct Row {
            Precision p;
            double plain, distributed;
        } rows[] = {
            {Precision::FP16, 20, 4 + 16 / d}, {Precision::BF16, 18, 6 + 12 / d}, {Precision::FP32, 16, 8 + 8 / d}};
        for (const Row& r : rows) {
            job.precision = r.p;
            job.zeroStage = 0;
            QCOMPARE(stateBytesPerParam(job).total(), r.plain);
            QCOMPARE(modelStateMemory(m, 0, 1, 1, int(d), job).total(), r.plain * 1e9);
            job.zeroStage = 1; // ZeRO-1 = Megatron's distributed optimizer
            QCOMPARE(modelStateMemory(m, 0, 1, 1, int(d), job).total(), r.distributed * 1e9);
        }
        // bf16: 2 (weights) + 4 (fp32 gradients) + 12 (master + Adam moments).
        job.precision = Precision::BF16;
        QCOMPARE(stateBytesPerParam(job).gradients, 4.0);
    }

    // toyModel(2, 1, 0, 10): per sample each layer keeps inputBytes 10 and full activations
    // 4·10 (sharded) + 10 (replicated) = 50 bytes (fp16: scale 1). Micro-batch 2, 3 in flight.
    void recomputationOncePerStage()
    {
        ModelSpec m = test::toyModel(2, 1, 0, 10);
        Job job;
        // Without recomputation: 3 micro-batches x 2 layers x 2 samples x 50 = 600 of activations, plus the
        // allocator reserve of the largest layer's full activations of one micro-batch (2 x 50 = 100) = 700.
        QCOMPARE(stageActivations(m, 0, 2, 1, 2, job).peak(3), 600.0);
        QCOMPARE(stagePeakMemory(m, 0, 2, 1, 1, 2, 3, job), 700.0);
        // With it: 3 x (2 layers x 2 samples x 10 input bytes) = 120 per micro-batch stash, plus one layer's
        // full activations once (2 samples x 50 = 100) = 220. (Once per micro-batch would be 3 x 140 = 420.)
        // The reserve (the recomputed layer's gradients) adds another 100: 320.
        job.recompute = true;
        const StageActivations a = stageActivations(m, 0, 2, 1, 2, job);
        QCOMPARE(a.perMicroBatch, 40.0);
        QCOMPARE(a.oncePerStage, 100.0);
        QCOMPARE(a.peak(3), 220.0);
        QCOMPARE(stagePeakMemory(m, 0, 2, 1, 1, 2, 3, job), 320.0);
    }

    // testModel(2, 0, 0, 1000): 1000 activation bytes per sample and layer, no parameters. A profile that
    // measured 300 bytes for layer 0 at micro-batch 1 replaces the model's figure there.
    void measuredActivationsWin()
    {
        ModelSpec m = testModel(2, 0, 0, 1000);
        Profile p;
        p.set({"TestA", 1, 1}, {LayerTiming{0.1, 0.2, 0, 300}, LayerTiming{0.1, 0.2, 0, -1}});
        const CostModel costs(m, Job{}, p, testCatalog());
        // 2 in flight x (300 measured + 1000 modelled) = 2600, plus the reserve of the larger layer (1000): 3600.
        QCOMPARE(costs.stagePeak(0, 2, "TestA", 1, 1, 1, 2), 3600.0);
        // Not measured on TestB: the model alone, 2 x 2000 + 1000.
        QCOMPARE(costs.stagePeak(0, 2, "TestB", 1, 1, 1, 2), 5000.0);
    }

    void catalogOverheads()
    {
        const DeviceCatalog& c = DeviceCatalog::builtin();
        for (const DeviceType& d : c.all()) { // every built-in device states its figure and a source
            QVERIFY2(!d.runtimeOverheadSource.empty(), d.name.c_str());
            QVERIFY(d.runtimeOverheadBytes > 0 && d.runtimeOverheadBytes < d.memoryBytes / 4);
        }
        // The context part only (CUDA context + workspaces); NCCL and the rest are modelled per plan.
        QCOMPARE(c.find("V100-16GB")->runtimeOverheadBytes, 0.75 * 1024 * 1024 * 1024);
        QCOMPARE(c.find("A100-80GB")->runtimeOverheadBytes, 1.0 * 1024 * 1024 * 1024);
        // The JSON form keeps it per device.
        const DeviceType back = deviceFromJson(toJson(*c.find("T4")), "x", "d");
        QCOMPARE(back.runtimeOverheadBytes, c.find("T4")->runtimeOverheadBytes);
        QCOMPARE(back.runtimeOverheadSource, c.find("T4")->runtimeOverheadSource);
    }

    void catalogOverheadErrors_data()
    {
        QTest::addColumn<QString>("groups");
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("reason");
        QTest::newRow("unknown device") << R"([{"devices": ["Z9"], "runtime_overhead": "1 GiB", "source": "s"}])"
                                        << "runtime_overheads[0].devices[0]"
                                        << "not a device";
        QTest::newRow("listed twice") << R"([{"devices": ["G1"], "runtime_overhead": "1 GiB", "source": "s"},
                                             {"devices": ["G1"], "runtime_overhead": "2 GiB", "source": "s"}])"
                                      << "runtime_overheads[1].devices[0]"
                                      << "already";
        QTest::newRow("too big") << R"([{"devices": ["G1"], "runtime_overhead": "16 GiB", "source": "s"}])"
                                 << "runtime_overheads[0].runtime_overhead"
                                 << "less than the memory";
        QTest::newRow("no source") << R"([{"devices": ["G1"], "runtime_overhead": "1 GiB"}])"
                                   << "runtime_overheads[0].source"
                                   << "";
    }
    void catalogOverheadErrors()
    {
        QFETCH(QString, groups);
        QFETCH(QString, field);
        QFETCH(QString, reason);
        const QString text = R"({"devices": [{"name": "G1", "vendor": "v", "peak_flops": 1e12, "memory": "16 GiB",
                                  "memory_bandwidth": 1e11, "intra_node_bandwidth": 1e10}],
                                 "runtime_overheads": )" +
                             groups + "}";
        const QJsonObject o = QJsonDocument::fromJson(text.toUtf8()).object();
        QVERIFY(!o.isEmpty());
        auto e = test::errorOf([&] { catalogFromJson(o, "cat.json"); });
        QVERIFY(e);
        QCOMPARE(e->file(), std::string("cat.json"));
        QVERIFY2(e->field().find(field.toStdString()) != std::string::npos, e->what());
        QVERIFY2(e->reason().find(reason.toStdString()) != std::string::npos, e->what());
    }

    // One GPU, one stage of testModel(2, 1e6, 0, 1000), micro-batch 1, one micro-batch, fp16:
    //   states 2 x 1e6 x 20 = 40e6, activations 2 x 1000 = 2000, allocator reserve 1000 (one layer) -> stage
    //   part 40,003,000; one GPU has no communicator; reported peak = that + the context (the device's
    //   runtime overhead, or the node's override, which replaces it).
    void simulatorReportsOverhead()
    {
        const ModelSpec m = testModel(2, 1e6, 0, 1000);
        const double stage = 40'003'000;
        for (double overhead : {1e9, 5e8}) {
            for (double spare : {0.0, -1.0}) { // capacity exactly the peak (fits), one byte short (does not)
                DeviceType d = testDevice("Tight", 1e12, 0);
                d.runtimeOverheadBytes = 1e9;
                d.memoryBytes = stage + overhead + spare;
                const DeviceCatalog catalog({d});
                Cluster c = testCluster({{"Tight", 1}}, 1e11, 1e10);
                if (overhead != 1e9)
                    c.nodes[0].runtimeOverhead = overhead; // the cluster file's per-node override
                Plan plan = makePlan(c, m, Job{}, Profile{});
                plan.pipelines = {makePipeline({0, 2}, {{0}}, 1, 1, 1)};
                const CostModel costs(m, Job{}, Profile{}, catalog);
                const SimResult r = simulate(plan, costs);
                QCOMPARE(r.peakMemoryBytes.at(0), stage + overhead);
                QCOMPARE(r.memory.at(0).context, overhead);
                QCOMPARE(r.memory.at(0).communicators, 0.0);
                QCOMPARE(r.memory.at(0).total(), r.peakMemoryBytes.at(0));
                QCOMPARE(r.feasible, spare == 0.0);
                QCOMPARE(fitsMemory(stage, c.nodes[0], d, Job{}, RankGroups{}), spare == 0.0); // the same rule
            }
        }
    }

    // The framework's gradient-reduction buffer beyond the gradients line (core/cost/memory.h):
    //   Megatron (core, legacy): its DDP buffer is the gradients line: 0 extra, whatever the ZeRO stage.
    //   DeepSpeed, no ZeRO: the flattened bucket, min(params, 5e8) elements in the reduction's dtype:
    //     1e6 params fp16: 1e6 x 2 = 2e6; bf16 (reduced in fp32): 4e6; 1e9 params fp16: 5e8 x 2 = 1e9.
    //   DeepSpeed ZeRO-1/2/3: the reduce bucket of 5e8 elements in the parameters' dtype, whatever the size:
    //     fp16/bf16 5e8 x 2 = 1e9, fp32 5e8 x 4 = 2e9.
    void gradientBuffer()
    {
        Job job;
        for (Framework fw : {Framework::MegatronCore, Framework::MegatronLegacy}) {
            job.framework = fw;
            for (int zero : {0, 1})
                for (Precision p : {Precision::FP16, Precision::BF16, Precision::FP32}) {
                    job.zeroStage = zero;
                    job.precision = p;
                    QCOMPARE(gradientBufferMemory(1e9, job), 0.0);
                }
        }
        job.framework = Framework::DeepSpeedPipe;
        job.zeroStage = 0;
        job.precision = Precision::FP16;
        QCOMPARE(gradientBufferMemory(1e6, job), 2e6);
        QCOMPARE(gradientBufferMemory(1e9, job), 1e9);
        job.precision = Precision::BF16;
        QCOMPARE(gradientBufferMemory(1e6, job), 4e6);
        for (int zero : {1, 2, 3}) {
            job.zeroStage = zero;
            job.precision = Precision::BF16;
            QCOMPARE(gradientBufferMemory(1e6, job), 1e9);
            job.precision = Precision::FP32;
            QCOMPARE(gradientBufferMemory(1e6, job), 2e9);
        }
        // In a stage: testModel(2, 1e6, 0, 1000), deepspeed-pipe, fp16, no ZeRO, micro-batch 1, one in flight:
        // states 2e6 x 20 = 40e6, activations 2000, gradient buffer 2e6 x 2 = 4e6, reserve 1000.
        const ModelSpec m = testModel(2, 1e6, 0, 1000);
        job = Job{};
        job.framework = Framework::DeepSpeedPipe;
        const GpuMemory g = stageMemory(m, 0, 2, 1, 1, 1, 1, job);
        QCOMPARE(g.weights + g.gradients + g.optimizer, 40e6);
        QCOMPARE(g.activations, 2000.0);
        QCOMPARE(g.gradientBuffer, 4e6);
        QCOMPARE(g.allocatorReserve, 1000.0);
        QCOMPARE(g.stagePart(), 44'003'000.0);
        QCOMPARE(stagePeakMemory(m, 0, 2, 1, 1, 1, 1, job), 44'003'000.0);
        // No samples (a ZeRO rank without micro-batches): no activations, no reserve.
        QCOMPARE(stageMemory(m, 0, 2, 1, 1, 0, 1, job).allocatorReserve, 0.0);
    }

    // NCCL channels: the node's GPU-to-GPU bandwidth / 20 GB/s, rounded up, within [2, 32]:
    // 300 GB/s -> 15; 64 GB/s -> 4 (3.2 up); 16 GB/s -> 1 -> 2; 900 GB/s -> 45 -> 32. A node override wins.
    void ncclChannelCount()
    {
        DeviceType d = testDevice("G", 1e12, 0);
        Node n;
        n.deviceType = "G";
        for (auto [bw, want] : std::initializer_list<std::pair<double, int>>{{300e9, 15}, {64e9, 4}, {16e9, 2}, {900e9, 32}}) {
            d.intraNodeBandwidth = bw;
            QCOMPARE(ncclChannels(n, d), want);
        }
        n.intraBandwidth = 40e9;
        QCOMPARE(ncclChannels(n, d), 2);
    }

    // One ring communicator per channel: Simple 4 MiB + LL 8 x 512 x 8 x 16 = 524,288 + LL128
    // 120 x 640 x 8 x 8 = 4,915,200 = 9,633,792 bytes; at 15 channels (300 GB/s) 144,506,880.
    // Megatron's p2p: 2 channels x 8 steps x 512 KiB = 8,388,608 per neighbour.
    //   tp 2, dp 2, 4 stages, tied:
    //     middle stage: tp + dp + model-parallel rings + 2 neighbours = 3 x 144,506,880 + 16,777,216 = 450,297,856
    //     last stage:   those + embedding ring, 1 neighbour = 4 x 144,506,880 + 8,388,608 = 586,416,128
    //     position unknown: the worst (first or last) = 586,416,128
    //   DeepSpeed's pipeline: a 2-rank broadcast ring per neighbour: middle 5 x 144,506,880 = 722,534,400.
    //   ZeRO / SPMD over 8 GPUs: one ring, 144,506,880; one GPU alone: 0.
    void communicatorBuffers()
    {
        QCOMPARE(memdefaults::kNcclRingConnectionBytes, 9'633'792.0);
        DeviceType d = testDevice("G", 1e12, 0);
        d.intraNodeBandwidth = 300e9;
        Node n;
        n.deviceType = "G";
        const double ring = 144'506'880;
        Job job;
        QCOMPARE(communicatorMemory(RankGroups::pipelineStage(2, 2, 4, 1, true), n, d, job), 450'297'856.0);
        QCOMPARE(communicatorMemory(RankGroups::pipelineStage(2, 2, 4, 3, true), n, d, job), 586'416'128.0);
        QCOMPARE(communicatorMemory(RankGroups::pipelineStage(2, 2, 4, -1, true), n, d, job), 586'416'128.0);
        QCOMPARE(communicatorMemory(RankGroups::dataParallel(8), n, d, job), ring);
        QCOMPARE(communicatorMemory(RankGroups::dataParallel(1), n, d, job), 0.0);
        QCOMPARE(communicatorMemory(RankGroups{}, n, d, job), 0.0);
        job.framework = Framework::DeepSpeedPipe;
        QCOMPARE(communicatorMemory(RankGroups::pipelineStage(2, 2, 4, 1, true), n, d, job), 722'534'400.0);
        // The context is added on top: the override replaces the device's figure, never the communicators.
        d.runtimeOverheadBytes = 1e9;
        n.runtimeOverhead = 5e8;
        QCOMPARE(gpuOverhead(n, d, Job{}, RankGroups::dataParallel(8)), 5e8 + ring);
        d.memoryBytes = 10e9;
        QCOMPARE(usableMemory(n, d, Job{}, RankGroups::dataParallel(8)), 10e9 - 5e8 - ring);
    }

    // The simulator's breakdown of a two-stage pipeline on 2 GPUs: the terms add up to the reported peak, and
    // each GPU is charged the communicators of its position (1 p2p neighbour, no tp/dp group, the
    // model-parallel ring of its 2-stage pipeline; testModel is untied).
    void simulatorBreakdownAddsUp()
    {
        const ModelSpec m = testModel(4, 1e6, 0, 1000);
        DeviceType d = testDevice("G", 1e12, 0);
        d.intraNodeBandwidth = 40e9; // 2 channels
        const DeviceCatalog catalog({d});
        Cluster c = testCluster({{"G", 2}}, 40e9, 1e10);
        Plan plan = makePlan(c, m, Job{}, Profile{});
        plan.pipelines = {makePipeline({0, 2, 4}, {{0}, {1}}, 1, 1, 2)};
        const CostModel costs(m, Job{}, Profile{}, catalog);
        const SimResult r = simulate(plan, costs);
        const double comms = 2 * memdefaults::kNcclRingConnectionBytes + 2 * 8.0 * 512 * 1024;
        for (int g : {0, 1}) {
            QCOMPARE(r.memory.at(g).total(), r.peakMemoryBytes.at(g));
            QCOMPARE(r.memory.at(g).communicators, comms);
            QCOMPARE(r.memory.at(g).context, d.runtimeOverheadBytes);
        }
    }

    // The layer DP's memory limits scan each first layer's ends in O(1) steps (core/cost/stage_peak_scan.h).
    // A mask built from them is only the mask stagePeak gives if every peak is the very same double: check
    // every range of a GPT with tied embeddings (the head stage's extra copy), under every ZeRO stage, with
    // and without recomputation, tp 1/2/4, and with a profile that measured some layers' activations.
    void stagePeakScanIsStagePeakBitForBit()
    {
        const ModelSpec m = buildGptModel("gpt-scan", 6, 1024, 16, 512);
        QVERIFY(m.arch.tiedEmbeddings);
        const int L = m.layerCount();
        Profile measured;
        measured.model = m.name;
        measured.source = "test";
        std::vector<LayerTiming> rows(L, LayerTiming{0.01, 0.02, 0, -1});
        rows[1].activationBytes = 3.5e8; // two measured blocks; the rest falls back to the model
        rows[4].activationBytes = 1.25e8;
        measured.set({"A100-40GB", 2, 2}, rows);
        int compared = 0;
        for (const Framework fw : {Framework::MegatronCore, Framework::DeepSpeedPipe})
        for (const bool recompute : {false, true})
            for (int zero = 0; zero <= 3; ++zero) {
                Job job;
                job.framework = fw; // DeepSpeed adds its gradient buffer
                job.recompute = recompute;
                job.zeroStage = zero;
                job.sequenceLength = 512;
                for (const Profile& profile : {Profile{}, measured}) {
                    const CostModel costs(m, job, profile);
                    for (int tp : {1, 2, 4}) {
                        StagePeakScan scan(costs, "A100-40GB", tp, 3, 2.0);
                        for (int first = 0; first < L; ++first) {
                            scan.start(first);
                            for (int end = first + 1; end <= L; ++end) {
                                scan.extend();
                                QCOMPARE(scan.end(), end);
                                for (int inFlight : {1, 3}) {
                                    const double want = costs.stagePeak(first, end, "A100-40GB", tp, 3, 2.0, inFlight);
                                    QVERIFY2(scan.peak(inFlight) == want,
                                             qPrintable(QString("[%1, %2) tp %3 zero %4 recompute %5: %6 vs %7")
                                                            .arg(first).arg(end).arg(tp).arg(zero).arg(recompute)
                                                            .arg(scan.peak(inFlight), 0, 'g', 17).arg(want, 0, 'g', 17)));
                                    ++compared;
                                }
                            }
                        }
                    }
                }
            }
        QCOMPARE(compared, 2 * 2 * 4 * 2 * 3 * (8 * 9 / 2) * 2);
        // The measured bytes really are used: a one-layer range of block 1 differs between the two models.
        Job job;
        job.sequenceLength = 512;
        const CostModel plain(m, job, {}), withProfile(m, job, measured);
        StagePeakScan a(plain, "A100-40GB", 2, 1, 2.0), b(withProfile, "A100-40GB", 2, 1, 2.0);
        a.start(1);
        a.extend();
        b.start(1);
        b.extend();
        QVERIFY(a.peak(1) != b.peak(1));
    }
};

QTEST_GUILESS_MAIN(TestMemoryModel)
#include "tst_memory_model.moc"
