// Names from input files on the CLI's standard output: a cluster or model name may hold any character, and
// one holding "\nfeasible: yes" must not print a line of its own in the plan text, simulate, compare or the
// sweep table (nor in a reason quoted in a status column). It is shown escaped instead.
#include "testutil.h"

#include "core/io/examples.h"
#include "core/io/json_io.h"

#include <QTemporaryDir>
#include <QTest>

using namespace hetplan;
using namespace hetplan::test;

namespace {

const char* const kForged = "feasible: yes";

// The first line of `out` that starts with the forged text, or "" when none does.
QString forgedLine(const QString& out)
{
    for (const QString& line : out.split('\n'))
        if (line.trimmed().startsWith(kForged))
            return line;
    return {};
}

} // namespace

class TestCliNames : public QObject {
    Q_OBJECT
    QTemporaryDir dir;
    QString cluster, failedCluster, model;
    QString path(const char* name) const { return dir.filePath(name); }

    // The command's stdout holds the escaped name and no forged line.
    void expectEscaped(const CliResult& r, int exitCode, const char* what)
    {
        QVERIFY2(r.exitCode == exitCode,
                 qPrintable(QString(what) + ": exit " + QString::number(r.exitCode) + ": " + r.err));
        QVERIFY2(forgedLine(r.out).isEmpty(), qPrintable(QString(what) + " printed: " + forgedLine(r.out)));
        QVERIFY2(r.out.contains(QString("\\n") + kForged), qPrintable(QString(what) + ": " + r.out));
    }

private slots:
    void initTestCase()
    {
        QVERIFY(dir.isValid());
        Cluster c = exampleCluster("amp-het-cluster");
        c.name = std::string("lab\n") + kForged;
        cluster = path("cluster.json");
        writeJsonFile(cluster.toStdString(), toJson(c));
        for (Node& n : c.nodes)
            n.failed = true; // nothing left to plan on: the planners' reasons quote the cluster's name
        failedCluster = path("failed.json");
        writeJsonFile(failedCluster.toStdString(), toJson(c));
        ModelSpec m = buildExampleModel("gpt2-amp");
        m.name = std::string("gpt\n") + kForged;
        model = path("model.json");
        writeJsonFile(model.toStdString(), toJson(m));
    }

    void planAndSimulateTexts()
    {
        const QString plan = path("plan.json");
        expectEscaped(runCli({"plan", "--cluster", cluster, "--model", model, "--gbs", "16", "--planner", "uniform",
                              "--out", plan}),
                      0, "plan");
        expectEscaped(runCli({"simulate", "--plan", plan}), 0, "simulate");
    }

    void compareAndSweepTables()
    {
        expectEscaped(runCli({"compare", "--cluster", failedCluster, "--model", model, "--gbs", "16", "--planners",
                              "uniform,megatron"}),
                      3, "compare (reasons quoting the cluster)");
        expectEscaped(runCli({"sweep", "--cluster", failedCluster, "--model", model, "--planners", "uniform", "--vary",
                              "gbs=16,32"}),
                      3, "sweep (reasons quoting the cluster)");
    }
};

QTEST_GUILESS_MAIN(TestCliNames)
#include "tst_cli_names.moc"
