// Bundled examples: the clusters reproduce the papers' setups (expected tables typed in from the papers),
// the model builders give the published parameter counts and hand-computed per-layer sizes, and the
// "example:NAME" / path specs resolve or fail with a clear InputError.
#include "testutil.h"

#include "core/base/errors.h"
#include "core/io/examples.h"
#include "core/io/json_io.h"

#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <map>
#include <optional>
#include <set>

using namespace hetplan;
using hetplan::test::errorOf;

namespace {

// device type → (node count, GPUs per node); -1 GPUs per node if the nodes of that type differ.
using Shape = std::map<std::string, std::pair<int, int>>;

Shape shapeOf(const Cluster& c)
{
    Shape s;
    for (const Node& n : c.nodes) {
        auto [it, fresh] = s.emplace(n.deviceType, std::make_pair(0, n.gpus));
        it->second.first += 1;
        if (it->second.second != n.gpus)
            it->second.second = -1;
    }
    return s;
}

bool within(double value, double target, double fraction) { return std::fabs(value - target) <= fraction * target; }

const LayerSpec& block(const ModelSpec& m, int i) { return m.layers.at(i + 1); } // after the embedding

} // namespace

class TestExamples : public QObject {
    Q_OBJECT
private slots:
    // ------------------------------------------------------------ clusters

    void designNamesLoadAndValidate()
    {
        const std::vector<std::string> expected = {
            "ditto-ex1",       "ditto-ex2",     "ditto-ex3",     "ditto-ex4",     "ditto-ex5",      "amp-homogeneous",
            "amp-het-cluster", "poplar-a",      "poplar-b",      "poplar-c",      "hap-testbed",    "hethub-pair",
            "hethub-3types",   "amp-scale-2x2", "amp-scale-4x4", "amp-scale-8x8", "amp-scale-16x16"};
        const std::vector<std::string> names = exampleClusterNames();
        QVERIFY(std::is_sorted(names.begin(), names.end()));
        for (const std::string& n : expected) {
            QVERIFY2(std::find(names.begin(), names.end(), n) != names.end(), n.c_str());
            const Cluster c = exampleCluster(n);
            QCOMPARE(c.name, n);
            c.validate(DeviceCatalog::builtin(), n); // throws on any problem
            QVERIFY2(c.description.size() > 40, n.c_str());
            // Canvas layout: no two nodes on the same spot.
            std::set<std::pair<double, double>> spots;
            for (const Node& node : c.nodes)
                QVERIFY2(spots.insert({node.x, node.y}).second, n.c_str());
            QCOMPARE(loadCluster("example:" + n), c);
        }
    }

    void dittoFigure8()
    {
        // Ditto, figure 8: #nodes / #GPUs per node of each device type (blank cells = type absent).
        //            v100_16gb  rtx_3090_24gb  rtx_a6000  rtx_4090_24gb  a_100_80gb_pcie
        //   Ex1      2/2        2/2            -          -              -
        //   Ex2      2/2        2/2            2/2        -              -
        //   Ex3      4/2        3/2            2/2        2/2            -
        //   Ex4      2/4        2/4            2/4        -              -
        //   Ex5      4/2        4/2            -          -              2/2
        const std::map<int, Shape> expected = {
            {1, {{"V100-16GB", {2, 2}}, {"RTX-3090", {2, 2}}}},
            {2, {{"V100-16GB", {2, 2}}, {"RTX-3090", {2, 2}}, {"RTX-A6000", {2, 2}}}},
            {3, {{"V100-16GB", {4, 2}}, {"RTX-3090", {3, 2}}, {"RTX-A6000", {2, 2}}, {"RTX-4090", {2, 2}}}},
            {4, {{"V100-16GB", {2, 4}}, {"RTX-3090", {2, 4}}, {"RTX-A6000", {2, 4}}}},
            {5, {{"V100-16GB", {4, 2}}, {"RTX-3090", {4, 2}}, {"A100-80GB-PCIe", {2, 2}}}},
        };
        const std::map<int, int> gpus = {{1, 8}, {2, 12}, {3, 22}, {4, 24}, {5, 20}};
        for (const auto& [ex, shape] : expected) {
            const Cluster c = exampleCluster("ditto-ex" + std::to_string(ex));
            QVERIFY2(shapeOf(c) == shape, c.name.c_str());
            QCOMPARE(c.gpuCount(), gpus.at(ex));
        }
        // Ditto's own device names resolve to the catalog rows used above.
        QCOMPARE(DeviceCatalog::builtin().find("a_100_80gb_pcie")->name, std::string("A100-80GB-PCIe"));
    }

