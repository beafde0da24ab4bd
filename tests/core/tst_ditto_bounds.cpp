// Ditto's and Oobleck's work is sized before it is done and bounded by the time limit: the stage-cost
// memory table and the template search are refused (exit 2, naming max_states) before either is built, a
// wide recovery beam stops at the limit, and the memory table built in O(1) per layer range is the one
// stagePeakMemory defines. CPU time is the child's (getrusage), never wall time.
#include "example_request.h"
#include "testutil.h"

#include "core/cost/costmodel.h"
#include "core/cost/memory.h"
#include "core/io/json_io.h"
#include "core/planners/common/stage_costs.h"
#include "core/planners/planner.h"

#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

#include <sys/resource.h>

using namespace hetplan;
using namespace hetplan::test;

namespace {

// gpt2-amp with its one transformer block repeated to `blocks` blocks (embedding, blocks, head).
ModelSpec deepModel(int blocks)
{
    ModelSpec m = buildExampleModel("gpt2-amp");
    std::vector<LayerSpec> layers{m.layers.front()};
    for (int b = 0; b < blocks; ++b) {
        layers.push_back(m.layers[1]);
        layers.back().name = "block" + std::to_string(b);
    }
    layers.push_back(m.layers.back());
    m.layers = layers;
    m.arch.layers = blocks;
    m.name = "gpt2-deep";
    return m;
}

// CPU seconds (user + system) of the children reaped so far.
double childCpuSeconds()
{
    rusage u{};
    getrusage(RUSAGE_CHILDREN, &u);
    return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

struct TimedRun {
    CliResult result;
    double cpuSeconds = 0;
};
TimedRun timedCli(const QStringList& args, int timeoutMs)
{
    const double before = childCpuSeconds();
    TimedRun r{runCli(args, timeoutMs, 4ull << 30), 0};
    r.cpuSeconds = childCpuSeconds() - before;
    return r;
}

} // namespace

class TestDittoBounds : public QObject {
    Q_OBJECT
    QTemporaryDir dir;

private slots:
    void initTestCase() { QVERIFY(dir.isValid()); }

    void memoryEntriesAreShapesTimesLayerRanges()
    {
        // One type, stages of up to 4 GPUs, micro-batch 2 (dp must divide it; the toy model allows any tp):
        // (tp, dp) = (1, 1) on 1 GPU; (1, 2), (2, 1) on 2; (3, 1) on 3; (2, 2), (4, 1) on 4. Six shapes of
        // (L + 1)^2 entries each, known before the table is built.
        const ModelSpec m = toyModel(6);
        Job job;
        const CostModel costs(m, job, {});
        const StageCosts sc(costs, job, {"A100-40GB"}, {4}, 2, 4, {}, nullptr, StageCosts::Memory::Defer);
        QCOMPARE(sc.memoryEntries(), 6.0 * 7 * 7);
    }

    void memoryTableIsStagePeakMemory_data()
    {
        QTest::addColumn<bool>("recompute");
        QTest::addColumn<int>("zero");
        QTest::newRow("plain") << false << 0;
        QTest::newRow("recompute, zero-1") << true << 1;
    }
    void memoryTableIsStagePeakMemory()
    {
        // On one GPU (tp 1, dp 1, the only shape) a range [u, v) fits with k micro-batches in flight exactly
        // when stagePeakMemory of that range and k fits the node (fitsMemory with the template's groups).
        // gpt2-xl on a 16 GB V100 with gbs 64: some ranges fit with every k, some with a few, some not at all.
        QFETCH(bool, recompute);
        QFETCH(int, zero);
        const ModelSpec m = buildExampleModel("gpt2-xl");
        Job job;
        job.recompute = recompute;
        job.zeroStage = zero;
        job.sequenceLength = 1024;
        const int microBatches = 8;
        const CostModel costs(m, job, {});
        const StageCosts sc(costs, job, {"V100-16GB"}, {1}, 1, microBatches);
        Node node;
        node.deviceType = "V100-16GB";
        const DeviceType& device = costs.device("V100-16GB");
        const int L = m.layerCount();
        int fitAll = 0, fitSome = 0, fitNone = 0;
        for (int u = 0; u < L; ++u)
            for (int v = u + 1; v <= L; ++v) {
                const bool whole = u == 0 && v == L;
                const RankGroups groups =
                    RankGroups::pipelineStage(1, 2, whole ? 1 : 3, whole ? 0 : -1, m.arch.tiedEmbeddings);
                int most = 0;
                for (int k = 1; k <= microBatches; ++k)
                    if (fitsMemory(stagePeakMemory(m, u, v, 1, 1, 1.0, k, job), node, device, job, groups))
                        most = k;
                for (int k = 1; k <= microBatches; ++k)
                    QVERIFY2(sc.best(0, 1, u, v, k).ok() == (k <= most),
                             qPrintable(QString("[%1, %2) with %3 in flight").arg(u).arg(v).arg(k)));
                (most == microBatches ? fitAll : most > 0 ? fitSome : fitNone)++;
            }
        qInfo("ranges fitting every k: %d, some: %d, none: %d", fitAll, fitSome, fitNone);
        QVERIFY(fitAll > 0 && fitSome > 0 && fitNone > 0);
    }

