// Hostile names through every exporter. A plan whose planner, node, cluster, model or layer name holds shell
// or Python syntax, a newline, a quote, a comma or a NUL is either refused with an InputError or written so
// that the text cannot do anything but what it says: the Megatron launch script passes `bash -n` and, when
// run (torchrun stubbed), executes no payload; the DeepSpeed launcher module is printable ASCII, compiles
// (`python3 -m py_compile`) and imports without running one; hostfile lines stay "host slots=N";
// rank-table rows keep four columns; JSON outputs parse. The readers refuse such planner and node names at
// the door.
#include "testutil.h"

#include "core/base/errors.h"
#include "core/base/names.h"
#include "core/base/quote.h"
#include "core/io/exporters.h"
#include "core/io/json_io.h"
#include "core/planners/planner.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

using namespace hetplan;

namespace {

// Each payload creates the file `marker` if any shell ever runs it.
std::vector<std::string> payloads(const std::string& marker)
{
    return {"x\ntouch " + marker,
            "$(touch " + marker + ")",
            "`touch " + marker + "`",
            "x'; touch " + marker + "; echo '",
            "x\"; touch " + marker + "; echo \"",
            "x; touch " + marker,
            "x && touch " + marker,
            std::string("x\0touch ", 8) + marker,
            "x y",
            "x,y",
            "-x",
            "x\x1b[31m",
            "x\r\nslots=99",
            // Python: closing the string literal, a backslash before the quote, triple quotes, a newline.
            "x'); __import__('os').system('touch " + marker + "'); ('",
            "x\"); __import__('os').system('touch " + marker + "'); (\"",
            "x\\'); __import__('os').system('touch " + marker + "') #",
            "x'''\n__import__('os').system('touch " + marker + "')\n'''",
            "x\n__import__('os').system('touch " + marker + "')"};
}

// Where a payload is put: the parts of a plan that come from input files.
enum class Place { Planner, NodeName, ClusterName, ModelName, LayerName };
const char* placeName(Place p)
{
    switch (p) {
    case Place::Planner: return "planner";
    case Place::NodeName: return "node";
    case Place::ClusterName: return "cluster";
    case Place::ModelName: return "model";
    case Place::LayerName: return "layer";
    }
    return "?";
}

Plan withPayload(Plan plan, Place place, const std::string& payload)
{
    switch (place) {
    case Place::Planner: plan.planner = payload; break;
    case Place::NodeName: plan.cluster.nodes[0].name = payload; break;
    case Place::ClusterName: plan.cluster.name = payload; break;
    case Place::ModelName: plan.model.name = payload; break;
    case Place::LayerName: plan.model.layers[1].name = payload; break;
    }
    return plan;
}

Plan planWith(const std::string& planner, int gbs)
{
    PlanRequest req;
    req.cluster = test::twoNodeCluster("T4", 2, "T4", 2);
    req.model = buildExampleModel("gpt2-amp");
    req.job.globalBatchSize = gbs;
    Progress progress;
    return runPlanner(planner, req, progress);
}

bool hasControl(const std::string& s)
{
    for (char c : s)
        if ((static_cast<unsigned char>(c) < 0x20 && c != '\n') || c == 0x7f)
            return true;
    return false;
}

} // namespace

class TestExportPayloads : public QObject {
    Q_OBJECT
    QTemporaryDir dir;
    std::string marker;
    QString stubs; // a PATH folder whose torchrun does nothing
    std::vector<Plan> plans;
    int refused = 0, written = 0, scriptsRun = 0;

    // Runs the launch script as a user would (NODE_RANK set, torchrun on the PATH) and checks it ran cleanly
    // without executing anything else.
    void runScript(const std::string& script, const QString& what)
    {
        const QString path = dir.filePath("launch.sh");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(script.data(), qint64(script.size()));
        f.close();
        QProcess syntax;
        syntax.start("bash", {"-n", path});
        QVERIFY(syntax.waitForFinished(test::kHangGuardMs));
        QVERIFY2(syntax.exitCode() == 0, qPrintable(what + ": bash -n: " + syntax.readAllStandardError()));
        QProcess run;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("NODE_RANK", "0");
        env.insert("PATH", stubs + ":" + env.value("PATH"));
        run.setProcessEnvironment(env);
        run.setWorkingDirectory(dir.path());
        run.start("bash", {path});
        QVERIFY(run.waitForFinished(test::kHangGuardMs));
        QVERIFY2(run.exitCode() == 0, qPrintable(what + ": " + run.readAllStandardError()));
        ++scriptsRun;
    }

