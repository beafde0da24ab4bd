#include "testutil.h"

#include "core/cost/costmodel.h"
#include "core/cost/memory.h"

#include <QProcess>
#include <QTest>

#include <algorithm>
#include <set>

#include <sys/resource.h>

namespace hetplan::test {

std::string fixture(const std::string& rel) { return std::string(HETPLAN_FIXTURES) + "/" + rel; }
std::string sourceDir() { return HETPLAN_SOURCE_DIR; }

CliResult runCli(const QStringList& args, int timeoutMs, unsigned long long memoryCapBytes)
{
    QProcess p;
    if (memoryCapBytes)
        p.setChildProcessModifier([memoryCapBytes] {
            const rlimit cap{rlim_t(memoryCapBytes), rlim_t(memoryCapBytes)};
            ::setrlimit(RLIMIT_AS, &cap);
        });
    // Reaped children's CPU time accumulates in RUSAGE_CHILDREN: the difference across this run is the
    // child's (tests start one child at a time).
    const auto childCpu = [] {
        rusage u{};
        ::getrusage(RUSAGE_CHILDREN, &u);
        return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + 1e-6 * double(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
    };
    const double cpuBefore = childCpu();
    p.start(QStringLiteral(HETPLAN_CLI), args);
    CliResult r;
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        r.err = QStringLiteral("timeout");
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.cpuSeconds = childCpu() - cpuBefore;
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

Cluster twoNodeCluster(const std::string& typeA, int gpusA, const std::string& typeB, int gpusB, double nicBandwidth)
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

void checkPipelineInvariants(const Plan& plan, const CostModel* costsForMemory, bool allGpusUsed)
{
    int samples = 0;
    for (const Pipeline& pl : plan.pipelines) {
        // Every layer exactly once, in order, no empty stage.
        int next = 0;
        for (const Stage& st : pl.stages) {
            QCOMPARE(st.firstLayer, next);
            QVERIFY(st.endLayer > st.firstLayer);
            next = st.endLayer;
            QCOMPARE(int(st.gpus.size()), pl.replicas * st.tensorParallel * st.dataParallel);
        }
        QCOMPARE(next, plan.model.layerCount());
        samples += pl.samples();
    }
    // The pipelines' batches add up to the global batch.
    QCOMPARE(samples, plan.job.globalBatchSize);

    // No GPU double-booked (and, if asked, none left idle).
    std::set<int> seen;
    for (int g : plan.usedGpus())
        QVERIFY(seen.insert(g).second);
    if (allGpusUsed)
        QCOMPARE(int(seen.size()), plan.cluster.gpuCount());

    if (!costsForMemory)
        return;
    // Memory fits on every GPU of every stage.
    for (const Pipeline& pl : plan.pipelines) {
        const int S = int(pl.stages.size());
        for (int s = 0; s < S; ++s) {
            const Stage& st = pl.stages[s];
            // A stage's data-parallel GPUs split its micro-batch (and, under ZeRO, its states), as in the frameworks.
            const int shards = plan.job.zeroStage > 0 ? pl.replicas * st.dataParallel : 1;
            const double microBatch = double(pl.microBatchSize) / st.dataParallel;
            const int inFlight =
                plan.job.schedule == Schedule::GPipe ? pl.microBatches : std::min(S - s, pl.microBatches);
            // Its communicators: tp, the data-parallel group of every copy of its first layer, the pipeline.
            int copies = 0;
            for (const Pipeline& q : plan.pipelines)
                for (const Stage& qs : q.stages)
                    if (qs.firstLayer <= st.firstLayer && st.firstLayer < qs.endLayer)
                        copies += q.replicas * qs.dataParallel;
            const RankGroups groups =
                RankGroups::pipelineStage(st.tensorParallel, copies, S, s, plan.model.arch.tiedEmbeddings);
            for (int g : st.gpus) {
                const Node& node = plan.cluster.nodeOf(g);
                const double peak = costsForMemory->stagePeak(st.firstLayer, st.endLayer, node.deviceType,
                                                              st.tensorParallel, shards, microBatch, inFlight);
                QVERIFY(fitsMemory(peak, node, costsForMemory->device(node.deviceType), plan.job, groups));
            }
        }
    }
}

} // namespace hetplan::test