    void ampClusters()
    {
        // AMP sec. 4.3: 4 × g4dn.12xlarge (4 T4 each), 50 Gbps PCIe inside and 50 Gbps between nodes.
        const Cluster h = exampleCluster("amp-homogeneous");
        QVERIFY((shapeOf(h) == Shape{{"T4", {4, 4}}}));
        QCOMPARE(h.bandwidth(0, 1), 50e9 / 8);
        QCOMPARE(h.bandwidth(0, 4), 50e9 / 8);
        // 3 × p3.8xlarge (4 V100, ~170 Gbps NVLink) + 1 × g4dn.12xlarge (4 T4); 10 Gbps between nodes.
        const Cluster c = exampleCluster("amp-het-cluster");
        QVERIFY((shapeOf(c) == Shape{{"V100-16GB", {3, 4}}, {"T4", {1, 4}}}));
        const int v100 = *c.findGpu("p3-0/0"), v100b = *c.findGpu("p3-1/0"), t4 = *c.findGpu("g4dn-0/0");
        QCOMPARE(c.bandwidth(v100, v100 + 1), 170e9 / 8);
        QCOMPARE(c.bandwidth(v100, v100b), 10e9 / 8);
        QCOMPARE(c.bandwidth(v100, t4), 10e9 / 8);
        // AMP table 2: N nodes × N GPUs.
        for (int n : {2, 4, 8, 16}) {
            const Cluster s = exampleCluster("amp-scale-" + std::to_string(n) + "x" + std::to_string(n));
            QVERIFY((shapeOf(s) == Shape{{"T4", {n, n}}}));
            QCOMPARE(s.gpuCount(), n * n);
        }
    }

    void poplarTable1()
    {
        // Poplar table 1: A = 4 A100 80GB (NVLink) + 4 A100 40GB (PCIe); B = 2 V100 16GB + 2 T4 (PCIe);
        // C = 4 A800 80GB + 4 V100S 32GB (PCIe).
        const Cluster a = exampleCluster("poplar-a");
        QVERIFY((shapeOf(a) == Shape{{"A100-80GB", {1, 4}}, {"A100-40GB", {1, 4}}}));
        QCOMPARE(a.intraBandwidthOf(a.nodes[0]), 300e9); // NVLink 3 default of the catalog
        QCOMPARE(a.intraBandwidthOf(a.nodes[1]), 32e9);  // PCIe 4.0 x16
        const Cluster b = exampleCluster("poplar-b");
        QVERIFY((shapeOf(b) == Shape{{"V100-16GB", {1, 2}}, {"T4", {1, 2}}}));
        for (const Node& n : b.nodes)
            QCOMPARE(b.intraBandwidthOf(n), 16e9); // PCIe 3.0 x16 for both
        const Cluster c = exampleCluster("poplar-c");
        QVERIFY((shapeOf(c) == Shape{{"A800-80GB", {1, 4}}, {"V100S-32GB", {1, 4}}}));
        for (const Node& n : c.nodes)
            QVERIFY(c.intraBandwidthOf(n) <= 32e9);
    }

    void hapTestbed()
    {
        // HAP sec. 7.1: 2 machines × 8 V100 (NVLink) + 6 machines × 8 P100; 10.4 Gbps between machines.
        const Cluster c = exampleCluster("hap-testbed");
        QVERIFY((shapeOf(c) == Shape{{"V100-16GB", {2, 8}}, {"P100-16GB", {6, 8}}}));
        QCOMPARE(c.gpuCount(), 64);
        QCOMPARE(c.bandwidth(0, 8), 10.4e9 / 8); // v100-0/0 ↔ v100-1/0
        QCOMPARE(c.bandwidth(0, 63), 10.4e9 / 8);
        QCOMPARE(c.bandwidth(0, 1), 150e9); // NVLink 2.0 inside a V100 machine
    }

