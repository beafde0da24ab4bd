// Measured and user-given values are held to their physical ranges where they enter, every number read
// from text follows one rule, and no input makes hetplan-cli exit 1: the profiles whose huge or subnormal
// times used to reach the planners (HAP's LP without an optimum, a 1e302 s "feasible" plan, a ZeRO plan
// for 512 samples of a 32-sample job, a spline of non-finite values), a 1e308 price, hex and padded flag
// values, and a cost that is not finite meeting a cost goal.
#include "testutil.h"

#include "core/base/numbers.h"
#include "core/base/physical_ranges.h"
#include "core/io/json_io.h"
#include "core/model/pricing.h"
#include "core/planners/hap/load_balance.h"
#include "core/planners/objective.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <limits>

using namespace hetplan;
using namespace hetplan::test;

namespace {

const QString kTimeRange = "must be 0 or between 1e-09 and 10000 s";

QString writeText(const QTemporaryDir& dir, const QString& name, const QByteArray& text)
{
    QFile f(dir.filePath(name));
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(text) != text.size())
        qFatal("cannot write %s", qPrintable(name));
    return dir.filePath(name);
}

// A native profile: every layer of each device's micro-batch-1 table takes that device's time (written
// verbatim) forward and backward.
QByteArray profileText(int layers, const QList<QPair<QString, QByteArray>>& deviceTimes)
{
    QByteArrayList tables;
    for (const auto& [device, time] : deviceTimes) {
        QByteArrayList ls;
        for (int l = 0; l < layers; ++l)
            ls << R"({"forward": )" + time + R"(, "backward": )" + time + "}";
        tables << R"({"device": ")" + device.toUtf8() + R"(", "tp": 1, "micro_batch": 1, "layers": [)" +
                      ls.join(",") + "]}";
    }
    return R"({"schema": "hetplan.profile/1", "precision": "fp16", "tables": [)" + tables.join(",") + "]}";
}

QByteArray profileText(const QByteArray& time, int layers, const QStringList& devices)
{
    QList<QPair<QString, QByteArray>> deviceTimes;
    for (const QString& d : devices)
        deviceTimes.append({d, time});
    return profileText(layers, deviceTimes);
}

// The one line hetplan-cli printed on stderr that starts with "error:".
QString errorLine(const CliResult& r)
{
    for (const QString& line : r.err.split('\n'))
        if (line.startsWith("error:"))
            return line;
    return {};
}

// The request each planner of the repros ran: cluster, model, global batch and its profile's devices.
struct Scenario {
    QStringList args;
    int layers;
    QStringList devices;
};

Scenario scenario(const QString& planner)
{
    if (planner == "hap")
        return {{"--cluster", "example:hap-testbed", "--model", "example:bert-hap", "--gbs", "64",
                 "--planner", "hap", "--time-limit", "60"},
                10,
                {"V100-16GB", "P100-16GB"}};
    if (planner == "poplar")
        return {{"--cluster", "example:poplar-b", "--model", "example:gpt2-amp", "--gbs", "32", "--planner", "poplar"},
                26,
                {"V100-16GB", "T4"}};
    return {{"--cluster", "example:amp-het-cluster", "--model", "example:gpt2-amp", "--gbs", "32", "--planner",
             planner},
            26,
            {"V100-16GB", "T4"}};
}

const QStringList kUniform = {"plan", "--cluster", "example:amp-het-cluster", "--model", "example:gpt2-amp", "--gbs",
                              "32", "--planner", "uniform", "--quiet"};

} // namespace

class TestInputRanges : public QObject {
    Q_OBJECT
    QTemporaryDir dir;

    CliResult planWithProfile(const QString& planner, const QByteArray& time)
    {
        const Scenario s = scenario(planner);
        const QString profile =
            writeText(dir, planner + "-" + QString::fromUtf8(time) + ".json", profileText(time, s.layers, s.devices));
        return runCli(QStringList{"plan"} + s.args + QStringList{"--profile", profile, "--quiet"}, 120000);
    }

private slots:
    void initTestCase() { QVERIFY(dir.isValid()); }

