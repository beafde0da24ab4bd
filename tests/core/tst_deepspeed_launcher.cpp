// The DeepSpeed launcher module (format deepspeed-launcher): the topology arithmetic of DeepSpeed's
// PipeModelDataParallelTopology (axes pipe, data, model; the last axis fastest) against the plan's rank
// table in C++, then the generated Python run with python3 against a stand-in `deepspeed` package that does
// the same arithmetic and calls _partition_layers the way PipelineModule's constructor does (DeepSpeed
// itself is not installed here).
#include "exporter_fixtures.h"

#include "core/io/exporters.h"

#include <QDir>
#include <QFileInfo>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace hetplan;
using namespace hetplan::exporttest;

namespace {

// DeepSpeed's ProcessTopology for axes [pipe, data, model]: row-major, so rank = (pipe·dp + data)·tp + model.
struct Coord {
    int pipe, data, model;
};
Coord coordOf(int rank, int dp, int tp) { return {rank / (dp * tp), rank / tp % dp, rank % tp}; }

// The GPUs of stage s over all pipelines, in the plan's order (replica, data-parallel rank, tp rank).
std::vector<int> stageGpus(const Plan& p, int s)
{
    std::vector<int> out;
    for (const Pipeline& pl : p.pipelines)
        out.insert(out.end(), pl.stages[s].gpus.begin(), pl.stages[s].gpus.end());
    return out;
}

// Four 2-stage pipelines, one GPU a stage: v/0→v/1, v/2→v/3, t/0→t/1, t/2→t/3.
Plan fourPipelines()
{
    Cluster c = testCluster({{"V100-16GB", 4}, {"T4", 4}}, 1e11, 1.25e9, 5e-6, 2e-5);
    c.nodes[0].name = "v";
    c.nodes[1].name = "t";
    Job j;
    j.globalBatchSize = 4 * 2 * 4;
    Plan plan = makePlan(c, gptLike(), j, Profile());
    plan.planner = "fixture";
    for (int p = 0; p < 4; ++p)
        plan.pipelines.push_back(makePipeline({0, 17, 34}, {{2 * p}, {2 * p + 1}}, 1, 2, 4));
    return plan;
}

const char* const kStandIn[][2] = {
    {"deepspeed/__init__.py", ""},
    {"deepspeed/runtime/__init__.py", ""},
    {"deepspeed/runtime/pipe/__init__.py", ""},
    {"deepspeed/runtime/pipe/topology.py",
     "import collections\n"
     "Coord = collections.namedtuple('Coord', ['pipe', 'data', 'model'])\n"
     "class PipeModelDataParallelTopology:\n"
     "    def __init__(self, num_pp, num_mp, num_dp):\n"
     "        self.dims = [num_pp, num_dp, num_mp]\n"
     "    def get_dim(self, axis):\n"
     "        return self.dims[['pipe', 'data', 'model'].index(axis)]\n"
     "    def get_coord(self, rank):\n"
     "        c = []\n"
     "        for d in reversed(self.dims):\n"
     "            c.append(rank % d)\n"
     "            rank //= d\n"
     "        return Coord(*reversed(c))\n"},
    {"deepspeed/pipe/__init__.py",
     "import os\n"
     "class PipelineModule:\n"
     "    def __init__(self, layers, topology=None, partition_method='parameters', **kw):\n"
     "        self._topo = topology\n"
     "        self.global_rank = int(os.environ['RANK'])\n"
     "        self._layer_specs = list(layers)\n"
     "        self._partition_layers(method=partition_method)\n"
     "    def _set_bounds(self, start=None, stop=None):\n"
     "        self._local_start, self._local_stop = start, stop\n"},
};

// For every rank: "rank pipe data model start stop" from the module's coordinates() and its PipelineModule.
const char* const kDriver = "import os, sys\n"
                            "sys.path.insert(0, sys.argv[1])\n"
                            "import launcher as l\n"
                            "assert l.TRAIN_BATCH_SIZE == l.TRAIN_MICRO_BATCH_SIZE_PER_GPU * "
                            "l.GRADIENT_ACCUMULATION_STEPS * l.DATA_PARALLEL\n"
                            "for r in range(l.WORLD_SIZE):\n"
                            "    os.environ['RANK'] = str(r)\n"
                            "    assert tuple(l.topology().get_coord(r)) == l.coordinates(r)\n"
                            "    m = l.pipeline_module(range(len(l.LAYER_NAMES)))\n"
                            "    print(r, *l.coordinates(r), m._local_start, m._local_stop)\n"
                            "try:\n"
                            "    l.pipeline_module(range(3))\n"
                            "except ValueError as e:\n"
                            "    print('refused', 'splits' in str(e))\n";

struct PythonRun {
    int exitCode = -1;
    QStringList lines;
    QString err;
};

PythonRun runPython(const std::string& module, const char* driver)
{
    QTemporaryDir dir;
    for (const auto& [path, text] : kStandIn) {
        const QString p = dir.filePath(path);
        QDir().mkpath(QFileInfo(p).path());
        QFile f(p);
        f.open(QIODevice::WriteOnly);
        f.write(text);
    }
    QFile f(dir.filePath("launcher.py"));
    f.open(QIODevice::WriteOnly);
    f.write(QByteArray::fromStdString(module));
    f.close();
    QProcess py;
    py.start("python3", {"-c", driver, dir.path()});
    py.waitForFinished(30000);
    return {py.exitCode(), QString::fromUtf8(py.readAllStandardOutput()).split('\n', Qt::SkipEmptyParts),
            QString::fromUtf8(py.readAllStandardError())};
}

} // namespace