    // Python modules to compile and import, with what produced them: one python3 process checks them all at
    // the end (its start-up costs most of a second on a busy machine).
    QStringList modules;

    void keepModule(const std::string& module, const QString& what)
    {
        const QString path = dir.filePath(QString("modules/launcher_%1.py").arg(modules.size()));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(module.data(), qint64(module.size()));
        modules.push_back(what);
    }

    // Compiles each module (py_compile) and imports it, which runs its top level; prints the first failure or
    // the module after whose import the marker appeared.
    void runModules()
    {
        const char* driver = "import importlib.util, os, py_compile, sys\n"
                             "folder, marker, n = sys.argv[1], sys.argv[2], int(sys.argv[3])\n"
                             "for i in range(n):\n"
                             "    path = os.path.join(folder, f'launcher_{i}.py')\n"
                             "    try:\n"
                             "        py_compile.compile(path, doraise=True)\n"
                             "        spec = importlib.util.spec_from_file_location(f'launcher_{i}', path)\n"
                             "        m = importlib.util.module_from_spec(spec)\n"
                             "        spec.loader.exec_module(m)\n"
                             "        assert len(m.LAYER_NAMES) > 1\n"
                             "    except Exception as e:\n"
                             "        print(i, type(e).__name__, e)\n"
                             "        sys.exit(1)\n"
                             "    if os.path.exists(marker):\n"
                             "        print(i, 'payload ran')\n"
                             "        sys.exit(1)\n";
        QProcess py;
        py.start("python3", {"-c", driver, dir.filePath("modules"), QString::fromStdString(marker),
                             QString::number(modules.size())});
        QVERIFY(py.waitForFinished(test::kHangGuardMs));
        const QString out = QString::fromUtf8(py.readAllStandardOutput());
        const int failed = out.section(' ', 0, 0).toInt();
        QVERIFY2(py.exitCode() == 0, qPrintable(modules.value(failed) + ": " + out + py.readAllStandardError()));
    }

    static bool printableAscii(const std::string& text)
    {
        return std::all_of(text.begin(), text.end(), [](char c) { return c == '\n' || (c >= 0x20 && c < 0x7f); });
    }

    void checkOutput(const std::string& format, const std::string& text, const QString& what)
    {
        QVERIFY2(!hasControl(text), qPrintable(what + ": control character in the output"));
        if (format == "megatron-launch") {
            runScript(text, what);
        } else if (format == "deepspeed-launcher") {
            QVERIFY2(printableAscii(text), qPrintable(what + ": not printable ASCII"));
            keepModule(text, what);
        } else if (format == "hostfile") {
            static const QRegularExpression line("^[A-Za-z0-9][A-Za-z0-9._-]* slots=[0-9]+$");
            for (const QString& l : QString::fromStdString(text).split('\n', Qt::SkipEmptyParts))
                QVERIFY2(line.match(l).hasMatch(), qPrintable(what + ": hostfile line " + l));
        } else if (format == "rank-table") {
            for (const QString& l : QString::fromStdString(text).split('\n', Qt::SkipEmptyParts))
                QVERIFY2(l.count(',') == 3, qPrintable(what + ": rank-table row " + l));
        } else {
            QJsonParseError err;
            QJsonDocument::fromJson(QByteArray::fromStdString(text), &err);
            QVERIFY2(err.error == QJsonParseError::NoError, qPrintable(what + ": not JSON"));
        }
    }

private slots:
    void initTestCase()
    {
        QVERIFY(dir.isValid());
        marker = dir.filePath("PWNED").toStdString();
        stubs = dir.filePath("bin");
        QVERIFY(QDir().mkpath(stubs));
        QVERIFY(QDir(dir.path()).mkpath("modules"));
        QFile torchrun(stubs + "/torchrun");
        QVERIFY(torchrun.open(QIODevice::WriteOnly));
        torchrun.write("#!/bin/sh\nexit 0\n");
        torchrun.close();
        torchrun.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        // The scripts run in `dir` with MEGATRON_DIR unset (.): a checkout new enough for the layout flag.
        QVERIFY(QDir(dir.path()).mkpath("megatron/core"));
        QFile version(dir.filePath("megatron/core/package_info.py"));
        QVERIFY(version.open(QIODevice::WriteOnly));
        version.write("MAJOR = 0\nMINOR = 13\n__version__ = '0.13.0'\n");
        version.close();
        // A pipeline plan (Megatron, hostfile, rank table) and a ZeRO plan (DeepSpeed's rank batches).
        plans = {planWith("uniform", 8), planWith("data-parallel", 8)};
    }