    void hethubPair()
    {
        // HetHub sec. 4: 8 + 8 accelerators of two vendors; inside a node each vendor's own library (the GPU
        // path), between the vendors the CPU path at the paper's measured 2.1 GB/s.
        const Cluster c = exampleCluster("hethub-pair");
        QCOMPARE(c.nodes.size(), size_t(2));
        QCOMPARE(c.nodes[0].gpus, 8);
        QCOMPARE(c.nodes[1].gpus, 8);
        std::set<std::string> vendors;
        for (const Node& n : c.nodes)
            vendors.insert(DeviceCatalog::builtin().find(n.deviceType)->vendor);
        QCOMPARE(vendors, (std::set<std::string>{"AMD", "NVIDIA"}));
        QCOMPARE(c.path(0, 8), Communicator::CpuEthernet);
        QCOMPARE(c.bandwidth(0, 8), 2.1e9);
        QCOMPARE(c.path(0, 1), Communicator::GpuRdma);
        QCOMPARE(c.cpuIntraBandwidth, 4.7e9);
    }

    void hethubThreeTypes()
    {
        // hethub-pair plus 32 V100s: NVIDIA ↔ NVIDIA over RDMA at the slower NIC (A100's 25 Gbps), anything
        // ↔ AMD over the CPU path (2.1 GB/s), V100 ↔ V100 at their 100 Gbps NICs.
        const Cluster c = exampleCluster("hethub-3types");
        QCOMPARE(c.gpuCount(), 48);
        QCOMPARE(shapeOf(c).size(), size_t(3));
        QCOMPARE(c.path(0, 16), Communicator::GpuRdma); // nv-0 ↔ v100-0
        QCOMPARE(c.bandwidth(0, 16), 25e9 / 8);
        QCOMPARE(c.path(8, 16), Communicator::CpuEthernet); // amd-0 ↔ v100-0
        QCOMPARE(c.bandwidth(8, 16), 2.1e9);
        QCOMPARE(c.bandwidth(16, 24), 100e9 / 8); // v100-0 ↔ v100-1
    }

    void specs()
    {
        auto e = errorOf([] { loadCluster("example:nope"); });
        QVERIFY(e);
        QCOMPARE(e->file(), std::string("example:nope"));
        QCOMPARE(e->field(), std::string("example"));
        QVERIFY(e->reason().find("unknown example 'nope'") != std::string::npos);
        QVERIFY(e->reason().find("ditto-ex1") != std::string::npos); // lists the known ones
        QVERIFY(errorOf([] { exampleCluster("nope"); }));

        e = errorOf([] { loadModel("example:gpt3"); });
        QVERIFY(e);
        QCOMPARE(e->field(), std::string("example"));
        QVERIFY(e->reason().find("llama2-7b") != std::string::npos);
        QVERIFY(errorOf([] { buildExampleModel("gpt3"); }));
        QVERIFY(errorOf([] { loadModel("example:gpt2-xl", -1); }));

        // Missing file: InputError naming the path.
        e = errorOf([] { loadCluster("/nonexistent/cluster.json"); });
        QVERIFY(e);
        QCOMPARE(e->file(), std::string("/nonexistent/cluster.json"));

        // Paths go through the file readers.
        QTemporaryDir dir;
        const std::string cpath = dir.filePath("c.json").toStdString();
        const Cluster c = exampleCluster("poplar-b");
        writeJsonFile(cpath, toJson(c));
        QCOMPARE(loadCluster(cpath), c);
        const std::string mpath = dir.filePath("m.json").toStdString();
        const ModelSpec m = buildExampleModel("bert-base");
        writeJsonFile(mpath, toJson(m));
        QCOMPARE(loadModel(mpath), m);
        QCOMPARE(loadModel("example:bert-base", 128), buildExampleModel("bert-base", 128));
    }

    // ------------------------------------------------------------ models