class TestDeepSpeedLauncher : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        if (QStandardPaths::findExecutable("python3").isEmpty())
            QSKIP("python3 is not installed");
    }

    void topologyMatchesTheRankTable()
    {
        // unevenPlan(): 4 stages × 2 replicas × tp 2 = 16 ranks; stage s holds GPUs 4s..4s+3, so by hand
        // rank 5 = (pipe 5/4 = 1, data 5/2 % 2 = 0, model 1) → stage 1's GPU [0·2 + 1] = dense GPU 5.
        // fourPipelines(): pp 2, dp 4, tp 1: rank 1 = (0, 1, 0) → stage 0 of pipeline 1 = v/2; rank 6 =
        // (1, 2, 0) → stage 1 of pipeline 2 = t/1.
        const Plan uneven = unevenPlan(), four = fourPipelines(), inner = unevenPlan(1, 2, 2);
        QCOMPARE(uneven.cluster.gpuName(uneven.ranks()[5].gpu), std::string("a/5"));
        QCOMPARE(four.cluster.gpuName(four.ranks()[1].gpu), std::string("v/2"));
        QCOMPARE(four.cluster.gpuName(four.ranks()[6].gpu), std::string("t/1"));
        struct Case {
            const Plan* plan;
            int pp, dp, tp;
        };
        for (const Case& c : {Case{&uneven, 4, 2, 2}, Case{&four, 2, 4, 1}, Case{&inner, 4, 2, 2}}) {
            const std::vector<RankInfo> ranks = c.plan->ranks();
            QCOMPARE(int(ranks.size()), c.pp * c.dp * c.tp);
            for (const RankInfo& r : ranks) {
                const Coord k = coordOf(r.rank, c.dp, c.tp);
                QCOMPARE(r.gpu, stageGpus(*c.plan, k.pipe)[size_t(k.data * c.tp + k.model)]);
            }
            // The launcher states the same degrees, and DeepSpeed's batch assertion holds:
            // train_batch_size = micro × gas × dp.
            const QJsonObject config = deepSpeedConfig(*c.plan);
            QCOMPARE(config.value("hetplan").toObject().value("data_parallel").toInt(), c.dp);
            QCOMPARE(config.value("train_batch_size").toInt(),
                     config.value("train_micro_batch_size_per_gpu").toInt() *
                         config.value("gradient_accumulation_steps").toInt() * c.dp);
        }
    }

    void moduleBuildsThePlannedPartition()
    {
        // Every rank of unevenPlan() builds the layers of its stage: [0,11) [11,17) [17,25) [25,34).
        const PythonRun run = runPython(deepSpeedLauncher(unevenPlan()), kDriver);
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QCOMPARE(run.lines.size(), 17);
        const int bounds[] = {0, 11, 17, 25, 34};
        for (int r = 0; r < 16; ++r) {
            const Coord k = coordOf(r, 2, 2);
            QCOMPARE(run.lines[r], QString("%1 %2 %3 %4 %5 %6")
                                       .arg(r)
                                       .arg(k.pipe)
                                       .arg(k.data)
                                       .arg(k.model)
                                       .arg(bounds[k.pipe])
                                       .arg(bounds[k.pipe + 1]));
        }
        QCOMPARE(run.lines[16], QString("refused True")); // 3 layers for a 34-layer split
        // Four pipelines: ranks 0-3 build [0,17), ranks 4-7 [17,34).
        const PythonRun four = runPython(deepSpeedLauncher(fourPipelines()), kDriver);
        QVERIFY2(four.exitCode == 0, qPrintable(four.err));
        QCOMPARE(four.lines[3], QString("3 0 3 0 0 17"));
        QCOMPARE(four.lines[4], QString("4 1 0 0 17 34"));
    }

    void moduleCarriesPerRankBatches()
    {
        // zeroPlan(2, false): GPUs 0-1 run 3 + 3, GPUs 2-3 run 3 + 1 (20 samples, offsets 0, 6, 12, 16). The
        // nominal train_batch_size is 24 (3 × 2 × 4); correct_sample_counter sets 20 per step.
        const char* driver = "import sys\n"
                             "sys.path.insert(0, sys.argv[1])\n"
                             "import launcher as l\n"
                             "print(l.WORLD_SIZE, l.GLOBAL_BATCH_SIZE, l.TRAIN_BATCH_SIZE, l.PARTS)\n"
                             "print([(b['samples'], b['sample_offset'], b['last_micro_batch_size']) "
                             "for b in l.RANK_BATCHES])\n"
                             "class Engine: pass\n"
                             "e = Engine(); e.global_steps = 3; e.global_samples = 72\n"
                             "l.correct_sample_counter(e)\n"
                             "print(e.global_samples)\n"
                             "try:\n"
                             "    l.pipeline_module([])\n"
                             "except ValueError as x:\n"
                             "    print('no pipeline stages' in str(x))\n";
        const PythonRun run = runPython(deepSpeedLauncher(zeroPlan(2, false)), driver);
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QCOMPARE(run.lines, (QStringList{"4 20 24 ()", "[(6, 0, 3), (6, 6, 3), (4, 12, 1), (4, 16, 1)]", "60", "True"}));
    }

    void textIsQuoted()
    {
        // Layer names are input: every one is a Python literal of printable ASCII, read back unchanged.
        Plan p = unevenPlan();
        p.model.layers[1].name = "x'); import os; os.system('false'); ('\\\n\"\"\"é\x01";
        const std::string module = deepSpeedLauncher(p);
        for (char c : module)
            QVERIFY((c >= 0x20 && c < 0x7f) || c == '\n');
        const char* driver = "import sys\n"
                             "sys.path.insert(0, sys.argv[1])\n"
                             "import launcher as l\n"
                             "print(l.LAYER_NAMES[1].encode('utf-8').hex())\n";
        const PythonRun run = runPython(module, driver);
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QCOMPARE(run.lines.value(0).toLatin1(), QByteArray::fromStdString(p.model.layers[1].name).toHex());
    }
};

QTEST_GUILESS_MAIN(TestDeepSpeedLauncher)
#include "tst_deepspeed_launcher.moc"
