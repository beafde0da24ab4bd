// Smaller input holes, each through the real hetplan-cli: SPMD sharding ratios that are not shares, JSON
// objects that repeat a key, profiles whose times are all zero, a tensor-parallel degree the model cannot
// be split by, a bad --option in compare and sweep, escape codes in names on stdout, and launch files for
// plans that do not fit.
#include "testutil.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace hetplan;
using namespace hetplan::test;

namespace {

QJsonObject readJson(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QJsonDocument::fromJson(f.readAll()).object() : QJsonObject{};
}

QString writeText(const QTemporaryDir& dir, const QString& name, const QByteArray& text)
{
    QFile f(dir.filePath(name));
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(text) != text.size())
        qFatal("cannot write %s", qPrintable(name));
    return dir.filePath(name);
}

QString writeJson(const QTemporaryDir& dir, const QString& name, const QJsonObject& o)
{
    return writeText(dir, name, QJsonDocument(o).toJson());
}

bool hasEscape(const QString& s) { return s.contains(QChar(0x1b)) || s.contains(QChar(0x07)); }

} // namespace

class TestInputHoles : public QObject {
    Q_OBJECT
    QTemporaryDir dir;
    QString hapPlan, uniformPlan;

    QString planWith(const QString& name, const QStringList& request)
    {
        const QString out = dir.filePath(name);
        const CliResult r = runCli(QStringList{"plan"} + request + QStringList{"--quiet", "--out", out});
        if (r.exitCode != 0)
            qWarning("%s", qPrintable(r.err));
        return out;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(dir.isValid());
        hapPlan = planWith("hap.json", {"--cluster", "example:hap-testbed", "--model", "example:bert-hap", "--gbs", "64",
                                        "--planner", "hap", "--time-limit", "20"});
        uniformPlan = planWith("uniform.json", {"--cluster", "example:amp-het-cluster", "--model", "example:gpt2-amp",
                                                "--gbs", "32", "--planner", "uniform"});
        QVERIFY(QFile::exists(hapPlan));
        QVERIFY(QFile::exists(uniformPlan));
    }

