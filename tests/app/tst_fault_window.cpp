// Fault tests of the desktop app: a cancel in the middle of every planner leaves
// whole runs in the project (each result a finished plan or a reason, and the project saves and loads back
// equal); a damaged project file is refused with a message and the open project stays; and the headless
// `hetplan --save-project FILE` writes a project a script can use.
#include "testutil.h"

#include "app/gui/main_window.h"
#include "core/io/examples.h"
#include "core/io/project_store.h"
#include "core/planners/planner.h"
#include "widgets/controller/project_document.h"
#include "widgets/controller/run_controller.h"

#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace hetplan;

namespace {

struct Case {
    std::string cluster, model;
    int globalBatch;
};

// An example each planner can plan (oobleck needs a homogeneous cluster; HAP and its data-parallel
// baselines an SPMD graph model).
Case caseFor(const std::string& planner)
{
    if (planner == "oobleck")
        return {"amp-homogeneous", "gpt2-amp", 32};
    if (planner == "hap" || planner == "dp-even" || planner == "dp-proportional")
        return {"hap-testbed", "vgg19-cifar", 256};
    return {"amp-het-cluster", "gpt2-amp", 32};
}

// A result is whole: a finished plan (its own search may say it stopped early) or no plan and a reason.
void checkWholeResult(const RunResult& r, const std::string& planner)
{
    QCOMPARE(r.planner, planner);
    const std::vector<RunStatus> statuses{RunStatus::Ok, RunStatus::Cancelled, RunStatus::Infeasible};
    QVERIFY2(std::find(statuses.begin(), statuses.end(), r.status) != statuses.end(), toString(r.status).c_str());
    if (r.plan) {
        r.plan->validate("plan"); // throws on a half-made plan
        QVERIFY(r.plan->estimate.iterationSeconds > 0);
        QCOMPARE(r.status == RunStatus::Cancelled, r.plan->search.stopped == StopReason::Cancelled);
    } else {
        QVERIFY(r.status != RunStatus::Ok);
        QVERIFY(!r.message.empty());
    }
}

void checkSavesAndLoadsBack(const Project& project, const QTemporaryDir& dir, const std::string& name)
{
    const std::string path = dir.filePath(QString::fromStdString(name + ".hetplan")).toStdString();
    saveProject(project, path);
    QVERIFY(loadProject(path) == project);
}

std::vector<std::string> allPlanners()
{
    return PlannerRegistry::instance().names();
}

} // namespace