    // Each profile that reached a planner before: now exit 2 at the profile, naming the field and the range.
    void profileTimesOutsideTheirRangeAreRefused_data()
    {
        QTest::addColumn<QString>("planner");
        QTest::addColumn<QByteArray>("time");
        QTest::addColumn<QString>("reason");
        QTest::newRow("hap 1e20 s (LP had no optimum, exit 1)") << "hap" << QByteArray("1e20") << kTimeRange + " (";
        QTest::newRow("uniform 1e300 s (a 1e302 s plan)") << "uniform" << QByteArray("1e300") << kTimeRange + " (";
        QTest::newRow("poplar 1e308 s (512 samples of 32)") << "poplar" << QByteArray("1e308") << kTimeRange + " (";
        QTest::newRow("poplar subnormal (spline error)") << "poplar" << QByteArray("5e-324") << QString("subnormal");
        QTest::newRow("hap 1 ps, below a clock cycle") << "hap" << QByteArray("1e-12") << kTimeRange + " (";
        QTest::newRow("uniform 3 h per layer") << "uniform" << QByteArray("\"3 h\"") << kTimeRange + " (";
    }
    void profileTimesOutsideTheirRangeAreRefused()
    {
        QFETCH(QString, planner);
        QFETCH(QByteArray, time);
        QFETCH(QString, reason);
        const CliResult r = planWithProfile(planner, time);
        QCOMPARE(r.exitCode, 2);
        const QString line = errorLine(r);
        QVERIFY2(line.contains(".json: tables[0].layers[0].forward: ") && line.contains(reason), qPrintable(r.err));
    }

    // The value is printed compactly: "got 1e+308", not 309 digits.
    void theRefusedValueIsShort()
    {
        const CliResult r = planWithProfile("uniform", "1e308");
        QVERIFY2(errorLine(r).endsWith("got 1e+308") && errorLine(r).size() < 300, qPrintable(r.err));
        const CliResult b = runCli(kUniform + QStringList{"--budget", "1e308"});
        QCOMPARE(b.exitCode, 2);
        QVERIFY2(errorLine(b).endsWith("got 1e+308") && errorLine(b).size() < 300, qPrintable(b.err));
        // A planner's count in a message: ditto folds T4s 1e13 times slower than the V100s into virtual GPUs,
        // whose search has about 7.6e19 states, shown as such rather than in twenty digits.
        const QString profile = writeText(dir, "mixed.json", profileText(26, {{"V100-16GB", "1e-9"}, {"T4", "1e4"}}));
        const CliResult d = runCli({"plan", "--cluster", "example:amp-het-cluster", "--model", "example:gpt2-amp",
                                    "--gbs", "64", "--planner", "ditto", "--profile", profile, "--quiet"});
        QCOMPARE(d.exitCode, 2);
        QVERIFY2(errorLine(d).contains(QRegularExpression("has \\d\\.\\d+e\\+19 states")) &&
                     !errorLine(d).contains(QRegularExpression("\\d{16}")),
                 qPrintable(d.err));
        // The objective's own figures: a budget in a plan file's selection is shown in a few characters.
        Objective o;
        o.budgetDollarsPerHour = 1e300;
        QCOMPARE(describe(o), std::string("fastest within $1e+300/h"));
        QCOMPARE(messageNumber(99999999999999983616.0), std::string("1e+20"));
        QCOMPARE(messageNumber(12345678), std::string("12345678"));
    }

    // The ends of the range are real inputs: planned (exit 0), with a finite time.
    void timesAtTheEndsOfTheRangeArePlanned_data()
    {
        QTest::addColumn<QString>("planner");
        QTest::addColumn<QByteArray>("time");
        for (const char* planner : {"hap", "uniform", "poplar"})
            for (const char* time : {"1e-9", "1e4"})
                QTest::addRow("%s %s s", planner, time) << QString(planner) << QByteArray(time);
    }
    void timesAtTheEndsOfTheRangeArePlanned()
    {
        QFETCH(QString, planner);
        QFETCH(QByteArray, time);
        const CliResult r = planWithProfile(planner, time);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    }

