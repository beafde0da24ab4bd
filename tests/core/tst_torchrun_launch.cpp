// The Megatron launch script under a real torchrun (PyTorch's elastic agent, on the CPU): two launch nodes
// on this machine, named "localhost" and "127.0.0.1", start 2 and 1 processes; a stand-in pretrain_gpt.py
// records each worker's RANK, LOCAL_RANK, WORLD_SIZE and the GPU it would use (CUDA_VISIBLE_DEVICES at
// LOCAL_RANK). Every rank must land on the GPU the plan's rank table gives it. Skipped without a python3
// that imports torch.
#include "exporter_fixtures.h"

#include "core/io/exporters.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace hetplan;
using namespace hetplan::exporttest;

namespace {

// Debian's PyTorch 1.13 under Python 3.11 parses torchrun's default --redirects/--tee to None; the wrapper
// maps None to "no redirect" and runs torchrun's own main() (torch.distributed.run) unchanged otherwise.
const char* const kTorchrunWrapper = "import sys\n"
                                     "import torch.distributed.elastic.multiprocessing as mp\n"
                                     "original = mp.to_map\n"
                                     "mp.to_map = lambda v, n: original(mp.Std.NONE if v is None else v, n)\n"
                                     "from torch.distributed.run import main\n"
                                     "sys.exit(main())\n";

const char* const kWorker = "import os, sys\n"
                            "env = os.environ\n"
                            "gpu = env['CUDA_VISIBLE_DEVICES'].split(',')[int(env['LOCAL_RANK'])]\n"
                            "with open(os.path.join(env['OUT_DIR'], 'rank-' + env['RANK']), 'w') as f:\n"
                            "    f.write(' '.join([env['RANK'], env['LOCAL_RANK'], env['WORLD_SIZE'], gpu, env['NODE_RANK']]))\n"
                            "    f.write('\\n' + '\\n'.join(sys.argv[1:]))\n";

bool write(const QString& path, const QByteArray& text)
{
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return false;
    f.write(text);
    return true;
}

// A python3 that imports PyTorch: the one on the PATH, else the system's.
QString torchPython()
{
    for (const QString& python : {QString("python3"), QString("/usr/bin/python3")}) {
        QProcess probe;
        probe.start(python, {"-c", "import torch.distributed.run"});
        if (probe.waitForFinished(60000) && probe.exitStatus() == QProcess::NormalExit && probe.exitCode() == 0)
            return python;
    }
    return {};
}

} // namespace

class TestTorchrunLaunch : public QObject {
    Q_OBJECT
    QString python;

private slots:
    void initTestCase()
    {
        python = torchPython();
        if (python.isEmpty())
            QSKIP("no python3 with PyTorch");
    }

    void ranksLandOnThePlannedGpus()
    {
        // Three stages of one GPU: localhost/0, localhost/1, 127.0.0.1/0 → launch nodes of 2 and 1 processes,
        // so by hand: rank 0 → localhost GPU 0, rank 1 → localhost GPU 1, rank 2 → 127.0.0.1 GPU 0, world 3.
        Cluster c = testCluster({{"V100-16GB", 2}, {"T4", 1}}, 1e11, 1.25e9, 5e-6, 2e-5);
        c.nodes[0].name = "localhost";
        c.nodes[1].name = "127.0.0.1";
        Job j;
        j.globalBatchSize = 8;
        Plan plan = makePlan(c, gptLike(), j, Profile());
        plan.planner = "fixture";
        plan.pipelines.push_back(makePipeline({0, 12, 23, 34}, {{0}, {1}, {2}}, 1, 1, 8));
        const std::string script = megatronLaunchScript(plan);
        QVERIFY(script.find("NPROC=(2 1)\n") != std::string::npos);

        QTemporaryDir dir;
        const QString megatron = dir.filePath("megatron-lm"), bin = dir.filePath("bin"), out = dir.filePath("out");
        QVERIFY(QDir().mkpath(megatron + "/megatron/core") && QDir().mkpath(bin) && QDir().mkpath(out));
        QVERIFY(write(megatron + "/megatron/core/package_info.py", "MAJOR = 0\nMINOR = 13\n__version__ = '0.13.0'\n"));
        QVERIFY(write(megatron + "/pretrain_gpt.py", kWorker));
        QVERIFY(write(bin + "/torchrun.py", kTorchrunWrapper));
        QVERIFY(write(bin + "/torchrun",
                      ("#!/bin/sh\nexec " + python + " \"$(dirname \"$0\")/torchrun.py\" \"$@\"\n").toUtf8()));
        QFile(bin + "/torchrun").setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        QVERIFY(write(dir.filePath("launch.sh"), QByteArray::fromStdString(script)));

        const QString port = QString::number(20000 + QCoreApplication::applicationPid() % 20000);
        std::vector<std::unique_ptr<QProcess>> nodes;
        for (int n = 0; n < 2; ++n) {
            auto p = std::make_unique<QProcess>();
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.insert("NODE_RANK", QString::number(n));
            env.insert("MEGATRON_DIR", megatron);
            env.insert("MASTER_PORT", port);
            env.insert("OUT_DIR", out);
            env.insert("PATH", bin + ":" + env.value("PATH"));
            p->setProcessEnvironment(env);
            p->setProcessChannelMode(QProcess::MergedChannels);
            p->start("bash", {dir.filePath("launch.sh")});
            nodes.push_back(std::move(p));
        }
        for (auto& p : nodes) {
            QVERIFY(p->waitForFinished(180000));
            QVERIFY2(p->exitCode() == 0, p->readAll().constData());
        }
        const std::vector<RankInfo> ranks = plan.ranks();
        const std::vector<MegatronLaunchNode> launchNodes = megatronLaunchNodes(plan);
        // Megatron gets ARGS, then the mock data (the null tokenizer's 50256 + 1 = the model's 50257 rows),
        // then the training arguments.
        QStringList args;
        for (const std::string& a : megatronArguments(plan))
            args << QString::fromStdString(a);
        args << "--mock-data" << "--tokenizer-type" << "NullTokenizer" << "--vocab-size" << "50256" << "--train-iters"
             << "100" << "--lr" << "1.0e-4" << "--lr-decay-style" << "constant";
        for (const RankInfo& r : ranks) {
            QFile f(out + "/rank-" + QString::number(r.rank));
            QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable("rank " + QString::number(r.rank) + " did not start"));
            const QStringList lines = QString::fromUtf8(f.readAll()).split('\n');
            const QStringList got = lines.value(0).split(' ');
            QCOMPARE(got.value(2), QString("3"));
            QCOMPARE(got.value(3).toInt(), r.localRank); // the GPU: the plan's local index on its host
            QCOMPARE(launchNodes.at(size_t(got.value(4).toInt())).host, r.host); // started on the plan's host
            QCOMPARE(lines.mid(1), args);
        }
        QCOMPARE(int(ranks.size()), 3);
        QCOMPARE(plan.cluster.gpuName(ranks[2].gpu), std::string("127.0.0.1/0"));
        QCOMPARE(QDir(out).entryList(QDir::Files).size(), 3);
    }
};

QTEST_GUILESS_MAIN(TestTorchrunLaunch)
#include "tst_torchrun_launch.moc"
