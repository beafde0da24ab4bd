// What-if sweeps: --vary parsing, the combinations, and `hetplan-cli sweep` end to end against the
// hetplan.sweep/1 schema.
#include "testutil.h"
#include "example_request.h"

#include "core/base/errors.h"
#include "core/io/json_io.h"
#include "core/io/schema_validate.h"
#include "core/planners/sweep.h"

#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

using namespace hetplan;

namespace {
QJsonObject sweepSchema() { return readJsonFile(test::sourceDir() + "/resources/schema/sweep.schema.json"); }
} // namespace

class TestSweep : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::string path(const char* name) const { return (dir_.path() + "/" + name).toStdString(); }

private slots:
    void parsesAxes()
    {
        const SweepAxis gbs = parseSweepAxis("gbs=16,32,64");
        QCOMPARE(gbs.name, std::string("gbs"));
        QCOMPARE(gbs.values, (std::vector<std::string>{"16", "32", "64"}));
        // Repeated axes gain values: two --vary without=… are one axis of two values.
        std::vector<SweepAxis> axes;
        addSweepAxis(axes, parseSweepAxis("without=p3-0"));
        addSweepAxis(axes, parseSweepAxis("without=g4dn-0"));
        QCOMPARE(axes.size(), size_t(1));
        QCOMPARE(axes[0].values, (std::vector<std::string>{"p3-0", "g4dn-0"}));
        QVERIFY(test::errorOf([&] { addSweepAxis(axes, parseSweepAxis("without=p3-0")); }));
    }

    void rejectsBadValues_data()
    {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<QString>("field");
        QTest::newRow("zero out of range") << "zero=0,4" << "zero";
        QTest::newRow("gbs not a number") << "gbs=16,big" << "gbs";
        QTest::newRow("gbs zero") << "gbs=0" << "gbs";
        QTest::newRow("gbs negative") << "gbs=-8" << "gbs";
        QTest::newRow("seq empty value") << "seq=512," << "seq";
        QTest::newRow("unknown parameter") << "lr=0.1" << "lr";
        QTest::newRow("no =") << "gbs" << "gbs";
        QTest::newRow("no values") << "gbs=" << "gbs";
    }
    void rejectsBadValues()
    {
        QFETCH(QString, spec);
        QFETCH(QString, field);
        const auto e = test::errorOf([&] { parseSweepAxis(spec.toStdString()); });
        QVERIFY(e.has_value());
        QCOMPARE(e->file(), std::string("--vary"));
        QCOMPARE(QString::fromStdString(e->field()), field);
    }

    // 2 gbs × 3 zero = 6 combinations, the last axis fastest.
    void combinationsAreTheProduct()
    {
        const auto points = sweepPoints({parseSweepAxis("gbs=16,32"), parseSweepAxis("zero=0,1,3")});
        QCOMPARE(points.size(), size_t(6));
        QCOMPARE(points[0], (SweepPoint{{"gbs", "16"}, {"zero", "0"}}));
        QCOMPARE(points[2], (SweepPoint{{"gbs", "16"}, {"zero", "3"}}));
        QCOMPARE(points[3], (SweepPoint{{"gbs", "32"}, {"zero", "0"}}));
    }

    void appliesPoint()
    {
        PlanRequest base;
        base.cluster = test::twoNodeCluster("V100-16GB", 2, "T4", 2);
        base.job.globalBatchSize = 8;
        const PlanRequest r = applySweepPoint(base, {{"gbs", "64"}, {"zero", "2"}, {"without", "b"}}, {});
        QCOMPARE(r.job.globalBatchSize, 64);
        QCOMPARE(r.job.zeroStage, 2);
        QCOMPARE(r.cluster.nodes.size(), size_t(1));
        QCOMPARE(r.cluster.nodes[0].name, std::string("a"));
        QCOMPARE(applySweepPoint(base, {{"without", "none"}}, {}).cluster.nodes.size(), size_t(2));
        QVERIFY(test::errorOf([&] { applySweepPoint(base, {{"without", "zz"}}, {}); }));
    }

    // The acceptance: 3 batch sizes × 2 planners = 6 rows, schema-valid; each row's $/M tokens
    // follows from its $/h and tokens/s; a bigger batch moves more tokens per second for amp.
    void cliSweepEndToEnd()
    {
        const std::string out = path("sweep.json");
        const test::CliResult r =
            test::runCli({"sweep", "--cluster", "example:amp-het-cluster", "--model", "example:gpt2-amp", "--planners",
                          "amp,megatron", "--vary", "gbs=16,32,64", "--out", QString::fromStdString(out)});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.contains("sweep: 6/6"), qPrintable(r.err)); // progress on stderr
        const QJsonObject doc = readJsonFile(out);
        const auto violations = validateJson(doc, sweepSchema());
        QVERIFY2(violations.empty(), violations.empty() ? "" : violations.front().message.c_str());
        const QJsonArray rows = doc["rows"].toArray();
        QCOMPARE(rows.size(), 6);
        const int gbs[] = {16, 16, 32, 32, 64, 64};
        const char* planner[] = {"amp", "megatron", "amp", "megatron", "amp", "megatron"};
        for (int i = 0; i < 6; ++i) {
            const QJsonObject row = rows[i].toObject();
            QCOMPARE(row["settings"].toObject()["gbs"].toInt(), gbs[i]);
            QCOMPARE(row["planner"].toString(), QString(planner[i]));
            QCOMPARE(row["status"].toString(), QString("ok"));
            const double perM = row["dollars_per_hour"].toDouble() / (row["tokens_per_second"].toDouble() * 3600) * 1e6;
            QVERIFY(std::abs(row["dollars_per_million_tokens"].toDouble() - perM) < 1e-9 * perM);
        }
        QVERIFY(rows[4].toObject()["tokens_per_second"].toDouble() > rows[0].toObject()["tokens_per_second"].toDouble());
    }

    // A cluster with a GPU that has no price (RTX-3090): `plan` and `sweep` both say the cost is unknown and
    // name the type, rather than printing a partial sum; both files still fit their schemas.
    void unpricedGpuNamedInPlanAndSweep()
    {
        const std::string cluster = path("unpriced.json");
        writeJsonFile(cluster, toJson(test::twoNodeCluster("V100-16GB", 2, "RTX-3090", 2)));
        const std::string planOut = path("plan.json"), sweepOut = path("unpriced-sweep.json");
        const QString c = QString::fromStdString(cluster);
        test::CliResult r = test::runCli({"plan", "--cluster", c, "--model", "example:gpt2-amp", "--planner",
                                          "uniform", "--gbs", "16", "--out", QString::fromStdString(planOut)});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject plan = readJsonFile(planOut);
        const QJsonObject cost = plan["estimate"].toObject()["cost"].toObject();
        QVERIFY(cost["dollars_per_hour"].isNull());
        QCOMPARE(cost["unpriced_device_types"].toArray(), QJsonArray{"RTX-3090"});
        QVERIFY(validatePlanJson(plan).empty());
        r = test::runCli({"sweep", "--cluster", c, "--model", "example:gpt2-amp", "--planners", "uniform", "--vary",
                          "gbs=16", "--out", QString::fromStdString(sweepOut)});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains("no price for RTX-3090"), qPrintable(r.out));
        const QJsonObject doc = readJsonFile(sweepOut);
        QVERIFY(validateJson(doc, sweepSchema()).empty());
        const QJsonObject row = doc["rows"].toArray()[0].toObject();
        QVERIFY(!row.contains("dollars_per_hour"));
        QCOMPARE(row["unpriced_device_types"].toArray(), QJsonArray{"RTX-3090"});
    }

    // Running on one thread or four gives the same rows (planners are deterministic for a fixed seed).
    void parallelMatchesSequential()
    {
        auto run = [&](const char* jobs, const char* name) {
            const std::string out = path(name);
            const auto r = test::runCli({"sweep", "--cluster", "example:amp-het-cluster", "--model", "example:gpt2-amp",
                                         "--planners", "amp,uniform", "--vary", "gbs=16,32", "--vary", "zero=0,1",
                                         "--jobs", jobs, "--out", QString::fromStdString(out)});
            QJsonObject doc = readJsonFile(out);
            doc.remove("wall_seconds");
            return std::make_pair(r.exitCode, doc);
        };
        const auto one = run("1", "one.json"), four = run("4", "four.json");
        QCOMPARE(one.first, 0);
        QCOMPARE(one.second["rows"].toArray().size(), 8);
        QVERIFY(one.second == four.second);
    }

    // Each planner gets its own options and no other planner's: a bad value for random's trials makes
    // random's row not-applicable naming the option, while uniform (which would refuse an unknown key)
    // plans as usual; a good value plans.
    void perPlannerOptionsReachOnlyTheirPlanner()
    {
        const std::vector<std::pair<SweepPoint, PlanRequest>> requests{
            {SweepPoint{}, test::exampleRequest("amp-het-cluster", "gpt2-amp", 16)}};
        const std::vector<std::string> planners{"random", "uniform"};
        auto rows = runSweep(requests, planners, 1, {}, {}, {{"random", {{"trials", "0"}}}});
        QCOMPARE(rows.size(), size_t(2));
        QCOMPARE(toString(rows[0].status), std::string("not-applicable"));
        QVERIFY2(rows[0].error.find("trials") != std::string::npos, rows[0].error.c_str());
        QCOMPARE(toString(rows[1].status), std::string("ok"));
        rows = runSweep(requests, planners, 1, {}, {}, {{"random", {{"trials", "5"}}}});
        QCOMPARE(toString(rows[0].status), std::string("ok"));
        QCOMPARE(toString(rows[1].status), std::string("ok"));
    }

    // A time limit that cancels runs leaves the sweep incomplete: it says it stopped, how many runs were
    // cancelled, and exits 4 (as `plan` does when stopped without a plan), whatever the other runs gave;
    // the table and --out still list every run. 2,000 combinations under a 50 ms limit: the limit passes
    // long before the last one starts, on any machine.
    void cliSweepStoppedByItsTimeLimitExitsFour()
    {
        QStringList gbs;
        for (int g = 1; g <= 2000; ++g)
            gbs << QString::number(g);
        const std::string out = path("stopped.json");
        const auto r = test::runCli({"sweep", "--cluster", "example:amp-het-cluster", "--model", "example:gpt2-amp",
                                     "--planners", "uniform", "--vary", "gbs=" + gbs.join(','), "--time-limit", "0.05",
                                     "--jobs", "1", "--out", QString::fromStdString(out)},
                                    120000);
        QCOMPARE(r.exitCode, 4);
        const QJsonArray rows = readJsonFile(out)["rows"].toArray();
        QCOMPARE(rows.size(), 2000);
        int cancelled = 0;
        for (const QJsonValue& v : rows)
            cancelled += v.toObject()["status"].toString() == "cancelled";
        QVERIFY(cancelled >= 1);
        QVERIFY2(r.err.contains(QString("error: the time limit stopped the sweep: %1 of 2000 runs").arg(cancelled)),
                 qPrintable(r.err.right(400)));
        QCOMPARE(r.out.count("  cancelled"), cancelled);
    }

    // --out is checked before anything is planned: a sweep of 400 combinations with an unwritable --out
    // exits 2 at once, without a single progress line (it used to plan them all, then fail to write).
    void cliSweepChecksItsOutputFirst()
    {
        QStringList gbs;
        for (int g = 1; g <= 400; ++g)
            gbs << QString::number(g);
        for (const QString& target : {dir_.path(), dir_.filePath("missing/sweep.json")}) {
            const auto r = test::runCli({"sweep", "--cluster", "example:amp-het-cluster", "--model", "example:gpt2-amp",
                                         "--planners", "uniform", "--vary", "gbs=" + gbs.join(','), "--out", target},
                                        120000);
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.err.startsWith("error: " + target + ": file: "), qPrintable(r.err.left(400)));
            QVERIFY2(!r.err.contains("sweep: "), qPrintable(r.err.left(400)));
            QVERIFY(r.out.isEmpty());
        }
    }

    // The exit codes are in the help.
    void helpStatesTheExitCodes()
    {
        const auto r = test::runCli({"sweep", "--help"});
        QCOMPARE(r.exitCode, 0);
        const QString help = r.out.simplified();
        QVERIFY2(help.contains("Exit status: 0 every combination was planned"), qPrintable(help));
        QVERIFY(help.contains("4 the time limit stopped the sweep"));
    }

    void cliBadVaryExitsTwo_data()
    {
        QTest::addColumn<QString>("vary");
        QTest::addColumn<QString>("message");
        QTest::newRow("zero 5") << "zero=0,5" << "error: --vary: zero: expected whole numbers from 0 to 3, got '5'";
        QTest::newRow("unknown node") << "without=nosuchnode" << "nosuchnode";
        QTest::newRow("unknown parameter") << "lr=1" << "error: --vary: lr: unknown parameter";
    }
    void cliBadVaryExitsTwo()
    {
        QFETCH(QString, vary);
        QFETCH(QString, message);
        const auto r = test::runCli({"sweep", "--cluster", "example:amp-het-cluster", "--model", "example:gpt2-amp",
                                     "--vary", vary, "--out", QString::fromStdString(path("bad.json"))});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        QVERIFY(!QFile::exists(QString::fromStdString(path("bad.json"))));
    }
};

QTEST_GUILESS_MAIN(TestSweep)
#include "tst_sweep.moc"
