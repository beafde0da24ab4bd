// The desktop app's batch mode (`hetplan PROJECT --save-project FILE`, `--run`, `--screenshots`) on projects
// the app refuses: every step after a refused open is skipped, the process exits 2 with the reason on stderr,
// and the refused file (and its folder) stay byte for byte as they were. A project the app accepts is opened
// before the run and the save, so the saved file holds its runs plus the new one.
#include "testutil.h"

#include "../core/project_store_fixtures.h"

#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <sys/wait.h>
#include <unistd.h>

using namespace hetplan;
using namespace hetplan::test::projectstore;

namespace {

struct GuiResult {
    int exitCode = -1;
    QString err;
};

GuiResult runGui(const QStringList& args)
{
    QProcess p;
    p.start(QStringLiteral(HETPLAN_GUI), args);
    GuiResult r;
    if (!p.waitForFinished(test::kHangGuardMs)) {
        p.kill();
        p.waitForFinished();
        r.err = "timeout";
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

// Every file in `dir` (side files included) with its bytes.
QMap<QString, QByteArray> contents(const QString& dir)
{
    QMap<QString, QByteArray> files;
    for (const QString& name : QDir(dir).entryList(QDir::Files | QDir::Hidden | QDir::System))
        files[name] = readAll(QDir(dir).filePath(name).toStdString());
    return files;
}

// A hot rollback journal: another program was killed in the middle of a transaction on `path`.
void leaveHotJournal(const std::string& path)
{
    const pid_t pid = ::fork();
    QVERIFY(pid >= 0);
    if (pid == 0) {
        sqlite3* db = nullptr;
        sqlite3_open(path.c_str(), &db);
        sqlite3_exec(db, "PRAGMA cache_size = 1; BEGIN; UPDATE runs SET started = 'x'; "
                         "UPDATE run_results SET message = hex(randomblob(5000));", nullptr, nullptr, nullptr);
        ::_exit(0);
    }
    int status = 0;
    QCOMPARE(::waitpid(pid, &status, 0), pid);
    QVERIFY(QFile::exists(QString::fromStdString(path + "-journal")));
}

// Writes a project the app refuses, of the kind named, to `path`.
void writeRefused(const QString& kind, const std::string& path)
{
    saveProject(sampleProject(), path);
    if (kind == "truncated") {
        writeAll(path, readAll(path).left(4096));
    } else if (kind == "newer schema") {
        sql(path, "PRAGMA user_version = 2;");
    } else if (kind == "bad checksum") {
        sql(path, "UPDATE runs SET started = '2026-01-01T00:00:00Z' WHERE id = 1;"); // not resealed
    } else if (kind == "foreign application id") {
        sql(path, "PRAGMA application_id = 1196444237;");
    } else if (kind == "hot WAL") {
        sql(path, "PRAGMA journal_mode = WAL;");
        writeAll(path + "-wal", QByteArray(4096, 'w'));
    } else if (kind == "hot journal") {
        leaveHotJournal(path);
    } else {
        QFAIL(qPrintable("unknown kind " + kind));
    }
}

} // namespace

class TestBatchMode : public QObject {
    Q_OBJECT

private slots:
    void refusedProjectStopsTheBatch_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("reason"); // a part of the message on stderr
        QTest::newRow("truncated") << "truncated" << "is truncated";
        QTest::newRow("newer schema") << "newer schema" << "made by a newer hetplan";
        QTest::newRow("bad checksum") << "bad checksum" << "checksum";
        QTest::newRow("foreign application id") << "foreign application id" << "not a hetplan project";
        QTest::newRow("hot WAL") << "hot WAL" << "holds changes not yet written into it";
        QTest::newRow("hot journal") << "hot journal" << "journal";
    }
    void refusedProjectStopsTheBatch()
    {
        QFETCH(QString, kind);
        QFETCH(QString, reason);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString project = dir.filePath("mine.hetplan");
        writeRefused(kind, project.toStdString());
        if (QTest::currentTestFailed())
            return;
        const QMap<QString, QByteArray> before = contents(dir.path());
        const QString other = dir.filePath("other.hetplan");
        const QString shots = dir.filePath("shots");
        const QList<QStringList> batches{{project, "--save-project", project},
                                         {project, "--run", "uniform", "--save-project", project},
                                         {project, "--save-project", other},
                                         {project, "--run", "uniform", "--screenshots", shots}};
        for (const QStringList& args : batches) {
            const GuiResult r = runGui(args);
            const QString what = args.mid(1).join(' ');
            QVERIFY2(r.exitCode == 2, qPrintable(QString("%1: exit %2: %3").arg(what).arg(r.exitCode).arg(r.err)));
            QVERIFY2(r.err.contains("error: ") && r.err.contains(reason), qPrintable(what + ": " + r.err));
            QVERIFY2(!r.err.contains("saved to"), qPrintable(r.err));
            QVERIFY2(contents(dir.path()) == before, qPrintable(what + ": the folder changed"));
            QVERIFY(!QFileInfo::exists(shots));
        }
    }

    void refusedExampleStopsTheBatch()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString project = dir.filePath("mine.hetplan");
        saveProject(sampleProject(), project.toStdString());
        const QMap<QString, QByteArray> before = contents(dir.path());
        const GuiResult r = runGui({"--example", "no-such-cluster:gpt2-amp", "--run", "uniform", "--save-project", project});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("error: --example"), qPrintable(r.err));
        QVERIFY(contents(dir.path()) == before);
    }

    void acceptedProjectIsOpenedBeforeTheRunAndTheSave()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString project = dir.filePath("mine.hetplan");
        const Project sample = sampleProject();
        saveProject(sample, project.toStdString());
        const GuiResult r = runGui({project, "--run", "uniform", "--save-project", project});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const Project saved = loadProject(project.toStdString());
        QCOMPARE(saved.clusters.size(), sample.clusters.size());
        QCOMPARE(saved.models.size(), sample.models.size());
        QCOMPARE(saved.runs.size(), sample.runs.size() + 1); // its two runs and the new one
        QCOMPARE(saved.runs.back().results.size(), size_t(1));
        QCOMPARE(saved.runs.back().results[0].planner, std::string("uniform"));
    }
};

QTEST_GUILESS_MAIN(TestBatchMode)
#include "tst_batch_mode.moc"