    // CSV cells: the line and column are named, and the range is checked in seconds after the ms unit.
    void csvCellsAreBoundedWhereTheyAre()
    {
        const QString csv = writeText(dir, "huge.csv",
                                      "device,tp,micro_batch,layer,forward_ms,backward_ms\n"
                                      "T4,1,1,0,1e23,3\n");
        const CliResult r = runCli({"import", "--in", csv, "--out", dir.filePath("huge.json")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(errorLine(r) == "error: " + csv + ": line 2: forward_ms: " + kTimeRange +
                                     " (one layer on one micro-batch: under 1 ns is below one GPU clock cycle, "
                                     "over 10000 s is a unit mistake), got 1e+20",
                 qPrintable(r.err));
        const QString bytes = writeText(dir, "bytes.csv",
                                        "device,tp,micro_batch,layer,forward_ms,backward_ms,activation_bytes\n"
                                        "T4,1,1,0,1,2,0.5\n");
        const CliResult b = runCli({"import", "--in", bytes, "--out", dir.filePath("bytes.json")});
        QCOMPARE(b.exitCode, 2);
        QVERIFY2(errorLine(b).contains("line 2: activation_bytes: must be 0 or between 1 and 1e+15 B"),
                 qPrintable(b.err));
    }

    // A node's price: 1e308 used to cost "$inf/h" and meet every cost goal; 0 and a subnormal are no prices.
    void pricesAreBounded_data()
    {
        QTest::addColumn<QByteArray>("price");
        QTest::addColumn<QString>("reason");
        const QString range = "price_per_gpu_hour: must be between 0.0001 and 10000 US dollars per GPU-hour";
        QTest::newRow("1e308") << QByteArray("1e308") << range;
        QTest::newRow("20000") << QByteArray("20000") << range;
        QTest::newRow("zero") << QByteArray("0") << range;
        QTest::newRow("negative") << QByteArray("-1") << range;
        QTest::newRow("subnormal") << QByteArray("5e-324") << QString("price_per_gpu_hour: a subnormal number");
    }
    void pricesAreBounded()
    {
        QFETCH(QByteArray, price);
        QFETCH(QString, reason);
        const QString cluster = writeText(
            dir, "priced.json",
            R"({"name":"c","nodes":[{"name":"a","device":"T4","gpus":4,"nic_bandwidth":"50 Gbps","price_per_gpu_hour":)" +
                price + "}]}");
        const CliResult r = runCli({"plan", "--cluster", cluster, "--model", "example:gpt2-amp", "--planner",
                                    "uniform", "--objective", "cost", "--quiet"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(errorLine(r).startsWith("error: " + cluster + ": nodes[0]." + reason), qPrintable(r.err));
    }

    // The other bounded inputs: bandwidths, a device's fields, a model's layer, and the goal flags.
    void otherRangesAreNamed_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("reason");
        QTest::newRow("budget") << QStringList{"--budget", "2e10"}
                                << "--budget: argument: must be 0 or between 0.0001 and 1e+10 US dollars per hour";
        QTest::newRow("negative budget") << QStringList{"--budget", "-1"}
                                         << "--budget: argument: must be 0 or between 0.0001 and 1e+10";
        QTest::newRow("floor") << QStringList{"--min-throughput", "1e13"}
                               << "--min-throughput: argument: must be 0 or between 0.001 and 1e+12 tokens/s";
    }
    void otherRangesAreNamed()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, reason);
        const CliResult r = runCli(kUniform + args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(errorLine(r).startsWith("error: " + reason), qPrintable(r.err));
    }

    void modelAndClusterFieldsAreBounded_data()
    {
        QTest::addColumn<QString>("what");
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("reason");
        QTest::newRow("forward flops 1e300")
            << "model" << QByteArray(R"({"name":"m","layers":[{"params":1e6,"forward_flops":1e300}]})")
            << "layers[0].forward_flops: must be between 0 and 1e+21";
        QTest::newRow("matmul 1e300")
            << "model"
            << QByteArray(R"({"name":"m","layers":[{"params":1e6,"forward_flops":1e9,"matmuls":[{"m":1e300,"n":1,"k":1}]}]})")
            << "layers[0].matmuls[0]: m, n, k and batch must be positive and at most 1000000000";
        QTest::newRow("nic 1 B/s") << "cluster"
                                   << QByteArray(R"({"name":"c","nodes":[{"name":"a","device":"T4","gpus":4,)"
                                                 R"("nic_bandwidth":"8 bps"}]})")
                                   << "nodes[0].nic_bandwidth: must be between 1000 and 1e+15 B/s";
    }
    void modelAndClusterFieldsAreBounded()
    {
        QFETCH(QString, what);
        QFETCH(QByteArray, json);
        QFETCH(QString, reason);
        const QString file = writeText(dir, what + ".json", json);
        const QString cluster = what == "cluster" ? file : "example:amp-het-cluster";
        const QString model = what == "model" ? file : "example:gpt2-amp";
        const CliResult r = runCli({"plan", "--cluster", cluster, "--model", model, "--planner", "uniform", "--quiet"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(errorLine(r).startsWith("error: " + file + ": " + reason), qPrintable(r.err));
    }

    // The one number rule, as a table of spellings.
    void numberRule_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("decimal");
        QTest::addColumn<bool>("whole");
        QTest::newRow("5") << "5" << true << true;
        QTest::newRow("-5") << "-5" << true << true;
        QTest::newRow("+5") << "+5" << true << true;
        QTest::newRow("0.5") << "0.5" << true << false;
        QTest::newRow(".5") << ".5" << true << false;
        QTest::newRow("5.") << "5." << true << false;
        QTest::newRow("1e3") << "1e3" << true << false;
        QTest::newRow("2.5E-3") << "2.5E-3" << true << false;
        QTest::newRow("1e+308") << "1e+308" << true << false;
        QTest::newRow("empty") << "" << false << false;
        QTest::newRow("space before") << " 5" << false << false;
        QTest::newRow("space after") << "5 " << false << false;
        QTest::newRow("tab before") << "\t5" << false << false;
        QTest::newRow("newline after") << "5\n" << false << false;
        QTest::newRow("hex") << "0x10" << false << false;
        QTest::newRow("hex upper") << "0X1p4" << false << false;
        QTest::newRow("inf") << "inf" << false << false;
        QTest::newRow("nan") << "nan" << false << false;
        QTest::newRow("trailing text") << "5kg" << false << false;
        QTest::newRow("comma") << "1,5" << false << false;
        QTest::newRow("two signs") << "+-5" << false << false;
        QTest::newRow("bare exponent") << "e5" << false << false;
        QTest::newRow("exponent without digits") << "1e" << false << false;
        QTest::newRow("overflow") << "1e400" << false << false;
        QTest::newRow("subnormal") << "5e-324" << false << false;
        QTest::newRow("whole overflow") << "99999999999999999999" << true << false;
    }
    void numberRule()
    {
        QFETCH(QString, text);
        QFETCH(bool, decimal);
        QFETCH(bool, whole);
        QCOMPARE(decimalNumber(text.toStdString()).has_value(), decimal);
        QCOMPARE(wholeNumber(text.toStdString()).has_value(), whole);
    }

    // The same rule on every flag and option that reads a number, and on a quantity in a JSON file.
    void numberRuleOnFlags_data()
    {
        QTest::addColumn<QString>("flag");
        QTest::addColumn<QString>("value");
        QTest::addColumn<int>("exitCode");
        // Each flag with a value it plans with (--option sets uniform's micro-batch size).
        const std::pair<const char*, const char*> flags[] = {{"--budget", "100"},
                                                             {"--min-throughput", "16"},
                                                             {"--time-limit", "16"},
                                                             {"--gbs", "16"},
                                                             {"--option", "2"}};
        for (const auto& [flag, good] : flags) {
            const QString f = flag, g = good;
            auto v = [&](const QString& text) { return f == "--option" ? "mbs=" + text : text; };
            QTest::addRow("%s 0x10", flag) << f << v("0x10") << 2;
            QTest::addRow("%s ' %s'", flag, good) << f << v(" " + g) << 2;
            QTest::addRow("%s '%s '", flag, good) << f << v(g + " ") << 2;
            QTest::addRow("%s inf", flag) << f << v("inf") << 2;
            QTest::addRow("%s %sabc", flag, good) << f << v(g + "abc") << 2;
            QTest::addRow("%s %s", flag, good) << f << v(g) << 0;
            QTest::addRow("%s +%s", flag, good) << f << v("+" + g) << 0;
        }
    }
    void numberRuleOnFlags()
    {
        QFETCH(QString, flag);
        QFETCH(QString, value);
        QFETCH(int, exitCode);
        const CliResult r = runCli(kUniform + QStringList{flag, value, "--out", dir.filePath("rule.json")});
        QVERIFY2(r.exitCode == exitCode, qPrintable(flag + " '" + value + "': " + r.err));
        if (exitCode == 2)
            QVERIFY2(errorLine(r).startsWith("error: --" + flag.mid(2)) || errorLine(r).startsWith("error: options:"),
                     qPrintable(r.err));
    }

    void numberRuleOnQuantities_data()
    {
        QTest::addColumn<QString>("bandwidth");
        QTest::addColumn<int>("exitCode");
        QTest::newRow("plain") << "50 Gbps" << 0;
        QTest::newRow("no space") << "50Gbps" << 0;
        QTest::newRow("space before") << " 50 Gbps" << 2;
        QTest::newRow("space after") << "50 Gbps " << 2;
        QTest::newRow("hex") << "0x10 Gbps" << 2;
        QTest::newRow("inf") << "inf Gbps" << 2;
    }
    void numberRuleOnQuantities()
    {
        QFETCH(QString, bandwidth);
        QFETCH(int, exitCode);
        const QString cluster = writeText(
            dir, "bw.json",
            R"({"name":"c","nodes":[{"name":"a","device":"T4","gpus":4,"nic_bandwidth":)" + ('"' + bandwidth + '"').toUtf8() +
                "}]}");
        const CliResult r = runCli({"plan", "--cluster", cluster, "--model", "example:gpt2-amp", "--planner",
                                    "uniform", "--quiet", "--out", dir.filePath("bw-plan.json")});
        QVERIFY2(r.exitCode == exitCode, qPrintable(r.err));
        if (exitCode == 2)
            QVERIFY2(errorLine(r).startsWith("error: " + cluster + ": nodes[0].nic_bandwidth: "), qPrintable(r.err));
    }

    // A cost that is not finite is no cost: it meets no cost goal or budget and is written as unknown.
    void anInfiniteCostMeetsNoGoal()
    {
        QVERIFY(!costOf({1e308, 1e308}, 1000)); // the sum overflows
        QVERIFY(costOf({2.0, 3.0}, 1000));
        Estimate e;
        e.feasible = true;
        e.iterationSeconds = 1;
        e.tokensPerSecond = 1000;
        e.cost = PlanCost{std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity()};
        Objective cheapest;
        cheapest.goal = Objective::Goal::Cost;
        QCOMPARE(objectiveMiss(cheapest, e).value_or("met"), std::string("has no finite cost"));
        QVERIFY(std::isinf(objectiveValue(cheapest, e)));
        Objective budget;
        budget.budgetDollarsPerHour = 100;
        QVERIFY(objectiveMiss(budget, e));
        // A NaN throughput does not reach a floor.
        Estimate nan = e;
        nan.cost = PlanCost{1, 1};
        nan.tokensPerSecond = std::numeric_limits<double>::quiet_NaN();
        Objective floor;
        floor.minTokensPerSecond = 100;
        QVERIFY(objectiveMiss(floor, nan));
    }

    void anInfiniteCostIsWrittenAsUnknown()
    {
        const QString out = dir.filePath("priced-plan.json");
        const CliResult r = runCli(kUniform + QStringList{"--out", out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        Plan plan = readPlan(out.toStdString());
        plan.estimate.cost = PlanCost{std::numeric_limits<double>::infinity(), 5};
        plan.estimate.unpricedDeviceTypes.clear();
        const QJsonObject cost = toJson(plan)["estimate"].toObject()["cost"].toObject();
        QVERIFY(cost["dollars_per_hour"].isNull());
        QCOMPARE(cost["unknown_because"].toString(), QString("the cost is not a finite number of dollars"));
    }

    // Inputs within range may still leave CLP without an optimum: that is no plan (InfeasibleError, exit 3),
    // not an internal error (exit 1).
    void anLpWithoutOptimumIsNoPlan()
    {
        const std::vector<hap::DeviceClass> classes = {{"a", 1, 1e12}, {"b", 1, 1e12}};
        hap::CostTerms terms;
        terms.groups.push_back({0, {std::numeric_limits<double>::quiet_NaN(), 1e300}, {0, 0}});
        bool infeasible = false;
        try {
            hap::optimalRatios(terms, classes, 1);
        } catch (const InfeasibleError& e) {
            infeasible = std::string(e.what()).find("found no optimum") != std::string::npos;
        }
        QVERIFY(infeasible);
    }
};

QTEST_GUILESS_MAIN(TestInputRanges)
#include "tst_input_ranges.moc"
