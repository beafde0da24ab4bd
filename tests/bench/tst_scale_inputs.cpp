// The scale benchmarks' generated inputs: a 1024-GPU cluster of eight device types and a 200-layer GPT,
// valid for the engine, the same call for other sizes, and loadable by hetplan-cli from the written files.
#include "testutil.h"

#include "scale_inputs.h"

#include "core/io/json_io.h"

#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <map>

using namespace hetplan;
using namespace hetplan::bench;

class TestScaleInputs : public QObject {
    Q_OBJECT
private slots:
    void defaultCluster();
    void otherSizes();
    void defaultModel();
    void modelNeedsRepeatableBlocks();
    void filesLoadInCli();
};

void TestScaleInputs::defaultCluster()
{
    const Cluster c = makeScaleCluster();
    QCOMPARE(c.name, std::string("scale-1024"));
    QCOMPARE(int(c.nodes.size()), 128);
    QCOMPARE(c.gpuCount(), 1024);
    std::map<std::string, int> nodesPerType;
    for (const Node& n : c.nodes) {
        QCOMPARE(n.gpus, 8);
        ++nodesPerType[n.deviceType];
        const bool fast = n.deviceType.rfind("A100", 0) == 0 || n.deviceType.rfind("H100", 0) == 0;
        QCOMPARE(n.nicBandwidth, fast ? 25e9 : 12.5e9);
    }
    QCOMPARE(int(nodesPerType.size()), 8);
    for (const auto& [type, count] : nodesPerType) {
        QVERIFY2(DeviceCatalog::builtin().find(type), type.c_str());
        QCOMPARE(count, 16);
    }
    c.validate(DeviceCatalog::builtin(), "scale-1024");
}

void TestScaleInputs::otherSizes()
{
    const Cluster big = makeScaleCluster(scaleClusterShape(4096));
    QCOMPARE(big.name, std::string("scale-4096"));
    QCOMPARE(int(big.nodes.size()), 512);
    QCOMPARE(big.gpuCount(), 4096);
    big.validate(DeviceCatalog::builtin(), "scale-4096");

    ScaleClusterShape small;
    small.nodesPerType = 2;
    small.gpusPerNode = 4;
    small.types.resize(3);
    const Cluster c = makeScaleCluster(small);
    QCOMPARE(int(c.nodes.size()), 6);
    QCOMPARE(c.gpuCount(), 24);
    QCOMPARE(c.nodes[2].deviceType, scaleNodeTypes()[1].device);

    const auto bad = test::errorOf([] { scaleClusterShape(1000); });
    QVERIFY(bad);
    QCOMPARE(bad->field(), std::string("gpus"));
    QVERIFY(test::errorOf([] { scaleClusterShape(0); }));
}

void TestScaleInputs::defaultModel()
{
    const ModelSpec m = makeScaleModel();
    QCOMPARE(m.name, std::string("gpt-200"));
    QCOMPARE(m.layerCount(), 200);
    QCOMPARE(m.blockCount(), 198);
    QVERIFY(m.layers.front().kind == LayerKind::Embedding);
    QVERIFY(m.layers.back().kind == LayerKind::Head);
    QCOMPARE(m.arch.layers, 198);
    QCOMPARE(m.arch.hidden, 4096);
    QCOMPARE(m.arch.heads, 32);
    QCOMPARE(m.arch.vocab, 50257);
    QCOMPARE(m.arch.sequence, 1024);
    // 12·h²·blocks + vocab·h = 12·4096²·198 + 50257·4096 (tied head: the vocabulary matrix counts once).
    // Biases, norms and 1024 learned positions add well under 0.1 %.
    const double expected = 39'862'665'216.0 + 205'852'672.0;
    QVERIFY2(std::abs(m.totalParams() / expected - 1) < 0.005, std::to_string(m.totalParams()).c_str());
    m.validate("gpt-200");

    const ModelSpec shallow = makeScaleModel({10, 1600, 25, 1024});
    QCOMPARE(shallow.layerCount(), 12);
    QCOMPARE(shallow.arch.sequence, 1024);
    QCOMPARE(shallow.arch.hidden, 1600);
}

void TestScaleInputs::modelNeedsRepeatableBlocks()
{
    QVERIFY(test::errorOf([] { makeScaleModel({0, 4096, 32, 2048}); }));  // no blocks
    QVERIFY(test::errorOf([] { makeScaleModel({10, 4096, 30, 2048}); })); // 30 heads do not divide 4096
    QVERIFY(test::errorOf([] { makeScaleModel({10, 4096, 32, 0}); }));
}

void TestScaleInputs::filesLoadInCli()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string sub = dir.path().toStdString() + "/inputs";
    const auto [clusterPath, modelPath] = writeScaleInputs(sub);
    QCOMPARE(clusterPath, sub + "/scale-1024.cluster.json");
    QCOMPARE(modelPath, sub + "/gpt-200.model.json");
    QVERIFY(readCluster(clusterPath) == makeScaleCluster());
    QVERIFY(readModel(modelPath) == makeScaleModel());
    const test::CliResult r =
        test::runCli({"plan", "--cluster", QString::fromStdString(clusterPath), "--model",
                      QString::fromStdString(modelPath), "--gbs", "1024", "--planner", "megatron"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY(r.out.contains("scale-1024"));
}

QTEST_GUILESS_MAIN(TestScaleInputs)
#include "tst_scale_inputs.moc"