    void allModelsValidate()
    {
        const std::vector<std::string> names = exampleModelNames();
        const std::vector<std::string> design = {"gpt2-amp",  "gpt2-xl",    "transgan-amp", "llama2-7b", "llama2-13b",
                                                 "bert-base", "bert-hap",   "vit-base",     "vgg19",     "vgg19-cifar",
                                                 "bert-moe",  "llama-0.5b", "llama-1.1b",   "opt-350m",  "gpt-neo-2.7b",
                                                 "llama3-8b", "opt-30b",    "mixtral-8x7b"};
        QCOMPARE(names, design);
        for (const std::string& n : names) {
            const ModelSpec m = buildExampleModel(n);
            QCOMPARE(m.name, n);
            m.validate(n);
            QVERIFY2(m.arch.sequence > 0, n.c_str());
            for (size_t i = 0; i < m.layers.size(); ++i) {
                const LayerSpec& l = m.layers[i];
                const QByteArray where = QByteArray::fromStdString(n + " " + l.name);
                if (i + 1 < m.layers.size())
                    QVERIFY2(l.outputBytes > 0, where);
                if (l.kind == LayerKind::Transformer || l.kind == LayerKind::MoE) {
                    QVERIFY2(l.params > 0 && l.forwardFlops > 0, where);
                    QVERIFY2(l.activationBytesSharded > 0 && l.activationBytesReplicated > 0, where);
                    QVERIFY2(l.tpAllReduceBytes > 0 && l.weightBytesMoved == 2 * l.params, where);
                }
                QVERIFY2((l.kind == LayerKind::MoE) == (l.expertAllToAllBytes > 0), where);
            }
            // Names are unique within a model.
            std::set<std::string> seen;
            for (const LayerSpec& l : m.layers)
                QVERIFY2(seen.insert(l.name).second, l.name.c_str());
        }
    }

