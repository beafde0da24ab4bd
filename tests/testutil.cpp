#include "testutil.h"

#include <QProcess>

namespace hetplan::test {

std::string fixture(const std::string& rel) { return std::string(HETPLAN_FIXTURES) + "/" + rel; }
std::string sourceDir() { return HETPLAN_SOURCE_DIR; }

CliResult runCli(const QStringList& args)
{
    QProcess p;
    p.start(QStringLiteral(HETPLAN_CLI), args);
    CliResult r;
    if (!p.waitForFinished(30000)) {
        p.kill();
        p.waitForFinished();
        r.err = QStringLiteral("timeout");
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

Cluster twoNodeCluster(const std::string& typeA, int gpusA, const std::string& typeB, int gpusB,
                       double nicBandwidth)
{
    Cluster c;
    c.name = "two-node";
    Node a;
    a.name = "a";
    a.deviceType = typeA;
    a.gpus = gpusA;
    a.nicBandwidth = nicBandwidth;
    Node b = a;
    b.name = "b";
    b.deviceType = typeB;
    b.gpus = gpusB;
    c.nodes = {a, b};
    return c;
}

ModelSpec toyModel(int layers, double flopsPerLayer, double paramsPerLayer, double outputBytes)
{
    ModelSpec m;
    m.name = "toy";
    m.arch.family = "custom";
    m.arch.layers = layers;
    m.arch.sequence = 1;
    for (int i = 0; i < layers; ++i) {
        LayerSpec l;
        l.name = "layer" + std::to_string(i);
        l.kind = LayerKind::Linear;
        l.params = paramsPerLayer;
        l.forwardFlops = flopsPerLayer;
        l.outputBytes = outputBytes;
        l.inputBytes = outputBytes;
        l.activationBytesSharded = 4 * outputBytes;
        l.activationBytesReplicated = outputBytes;
        l.weightBytesMoved = 2 * paramsPerLayer;
        m.layers.push_back(l);
    }
    return m;
}

} // namespace hetplan::test