class TestFaultWindow : public QObject {
    Q_OBJECT
    QTemporaryDir dir;

private slots:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName("hetplan-tests");
        QCoreApplication::setApplicationName("tst_fault_window");
        QVERIFY(dir.isValid());
        QVERIFY(allPlanners().size() >= 16);
    }

    void cancelAtTheFirstProgressReport_data()
    {
        QTest::addColumn<QString>("planner");
        for (const std::string& p : allPlanners())
            QTest::newRow(p.c_str()) << QString::fromStdString(p);
    }

    // Deterministic: the cancel comes from inside the search, at its first progress report, so every
    // planner is stopped in the middle. Its result goes into a project as the Run tab adds it.
    void cancelAtTheFirstProgressReport()
    {
        QFETCH(QString, planner);
        const std::string name = planner.toStdString();
        const Case c = caseFor(name);
        PlanRequest req;
        req.cluster = exampleCluster(c.cluster);
        req.model = buildExampleModel(c.model);
        req.job.globalBatchSize = c.globalBatch;
        req.job.sequenceLength = req.model.arch.sequence > 0 ? req.model.arch.sequence : req.job.sequenceLength;
        Progress* self = nullptr;
        int reports = 0;
        Progress progress([&](double, const std::string&) {
            if (++reports == 1)
                self->cancel();
        });
        self = &progress;

        ProjectDocument doc;
        doc.loadExample(c.cluster, c.model);
        Run run;
        run.cluster = doc.cluster()->name;
        run.model = doc.model()->model.name;
        run.job = doc.job()->name;
        run.started = "2026-11-26T12:00:00Z";
        const int runId = doc.addRun(run);
        RunResult result;
        result.planner = name;
        try {
            result.plan = runPlanner(name, req, progress);
            result.status = result.plan->search.stopped == StopReason::Cancelled ? RunStatus::Cancelled : RunStatus::Ok;
        } catch (const CancelledError& e) {
            result.status = RunStatus::Cancelled;
            result.message = e.what();
        } catch (const InfeasibleError& e) {
            result.status = RunStatus::Infeasible;
            result.message = e.what();
        }
        QVERIFY2(reports >= 1, "the planner reported no progress: nothing was cancelled mid-search");
        doc.addRunResult(runId, result);
        checkWholeResult(doc.run(runId)->results.at(0), name);
        if (QTest::currentTestFailed())
            return;
        qInfo("%s: %s%s", name.c_str(), toString(result.status).c_str(),
              result.plan ? " (best plan so far kept)" : "");
        checkSavesAndLoadsBack(doc.project(), dir, "first-report-" + name);
    }

    void cancelWhileTheRunTabRuns_data() { cancelAtTheFirstProgressReport_data(); }

    // Through the main window: cancel when the planner's first progress reaches the GUI. A fast search may
    // have finished by then; either way the project holds one whole result and saves and loads back.
    void cancelWhileTheRunTabRuns()
    {
        QFETCH(QString, planner);
        const std::string name = planner.toStdString();
        const Case c = caseFor(name);
        MainWindow w;
        w.setInteractive(false);
        w.openExample(c.cluster, c.model);
        NamedJob job = *w.document()->job();
        job.job.globalBatchSize = c.globalBatch;
        w.document()->setJob(job);
        const size_t runsBefore = w.document()->project().runs.size();
        QSignalSpy finished(&w, &MainWindow::runFinished);
        connect(w.runner(), &RunController::progress, &w, [&w, planner](double f, const QString& text) {
            if (f < 1 && text.startsWith(planner + ":"))
                w.runner()->cancel();
        });
        QVERIFY(w.runPlanners({name}));
        QVERIFY(finished.wait(test::kHangGuardMs));
        const Project& project = w.document()->project();
        QCOMPARE(project.runs.size(), runsBefore + 1);
        QCOMPARE(project.runs.back().results.size(), size_t(1));
        checkWholeResult(project.runs.back().results[0], name);
        if (QTest::currentTestFailed())
            return;
        qInfo("%s: %s", name.c_str(), toString(project.runs.back().results[0].status).c_str());
        checkSavesAndLoadsBack(project, dir, "run-tab-" + name);
    }

    void damagedProjectIsRefusedAndTheOpenOneStays()
    {
        MainWindow w;
        w.setInteractive(false);
        w.openExample("amp-het-cluster", "gpt2-amp");
        const Project before = w.document()->project();
        const std::string good = dir.filePath("whole.hetplan").toStdString();
        saveProject(before, good);
        QFile f(QString::fromStdString(good));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray cut = f.read(f.size() / 2);
        const QString truncated = dir.filePath("cut.hetplan");
        QFile out(truncated);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(cut);
        out.close();

        w.openFile(truncated);
        QVERIFY(w.lastMessageIsError());
        QVERIFY2(w.lastMessage().contains("is truncated"), qPrintable(w.lastMessage()));
        QVERIFY(w.document()->project() == before);
        QVERIFY(out.open(QIODevice::ReadOnly));
        QCOMPARE(out.readAll(), cut);
    }

    // The headless save: hetplan opens an example, runs a planner and saves the project, with no window
    // on screen (offscreen platform) and no dialog.
    void saveProjectFromTheCommandLine()
    {
        const QString project = dir.filePath("scripted.hetplan");
        QProcess p;
        p.start(QStringLiteral(HETPLAN_GUI), {"--example", "amp-het-cluster:gpt2-amp", "--run", "uniform",
                                              "--save-project", project});
        QVERIFY(p.waitForFinished(test::kHangGuardMs));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        const Project saved = loadProject(project.toStdString());
        QCOMPARE(saved.clusters.size(), size_t(1));
        QCOMPARE(saved.clusters[0].name, exampleCluster("amp-het-cluster").name);
        QCOMPARE(saved.models.size(), size_t(1));
        QCOMPARE(saved.runs.size(), size_t(1));
        QCOMPARE(saved.runs[0].results.size(), size_t(1));
        QCOMPARE(saved.runs[0].results[0].planner, std::string("uniform"));
        QVERIFY(saved.runs[0].results[0].plan);

        // A place it cannot save to: exit 1, one error line, nothing written.
        const QString nowhere = dir.filePath("no-such-dir/p.hetplan");
        QProcess bad;
        bad.start(QStringLiteral(HETPLAN_GUI), {"--example", "amp-het-cluster:gpt2-amp", "--save-project", nowhere});
        QVERIFY(bad.waitForFinished(test::kHangGuardMs));
        QCOMPARE(bad.exitCode(), 1);
        // (Qt's own platform notes may share stderr; the error is one line of its own.)
        const QStringList errors =
            QString::fromUtf8(bad.readAllStandardError()).split('\n').filter(QRegularExpression("^error: "));
        QCOMPARE(errors.size(), 1);
        QVERIFY2(errors[0].startsWith("error: --save-project: " + nowhere + ": file: cannot be saved"),
                 qPrintable(errors[0]));
        QVERIFY(!QFile::exists(nowhere));
    }
};

QTEST_MAIN(TestFaultWindow)
#include "tst_fault_window.moc"