    void parameterCounts_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<double>("published");
        QTest::addColumn<double>("handCount");
        // gpt2-xl: wte 50257·1600 + wpe 1024·1600 + 48·(12·1600² + 13·1600) + ln_f 2·1600, tied head.
        QTest::newRow("gpt2-xl") << "gpt2-xl" << 1.558e9 << 1557611200.0;
        // llama2-7b: 32·(4·4096² + 3·4096·11008 + 2·4096) + 2·32000·4096 + 4096.
        QTest::newRow("llama2-7b") << "llama2-7b" << 6.74e9 << 6738415616.0;
        // llama2-13b: 40·(4·5120² + 3·5120·13824 + 2·5120) + 2·32000·5120 + 5120.
        QTest::newRow("llama2-13b") << "llama2-13b" << 13.0e9 << 13015864320.0;
        // bert-base: embeddings 23,837,184 + 12 × 7,087,872 + pooler/MLM head 1,213,242.
        QTest::newRow("bert-base") << "bert-base" << 110e6 << 110104890.0;
        // opt-350m: 50272·512 + 2050·1024 + 512·1024 (in) + 24 × 12,596,224 + 1024·512 (out).
        QTest::newRow("opt-350m") << "opt-350m" << 331e6 << 331196416.0;
        // vgg19 (torchvision): 143,667,240.
        QTest::newRow("vgg19") << "vgg19" << 143.7e6 << 143667240.0;
        // bert-hap: embeddings (33278 + 512 + 2 + 2)·768 = 25,953,792 + 8 × 7,087,872 + head (pooler and
        // transform 2 × 590,592, norm 1,536, decoder bias 33,278) 1,215,998. HAP's own (untied) is 102 Mi.
        QTest::newRow("bert-hap") << "bert-hap" << 83.9e6 << 83872766.0;
        // vgg19-cifar: the same less 990 classes (4096·990 + 990); HAP's Table 1 says 133 "M" = 133·2^20.
        QTest::newRow("vgg19-cifar") << "vgg19-cifar" << 133 * 1048576.0 << 139611210.0;
        // vit-base: patch conv 590,592 + cls 768 + pos 197·768 + 12 × 7,087,872 + norm 1,536 + 769,000.
        QTest::newRow("vit-base") << "vit-base" << 86e6 << 86567656.0;
        // TinyLlama: 22·(2·2048² + 2·2048·256 + 3·2048·5632 + 2·2048) + 2·32000·2048 + 2048.
        QTest::newRow("llama-1.1b") << "llama-1.1b" << 1.1e9 << 1100048384.0;
        // Qwen2-0.5B shape: 24 × 14,912,384 + 151936·896 (tied) + 896.
        QTest::newRow("llama-0.5b") << "llama-0.5b" << 0.494e9 << 494032768.0;
        // gpt2-amp: 52256·1024 + 1024·1024 + 24 × 12,596,224 + 2·1024.
        QTest::newRow("gpt2-amp") << "gpt2-amp" << 356.9e6 << 356870144.0;
        // bert-moe: bert-base with blocks 1,3,..,11 holding 8 experts of 4,722,432 + router 6,144.
        QTest::newRow("bert-moe") << "bert-moe" << 308.5e6 << 308483898.0;
        // gpt-neo-2.7b: wte 50257·2560 + wpe 2048·2560 + 32·(12·2560² + 13·2560) + ln_f 2·2560 (our blocks
        // count Q/K/V biases, which the reference implementation leaves out: 32·3·2560 = 245,760 more).
        QTest::newRow("gpt-neo-2.7b") << "gpt-neo-2.7b" << 2.7e9 << 2651553280.0;
        // llama3-8b: 32·(2·4096² + 2·4096·1024 + 3·4096·14336 + 2·4096) + 2·128256·4096 + 4096.
        QTest::newRow("llama3-8b") << "llama3-8b" << 8.03e9 << 8030261248.0;
        // opt-30b: 50272·7168 + 2050·7168 + 48·(12·7168² + 13·7168) + 2·7168.
        QTest::newRow("opt-30b") << "opt-30b" << 30e9 << 29974540288.0;
        // mixtral-8x7b: 32·(2·4096² + 2·4096·1024 + 8·3·4096·14336 + 8·4096 router + 2·4096) + 2·32000·4096
        // + 4096: Mistral AI's 46,702,792,704.
        QTest::newRow("mixtral-8x7b") << "mixtral-8x7b" << 46.7e9 << 46702792704.0;
    }

    void parameterCounts()
    {
        QFETCH(QString, model);
        QFETCH(double, published);
        QFETCH(double, handCount);
        const double p = buildExampleModel(model.toStdString()).totalParams();
        QVERIFY2(within(p, published, 0.03), qPrintable(QString::number(p, 'f', 0)));
        QCOMPARE(p, handCount);
    }

    void gpt2AmpBlockHandComputed()
    {
        const ModelSpec m = buildExampleModel("gpt2-amp");
        QCOMPARE(m.blockCount(), 24);
        QCOMPARE(m.layerCount(), 26); // embedding + 24 blocks + head
        QVERIFY2(m.layers.front().kind == LayerKind::Embedding, toString(m.layers.front().kind).c_str());
        QVERIFY2(m.layers.back().kind == LayerKind::Head, toString(m.layers.back().kind).c_str());
        const LayerSpec& b = block(m, 0);
        const double M = 1 << 20; // s·h = 1024·1024
        // 2 · 12h² · s + 4 · s² · h = 24·2^30 + 4·2^30
        QCOMPARE(b.forwardFlops, 28.0 * (1 << 30));
        // Korthikanti: sharded 24·s·h + 5·a·s² = (24 + 5·16)·2^20, replicated 10·s·h
        QCOMPARE(b.activationBytesSharded, 104 * M);
        QCOMPARE(b.activationBytesReplicated, 10 * M);
        QCOMPARE(b.outputBytes, 2 * M);
        QCOMPARE(b.inputBytes, 2 * M);
        QCOMPARE(b.tpAllReduceBytes, 4 * M); // two all-reduces of s·h·2 bytes
        QCOMPARE(b.params, 12596224.0);
        QVERIFY(b.tensorParallel);
    }

    void sequenceOverride()
    {
        const ModelSpec m = buildExampleModel("gpt2-amp", 512);
        QCOMPARE(m.arch.sequence, 512);
        // 2·12h²·512 + 4·512²·1024 = 12·2^30 + 2^30
        QCOMPARE(block(m, 0).forwardFlops, 13.0 * (1 << 30));
        QCOMPARE(block(m, 0).activationBytesSharded, 24.0 * 512 * 1024 + 5.0 * 16 * 512 * 512);
        // Same weights; a longer sequence grows the learned position table (1024 → 2048 rows).
        QCOMPARE(m.totalParams(), buildExampleModel("gpt2-amp").totalParams());
        QCOMPARE(buildExampleModel("gpt2-amp", 2048).totalParams() - m.totalParams(), 1024.0 * 1024);
        // Rotary models keep their parameters at any length.
        QCOMPARE(buildExampleModel("llama2-7b", 1024).totalParams(), 6738415616.0);
        QCOMPARE(buildExampleModel("vit-base", 50).arch.sequence, 50);
        QCOMPARE(buildExampleModel("vgg19", 4096), buildExampleModel("vgg19")); // images: ignored
    }

    void optAndGptNeoBlocksKeepWhatTheirTrainingKeeps()
    {
        // OPT-350m at s 2048, h 1024, a 16, ReLU ffn 4096, attention dropout 0: Q, K, V, out 4 × 2·s·h, the softmax
        // output alone 2·a·s² (no dropout mask or dropout output), ReLU's output alone 2·s·ffn;
        // 16,777,216 + 134,217,728 + 16,777,216 = 167,772,160 bytes at 16-bit (fp32 jobs double it).
        const double s = 2048, h = 1024, a = 16, f = 4096;
        const LayerSpec& o = block(buildExampleModel("opt-350m"), 0);
        QCOMPARE(o.activationBytesSharded, 8 * s * h + 2 * a * s * s + 2 * s * f);
        QCOMPARE(o.activationBytesSharded, 167772160.0);
        QCOMPARE(o.activationBytesReplicated, 10 * s * h);
        // The score passes: scale + mask (2) and softmax (2), no dropout's 2.5.
        QCOMPARE(o.attentionScoreBytes, 2 * 4.0 * a * s * s);
        // The same shape as a GPT-2 block keeps Korthikanti's 5·a·s² and both GeLU tensors: 385,875,968 bytes.
        const LayerSpec& g = block(buildGptModel("g", 1, 1024, 16, 2048), 0);
        QCOMPARE(g.activationBytesSharded, 8 * s * h + 5 * a * s * s + 4 * s * f);
        QCOMPARE(g.attentionScoreBytes, 2 * 6.5 * a * s * s);
        // GPT-Neo-2.7B (h 2560, a 20, GeLU ffn 10240): no attention dropout, both GeLU tensors.
        const double hn = 2560, an = 20, fn = 10240;
        QCOMPARE(block(buildExampleModel("gpt-neo-2.7b"), 0).activationBytesSharded,
                 8 * s * hn + 2 * an * s * s + 4 * s * fn);
    }

    void llamaBlockUsesFlashAttention()
    {
        // llama2-7b at s 4096: Q,K,V,out 4 × 2·s·h + fp32 LSE 4·a·s + SwiGLU 3 × 2·s·ffn.
        const LayerSpec& b = block(buildExampleModel("llama2-7b"), 0);
        const double s = 4096, h = 4096, a = 32, f = 11008;
        QCOMPARE(b.activationBytesSharded, 8 * s * h + 4 * a * s + 6 * s * f);
        QCOMPARE(b.activationBytesReplicated, 10 * s * h);
        // 2·(4h² + 3hf)·s + 4s²h
        QCOMPARE(b.forwardFlops, 2 * (4 * h * h + 3 * h * f) * s + 4 * s * s * h);
        // GQA in TinyLlama: K and V are h·4/32 = 256 wide.
        const LayerSpec& t = block(buildExampleModel("llama-1.1b"), 0);
        QCOMPARE(t.params, 2 * 2048.0 * 2048 + 2 * 2048.0 * 256 + 3 * 2048.0 * 5632 + 2 * 2048);
    }

    void flopsPerTokenAreTwiceTheParameters()
    {
        // gpt2-xl by hand, per token: blocks 2·12h²·48 + tied head 2·V·h + attention 4·s·h·48 + the
        // embedding's position add h = 2,949,120,000 + 160,822,400 + 314,572,800 + 1,600.
        const ModelSpec xl = buildExampleModel("gpt2-xl");
        QCOMPARE(xl.totalForwardFlops() / 1024, 3424516800.0);
        // Every dense language model: FLOP/token = 2·(weights used in products) + attention 4·s·h per
        // block. The weights in products lie between params − embedding layer (untied head: the lookup
        // tables are never multiplied) and all params (tied head: the table is the output projection).
        // Bound: inside that bracket, widened by 1 % for norms, biases and element-wise adds.
        for (const char* n : {"gpt2-amp", "gpt2-xl", "llama2-7b", "llama2-13b", "bert-base", "llama-0.5b", "llama-1.1b",
                              "opt-350m", "vit-base"}) {
            const ModelSpec m = buildExampleModel(n);
            const double s = m.arch.sequence, h = m.arch.hidden, L = m.blockCount();
            const double perToken = m.totalForwardFlops() / s;
            const double attention = 4 * s * h * L;
            const double low = 2 * (m.totalParams() - m.layers.front().params) + attention;
            const double high = 2 * m.totalParams() + attention;
            QVERIFY2(perToken >= 0.99 * low && perToken <= 1.01 * high,
                     qPrintable(QString("%1: %2 not in [%3, %4]").arg(n).arg(perToken).arg(low).arg(high)));
        }
        // Untied llama2-7b sits at the low end: 2·(6,738,415,616 − 131,072,000) + 4·4096·4096·32.
        QVERIFY(within(buildExampleModel("llama2-7b").totalForwardFlops() / 4096,
                       2 * (6738415616.0 - 131072000.0) + 4 * 4096.0 * 4096 * 32, 0.001));
        // MoE: a top-2 block does one more expert MLP per token than a dense block, plus the router.
        const ModelSpec moe = buildExampleModel("bert-moe"), dense = buildExampleModel("bert-base");
        const double s = 512, h = 768, f = 3072;
        QCOMPARE(block(moe, 1).forwardFlops - block(dense, 1).forwardFlops, 2 * (2 * h * f) * s + 2 * h * 8 * s);
        QCOMPARE(block(moe, 0).forwardFlops, block(dense, 0).forwardFlops);
    }

    void bertMoe()
    {
        const ModelSpec m = buildExampleModel("bert-moe");
        QCOMPARE(m.arch.experts, 8);
        QCOMPARE(m.blockCount(), 12);
        int moe = 0;
        for (int i = 0; i < 12; ++i)
            if (block(m, i).kind == LayerKind::MoE) {
                QCOMPARE(i % 2, 1); // every second block
                ++moe;
                // dispatch + combine of 2 expert copies of s·h fp16 values: 2·2·2·512·768
                QCOMPARE(block(m, i).expertAllToAllBytes, 8.0 * 512 * 768);
            }
        QCOMPARE(moe, 6);
    }

    void transganMatchesAmpLayerList()
    {
        // AMP: 56 layers, transformer layers 4-15 and 42-53 (1-based); its known-cost array has the same
        // 56 entries with exactly those heavy.
        const ModelSpec m = buildExampleModel("transgan-amp");
        QCOMPARE(m.layerCount(), 56);
        QCOMPARE(m.blockCount(), 24);
        for (int i = 0; i < 56; ++i) {
            const bool isBlock = (i >= 3 && i <= 14) || (i >= 41 && i <= 52);
            QCOMPARE(m.layers[i].kind == LayerKind::Transformer, isBlock);
        }
        QCOMPARE(m.layers[3].params, 12596224.0);            // hidden 1024 block
        QCOMPARE(m.layers[41].params, 12.0 * 256 + 13 * 16); // hidden 16 block
        // Both groups do comparable work per sample (2.07 vs 1.87 GFLOP): the first one 81 tokens × 1024,
        // the second 82944 tokens × 16 with 16×16-window attention.
        QVERIFY(within(m.layers[3].forwardFlops, 2.07e9, 0.01));
        QVERIFY(within(m.layers[41].forwardFlops, 1.87e9, 0.01));
    }

    void vgg19Layers()
    {
        const ModelSpec m = buildExampleModel("vgg19");
        QCOMPARE(m.layerCount(), 19);
        int conv = 0;
        for (const LayerSpec& l : m.layers)
            conv += l.kind == LayerKind::Conv;
        QCOMPARE(conv, 16);
        // conv1: 3→64 at 224²: 2·9·3·64·224² FLOP; conv16 output after the last pool: 512·7·7 values.
        QCOMPARE(m.layers[0].forwardFlops, 2.0 * 9 * 3 * 64 * 224 * 224);
        QCOMPARE(m.layers[15].outputBytes, 2.0 * 512 * 7 * 7);
        QCOMPARE(m.layers[16].params, 25088.0 * 4096 + 4096);
    }
};

QTEST_GUILESS_MAIN(TestExamples)
#include "tst_examples.moc"
