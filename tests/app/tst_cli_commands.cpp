// The CLI end to end: plan → simulate → export in every format, compare, list, import; outputs parse and
// agree with each other.
#include "testutil.h"

#include "core/io/exporters.h"
#include "core/io/json_io.h"
#include "core/io/schema_validate.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QtTest>

using namespace hetplan;
using namespace hetplan::test;

class TestCliCommands : public QObject {
    Q_OBJECT
    QTemporaryDir dir;
    QString path(const char* n) { return dir.filePath(n); }
    static QJsonObject readJson(const QString& p)
    {
        QFile f(p);
        f.open(QIODevice::ReadOnly);
        return QJsonDocument::fromJson(f.readAll()).object();
    }

private slots:
    void listExamplesNamesEveryDesignExample()
    {
        CliResult r = runCli({"list", "examples"});
        QCOMPARE(r.exitCode, 0);
        for (const char* n : {"ditto-ex1", "ditto-ex2", "ditto-ex3", "ditto-ex4", "ditto-ex5", "amp-homogeneous",
                              "amp-het-cluster", "poplar-a", "poplar-b", "poplar-c", "hap-testbed", "hethub-pair",
                              "amp-scale-2x2", "amp-scale-4x4", "amp-scale-8x8", "amp-scale-16x16", "gpt2-amp", "gpt2-xl",
                              "transgan-amp", "llama2-7b", "llama2-13b", "bert-base", "vit-base", "vgg19", "bert-moe",
                              "llama-0.5b", "llama-1.1b", "opt-350m"})
            QVERIFY2(r.out.contains(QString(" ") + n + " "), n);
        QCOMPARE(runCli({"list", "planners"}).exitCode, 0);
        QVERIFY(runCli({"list", "devices"}).out.contains("MI300X"));
    }

    void planSimulateExport()
    {
        const QString plan = path("plan.json");
        CliResult r = runCli({"plan", "--cluster", "example:amp-het-cluster", "--model", "example:gpt2-amp", "--gbs", "32",
                              "--planner", "amp", "--out", plan});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("iteration"));
        const QJsonObject o = readJson(plan);
        QCOMPARE(o["schema"].toString(), QString("hetplan.plan/1"));
        QVERIFY(validatePlanJson(o).empty());
        // AMP keeps its top-k with planner and simulated costs.
        const QJsonArray cands = o["candidates"].toArray();
        QVERIFY(cands.size() >= 2 && cands.size() <= 10);
        QVERIFY(cands[0].toObject().contains("simulated_cost"));
        const double iter = o["estimate"].toObject()["iteration_seconds"].toDouble();

        // simulate re-scores from the plan's own inputs: the same number.
        const QString rescored = path("rescored.json");
        r = runCli({"simulate", "--plan", plan, "--trace", path("trace.json"), "--out", rescored});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(qAbs(readJson(rescored)["estimate"].toObject()["iteration_seconds"].toDouble() - iter) < 1e-12);
        const QJsonObject trace = readJson(path("trace.json"));
        QVERIFY(trace["traceEvents"].toArray().size() > 100);

        for (const char* fmt : {"plan", "deepspeed", "megatron", "hostfile", "ranks", "chrome-trace"}) {
            const QString out = path("export.out");
            QFile::remove(out);
            r = runCli({"export", "--plan", plan, "--format", fmt, "--out", out});
            QVERIFY2(r.exitCode == 0, qPrintable(QString(fmt) + ": " + r.err));
            QVERIFY2(QFileInfo(out).size() > 10, fmt);
        }
        r = runCli({"export", "--plan", plan, "--format", "hostfile"});
        QCOMPARE(r.out, QString("p3-0 slots=4\np3-1 slots=4\np3-2 slots=4\ng4dn-0 slots=4\n"));
        r = runCli({"export", "--plan", plan, "--format", "deepspeed"});
        const QJsonObject ds = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(ds["train_batch_size"].toInt(), 32);
    }

    void compareAll()
    {
        const QString report = path("report.json");
        CliResult r = runCli({"compare", "--cluster", "example:amp-het-cluster", "--model", "example:gpt2-amp", "--gbs",
                              "32", "--planners", "uniform,amp,megatron,data-parallel", "--out", report});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject o = readJson(report);
        QCOMPARE(o["schema"].toString(), QString("hetplan.compare/1"));
        const QJsonArray plans = o["plans"].toArray();
        QCOMPARE(plans.size() + o["failures"].toArray().size(), 4);
        QVERIFY(plans.size() >= 3);
        for (const QJsonValue& p : plans)
            QVERIFY(validatePlanJson(p.toObject()).empty());
        QVERIFY(r.out.contains("amp") && r.out.contains("megatron"));
        QCOMPARE(runCli({"compare", "--cluster", "example:amp-het-cluster", "--model", "example:gpt2-amp", "--planners",
                         "amp,nope"})
                     .exitCode,
                 2);
    }

    void infeasibleExitsThree()
    {
        const QString out = path("none.json");
        CliResult r = runCli({"plan", "--cluster", "example:poplar-b", "--model", "example:llama2-13b", "--gbs", "4",
                              "--planner", "uniform", "--out", out});
        QCOMPARE(r.exitCode, 3);
        QVERIFY(r.err.startsWith("error: "));
        QVERIFY(!QFile::exists(out));
    }

    void timeLimitExitsFour()
    {
        // A time limit of 1 ns expires before amp evaluates its first strategy: nothing to keep.
        CliResult r = runCli({"plan", "--cluster", "example:amp-scale-16x16", "--model", "example:gpt2-amp", "--planner",
                              "amp", "--time-limit", "0.000000001", "--out", path("t.json")});
        QCOMPARE(r.exitCode, 4);
        QVERIFY(!QFile::exists(path("t.json")));
    }

    void timeLimitKeepsBestSoFar()
    {
        // Annealing evaluates its start state before the loop, so a limit that expires during the walk
        // leaves a feasible plan: exit 0, a note on stderr, and search.stopped in the plan.
        const QString out = path("stopped.json");
        CliResult r = runCli({"plan", "--cluster", "example:amp-scale-16x16", "--model", "example:gpt2-amp", "--planner",
                              "annealing", "--option", "iterations=10000000", "--time-limit", "0.3", "--out", out});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.contains("time limit"), qPrintable(r.err));
        QFile f(out);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject plan = QJsonDocument::fromJson(f.readAll()).object();
        QCOMPARE(plan["search"].toObject()["stopped"].toString(), QString("time-limit"));
    }

    void importThenPlanWithProfile()
    {
        const QString prof = path("prof.json");
        CliResult r = runCli({"import", "--format", "sailor", "--in",
                              QString::fromStdString(fixture("profiles/sailor/valid.json")), "--device", "V100-16",
                              "--out", prof});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(readJson(prof)["tables"].toArray().size() > 0);
    }
};

QTEST_GUILESS_MAIN(TestCliCommands)
#include "tst_cli_commands.moc"