    void deepModelsAreRefusedBeforeTheTablesAreBuilt_data()
    {
        QTest::addColumn<QString>("planner");
        QTest::addColumn<QString>("cluster");
        QTest::addColumn<int>("blocks");
        // The old code filled the stage-cost table before refusing: 11 s of CPU for 1,002 layers, 40 s for
        // 2,002 (oobleck 10 s); the greedy's template search fits max_states, so it built the table for minutes.
        QTest::newRow("ditto 1002 layers") << "ditto"
                                           << "example:ditto-ex4" << 1000;
        QTest::newRow("ditto 2002 layers") << "ditto"
                                           << "example:ditto-ex4" << 2000;
        QTest::newRow("ditto greedy 2002 layers") << "ditto --option recovery=greedy"
                                                  << "example:ditto-ex4" << 2000;
        QTest::newRow("oobleck 2002 layers") << "oobleck"
                                             << "example:amp-scale-16x16" << 2000;
    }
    void deepModelsAreRefusedBeforeTheTablesAreBuilt()
    {
        QFETCH(QString, planner);
        QFETCH(QString, cluster);
        QFETCH(int, blocks);
        const QString model = dir.filePath(QString("deep%1.json").arg(blocks));
        if (!QFile::exists(model))
            writeJsonFile(model.toStdString(), toJson(deepModel(blocks)));
        const TimedRun r =
            timedCli(QStringList{"plan", "--cluster", cluster, "--model", model, "--gbs", "1024", "--planner"} +
                         planner.split(' ') + QStringList{"--quiet"},
                     120000);
        qInfo("exit %d after %.2f s CPU", r.result.exitCode, r.cpuSeconds);
        QVERIFY2(r.result.exitCode == 2, qPrintable(QString("exit %1: %2").arg(r.result.exitCode).arg(r.result.err)));
        QVERIFY2(r.result.err.contains("states") && r.result.err.contains("max_states"), qPrintable(r.result.err));
        // Reading the model and sizing the tables: well under a second.
        QVERIFY2(r.cpuSeconds < 3, qPrintable(QString("%1 s of CPU before refusing").arg(r.cpuSeconds)));
    }

    void wideBeamStopsAtTheTimeLimit()
    {
        // beam=4096 on a 64-GPU mixed cluster took 7 s of CPU whatever the limit: the recovery did not poll.
        // With a 1 s limit the run ends within 1.1 · 1 + 0.5 s of CPU, stopped by the limit.
        const QString out = dir.filePath("beam.json");
        const double limit = 1;
        const QString cluster = QString::fromStdString(sourceDir()) + "/docs/examples/a100-v100-64.json";
        const TimedRun r =
            timedCli({"plan", "--cluster", cluster, "--model", "example:gpt2-xl", "--gbs", "1024", "--planner", "ditto",
                      "--option", "beam=4096", "--time-limit", QString::number(limit), "--quiet", "--out", out},
                     120000);
        qInfo("exit %d after %.2f s CPU", r.result.exitCode, r.cpuSeconds);
        QVERIFY2(r.result.exitCode == 0 || r.result.exitCode == 4,
                 qPrintable(QString("exit %1: %2").arg(r.result.exitCode).arg(r.result.err)));
        if (r.result.exitCode == 0)
            QCOMPARE(readJsonFile(out.toStdString())["search"].toObject()["stopped"].toString(), QString("time-limit"));
        else
            QVERIFY2(r.result.err.contains("time limit"), qPrintable(r.result.err));
        QVERIFY2(r.cpuSeconds <= 1.1 * limit + 0.5, qPrintable(QString("%1 s of CPU").arg(r.cpuSeconds)));
    }

    void generousLimitLeavesThePlanUnchanged()
    {
        // The polls only read the clock: with a limit never reached the plan is the one without a limit.
        PlanRequest req = exampleRequest("ditto-ex1", "gpt2-xl", 64);
        req.options["beam"] = "256";
        Progress free;
        const Plan unlimited = runPlanner("ditto", req, free);
        req.timeLimitSeconds = 600;
        Progress limited({}, req.timeLimitSeconds);
        const Plan plan = runPlanner("ditto", req, limited);
        QCOMPARE(int(plan.search.stopped), int(StopReason::None));
        QCOMPARE(*plan.plannerEstimate, *unlimited.plannerEstimate);
        QCOMPARE(plan.pipelines.size(), unlimited.pipelines.size());
        for (size_t p = 0; p < plan.pipelines.size(); ++p) {
            QCOMPARE(plan.pipelines[p].stages.size(), unlimited.pipelines[p].stages.size());
            for (size_t s = 0; s < plan.pipelines[p].stages.size(); ++s) {
                const Stage &a = plan.pipelines[p].stages[s], &b = unlimited.pipelines[p].stages[s];
                QCOMPARE(a.firstLayer, b.firstLayer);
                QCOMPARE(a.endLayer, b.endLayer);
                QCOMPARE(a.gpus, b.gpus);
                QCOMPARE(a.tensorParallel, b.tensorParallel);
                QCOMPARE(a.dataParallel, b.dataParallel);
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestDittoBounds)
#include "tst_ditto_bounds.moc"