    void everyExporterRefusesOrNeutralisesPayloads()
    {
        for (const Plan& base : plans)
            for (const ExportFormat& f : ExporterRegistry::instance().formats()) {
                // The unmodified plan exports (or is refused for its shape, never for its names).
                std::string clean;
                try {
                    clean = f.write(base);
                } catch (const InputError&) {
                    continue; // this format does not take this kind of plan
                }
                for (Place place :
                     {Place::Planner, Place::NodeName, Place::ClusterName, Place::ModelName, Place::LayerName})
                    for (const std::string& payload : payloads(marker)) {
                        const QString what = QString("%1 via %2 in %3: %4")
                                                 .arg(QString::fromStdString(f.name), placeName(place),
                                                      QString::fromStdString(base.planner),
                                                      QString::fromStdString(escapeControls(payload)));
                        std::string text;
                        try {
                            text = f.write(withPayload(base, place, payload));
                        } catch (const InputError& e) {
                            ++refused;
                            QVERIFY2(!std::string(e.what()).empty(), qPrintable(what));
                            continue;
                        }
                        ++written;
                        checkOutput(f.name, text, what);
                        if (QTest::currentTestFailed())
                            return;
                        QVERIFY2(!QFile::exists(QString::fromStdString(marker)), qPrintable(what + ": payload ran"));
                    }
            }
        runModules();
        qInfo("%d outputs written and checked (%d launch scripts run, %d Python modules imported), %d refused", written,
              scriptsRun, int(modules.size()), refused);
        QVERIFY(scriptsRun > 0);
        QVERIFY(!modules.isEmpty());
        QVERIFY(refused > 0);
    }

    void readersRefuseNonPlainPlannerAndNodeNames()
    {
        const QJsonObject good = toJson(plans[0]);
        QVERIFY(planFromJson(good, "p.json") == plans[0]);
        // Another tool's planner name loads, as long as it is plain.
        QJsonObject other = good;
        other["planner"] = "metis-1.2_x";
        QCOMPARE(planFromJson(other, "p.json").planner, std::string("metis-1.2_x"));
        for (const std::string& payload : payloads(marker)) {
            QJsonObject bad = good;
            bad["planner"] = QString::fromStdString(payload);
            const auto e = test::errorOf([&] { planFromJson(bad, "p.json"); });
            QVERIFY2(e && e->field() == "planner", escapeControls(payload).c_str());

            Cluster c = plans[0].cluster;
            c.nodes[0].name = payload;
            const auto n = test::errorOf([&] { c.validate(DeviceCatalog::builtin(), "c.json"); });
            QVERIFY2(n && n->field() == "nodes[0].name", escapeControls(payload).c_str());
            QVERIFY2(n->reason().find("letters, digits") != std::string::npos, n->reason().c_str());
        }
    }

    void plainNameRule()
    {
        for (const char* ok : {"a", "node-1", "g4dn.12xlarge_0", "A100x8", "0node"})
            QVERIFY2(isPlainName(ok), ok);
        for (const char* bad : {"", "-a", ".a", "_a", "a b", "a/b", "a,b", "a:b", "a=b", "é"})
            QVERIFY2(!isPlainName(bad), bad);
        QVERIFY(isPlainName(std::string(253, 'a')));
        QVERIFY(!isPlainName(std::string(254, 'a')));
    }
};

QTEST_GUILESS_MAIN(TestExportPayloads)
#include "tst_export_payloads.moc"