    void shardingRatiosMustBeShares_data()
    {
        QTest::addColumn<QJsonValue>("value");
        QTest::addColumn<QString>("reason");
        QTest::newRow("negative") << QJsonValue(-0.5) << "between 0 and 1";
        QTest::newRow("null") << QJsonValue(QJsonValue::Null) << "expected a number";
        QTest::newRow("string") << QJsonValue("half") << "expected a number";
        QTest::newRow("above one") << QJsonValue(1.5) << "between 0 and 1";
    }
    void shardingRatiosMustBeShares()
    {
        QFETCH(QJsonValue, value);
        QFETCH(QString, reason);
        QJsonObject plan = readJson(hapPlan);
        QJsonObject spmd = plan["spmd"].toObject();
        QJsonArray rows = spmd["sharding_ratios"].toArray();
        QVERIFY(!rows.isEmpty());
        QJsonArray row = rows[0].toArray();
        row[0] = value;
        rows[0] = row;
        spmd["sharding_ratios"] = rows;
        plan["spmd"] = spmd;
        const CliResult r = runCli({"simulate", "--plan", writeJson(dir, "bad-ratios.json", plan)});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("spmd.sharding_ratios[0][0]") && r.err.contains(reason), qPrintable(r.err));
    }

    void shardingRatioRowsAddUpToOne()
    {
        QJsonObject plan = readJson(hapPlan);
        QJsonObject spmd = plan["spmd"].toObject();
        QJsonArray rows = spmd["sharding_ratios"].toArray();
        QJsonArray row = rows[0].toArray();
        for (qsizetype g = 0; g < row.size(); ++g)
            row[g] = 0.0;
        rows[0] = row;
        spmd["sharding_ratios"] = rows;
        plan["spmd"] = spmd;
        const CliResult r = runCli({"simulate", "--plan", writeJson(dir, "zero-ratios.json", plan)});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("spmd.sharding_ratios[0]: the shares add up to 0"), qPrintable(r.err));
    }

    void repeatedKeysAreRefused()
    {
        // The job's global batch given twice: a reader would silently take one of them.
        const QString cluster = writeText(
            dir, "dup-cluster.json",
            R"({"name":"c","nodes":[{"name":"a","device":"T4","gpus":4,"gpus":1,"nic_bandwidth":"50 Gbps"}]})");
        CliResult r = runCli({"plan", "--cluster", cluster, "--model", "example:gpt2-amp", "--planner", "uniform"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.startsWith("error: " + cluster + ": nodes[0].gpus: duplicate key"), qPrintable(r.err));
        // Escaped spellings of one key are the same key.
        const QString job = writeText(dir, "dup-job.json", R"({"global_batch_size": 8, "global_batch_siz\u0065": 64})");
        r = runCli({"plan", "--cluster", "example:amp-het-cluster", "--model", "example:gpt2-amp", "--job", job,
                    "--planner", "uniform"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("global_batch_size: duplicate key"), qPrintable(r.err));
        // And inside a plan file, deep down.
        QByteArray plan = QJsonDocument(readJson(uniformPlan)).toJson(QJsonDocument::Compact);
        plan.replace("\"micro_batch_size\":", "\"micro_batch_size\":1,\"micro_batch_size\":");
        r = runCli({"simulate", "--plan", writeText(dir, "dup-plan.json", plan)});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("pipelines[0].micro_batch_size: duplicate key"), qPrintable(r.err));
    }

    void allZeroProfileIsRefused()
    {
        QJsonObject layer{{"forward", 0}, {"backward", 0}, {"update", 0}};
        QJsonArray layers;
        for (int i = 0; i < 4; ++i)
            layers.append(layer);
        const QJsonObject profile{{"schema", "hetplan.profile/1"},
                                  {"model", "tiny"},
                                  {"tables", QJsonArray{QJsonObject{
                                                 {"device", "T4"}, {"tp", 1}, {"micro_batch", 1}, {"layers", layers}}}}};
        const CliResult r = runCli({"plan", "--cluster", "example:amp-het-cluster", "--model", "example:gpt2-amp",
                                    "--profile", writeJson(dir, "zero-profile.json", profile), "--planner", "uniform"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("tables[0].layers: every time is zero"), qPrintable(r.err));
    }

    void unsplittableTensorDegreeIsWarned()
    {
        // One pipeline of one stage on five GPUs of one node, turned into tp 5: gpt2-amp's heads and hidden
        // size do not split in five. The plan still simulates, with a warning naming the stage.
        const QString five = writeText(
            dir, "five.json", R"({"name":"five","nodes":[{"name":"a","device":"V100-32GB","gpus":5,"nic_bandwidth":"50 Gbps"}]})");
        const QString planPath = planWith("five-plan.json", {"--cluster", five, "--model", "example:gpt2-amp", "--gbs", "10",
                                                              "--planner", "uniform"});
        QJsonObject plan = readJson(planPath);
        QJsonArray pipelines = plan["pipelines"].toArray();
        QCOMPARE(pipelines.size(), 1);
        QJsonObject p0 = pipelines[0].toObject();
        QJsonArray stages = p0["stages"].toArray();
        QCOMPARE(stages.size(), 1);
        QJsonObject s0 = stages[0].toObject();
        QCOMPARE(s0["gpus"].toArray().size(), 5);
        const CliResult base = runCli({"simulate", "--plan", planPath});
        QVERIFY2(base.exitCode == 0 && !base.err.contains("tensor_parallel"), qPrintable(base.err));
        s0["tensor_parallel"] = 5;
        s0["data_parallel"] = 1;
        stages[0] = s0;
        p0["stages"] = stages;
        p0["replicas"] = 1;
        p0["micro_batch_size"] = 1;
        p0["micro_batches"] = 10;
        pipelines[0] = p0;
        plan["pipelines"] = pipelines;
        const CliResult r = runCli({"simulate", "--plan", writeJson(dir, "tp5-plan.json", plan)});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains("pipelines[0].stages[0].tensor_parallel") && r.err.contains("does not divide"),
                 qPrintable(r.err));
    }

    void badOptionExitsTwoInEveryCommand_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("mentions");
        const QStringList request{"--cluster", "example:amp-het-cluster", "--model", "example:gpt2-amp", "--gbs", "32"};
        for (const QString& option : {QString("no_such_key=1"), QString("tp=lots")}) {
            QTest::newRow(qPrintable("plan " + option))
                << QStringList{"plan"} + request + QStringList{"--planner", "uniform", "--option", option} << option.section('=', 0, 0);
            QTest::newRow(qPrintable("compare " + option))
                << QStringList{"compare"} + request + QStringList{"--planners", "uniform,amp", "--option", option}
                << option.section('=', 0, 0);
            QTest::newRow(qPrintable("sweep " + option))
                << QStringList{"sweep"} + request +
                       QStringList{"--planners", "uniform,amp", "--vary", "gbs=16,32", "--option", option}
                << option.section('=', 0, 0);
        }
    }
    void badOptionExitsTwoInEveryCommand()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, mentions);
        const CliResult r = runCli(args);
        QVERIFY2(r.exitCode == 2, qPrintable(QString("exit %1: %2").arg(r.exitCode).arg(r.err)));
        QVERIFY2(r.err.contains(mentions), qPrintable(r.err));
    }

    void optionsGoOnlyToPlannersThatHaveThem()
    {
        // uniform's tp reaches uniform; amp, which has no tp option, still plans.
        const CliResult r = runCli({"compare", "--cluster", "example:amp-het-cluster", "--model", "example:gpt2-amp",
                                    "--gbs", "32", "--planners", "uniform,amp", "--option", "tp=2"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(!r.out.contains("not applicable"), qPrintable(r.out));
    }

    void escapeCodesInNamesNeverReachStdout()
    {
        QJsonObject cluster = readJson(uniformPlan)["inputs"].toObject()["cluster"].toObject();
        cluster["name"] = QString("red") + QChar(0x1b) + "[31m" + QChar(0x07) + "bell";
        const QString path = writeJson(dir, "esc-cluster.json", cluster);
        const CliResult r = runCli({"plan", "--cluster", path, "--model", "example:gpt2-amp", "--gbs", "32",
                                    "--planner", "uniform"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains("red\\u001b[31m\\u0007bell"), qPrintable(r.out));
        QVERIFY(!hasEscape(r.out));
        QVERIFY(!hasEscape(r.err));
    }

    void launchFilesForPlansThatDoNotFitAreRefused()
    {
        // The plan's nodes claim almost all memory for the runtime: the simulated peak no longer fits.
        QJsonObject plan = readJson(uniformPlan);
        QJsonObject inputs = plan["inputs"].toObject();
        QJsonObject cluster = inputs["cluster"].toObject();
        QJsonArray nodes = cluster["nodes"].toArray();
        for (qsizetype i = 0; i < nodes.size(); ++i) {
            QJsonObject n = nodes[i].toObject();
            n["runtime_overhead"] = n["device"].toString() == "T4" ? "15.5 GB" : "15.9 GB";
            nodes[i] = n;
        }
        cluster["nodes"] = nodes;
        inputs["cluster"] = cluster;
        plan["inputs"] = inputs;
        const QString tight = writeJson(dir, "tight.json", plan);
        for (const char* format : {"megatron-launch", "deepspeed", "hostfile", "rank-table"}) {
            const CliResult r = runCli({"export", "--plan", tight, "--format", format});
            QVERIFY2(r.exitCode == 3, qPrintable(QString("%1: exit %2: %3").arg(format).arg(r.exitCode).arg(r.err)));
            QVERIFY2(r.err.contains("does not fit memory") && r.err.contains("--force"), qPrintable(r.err));
            QVERIFY(r.out.isEmpty());
            const CliResult forced = runCli({"export", "--plan", tight, "--format", format, "--force"});
            QVERIFY2(forced.exitCode == 0, qPrintable(QString(format) + ": " + forced.err));
        }
        // Viewing formats are not launches: the trace of a plan that does not fit is still written.
        QCOMPARE(runCli({"export", "--plan", tight, "--format", "chrome-trace"}).exitCode, 0);
        // The plan as planned fits and exports.
        QCOMPARE(runCli({"export", "--plan", uniformPlan, "--format", "megatron-launch"}).exitCode, 0);
    }
};

QTEST_GUILESS_MAIN(TestInputHoles)
#include "tst_input_holes.moc"
