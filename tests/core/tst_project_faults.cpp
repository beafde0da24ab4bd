// Fault tests of the project file: saves killed with SIGKILL at random points leave a
// whole project behind; truncated, random, foreign and newer files are refused with a clear message and
// never modified (no byte, no timestamp, no side file); WAL-mode files and stale journals left by other
// programs are read without side files or explained.
#include "project_store_fixtures.h"

#include <QDir>
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>

#include <sqlite3.h>

#include <csignal>
#include <random>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace hetplan;
using namespace hetplan::test::projectstore;

namespace {

// Everything in `dir`, to check that reading a file created nothing beside it.
QStringList listing(const QTemporaryDir& dir)
{
    return QDir(dir.path()).entryList(QDir::Files | QDir::Hidden | QDir::System, QDir::Name);
}

struct FileState {
    QByteArray hash;
    timespec modified{};
};

FileState stateOf(const std::string& path)
{
    struct stat st {};
    ::stat(path.c_str(), &st);
    return {sha(path), st.st_mtim};
}

bool sameState(const FileState& a, const FileState& b)
{
    return a.hash == b.hash && a.modified.tv_sec == b.modified.tv_sec && a.modified.tv_nsec == b.modified.tv_nsec;
}

// A child that saves `a` and `b` to `path` alternately, for ever, after telling the parent it started.
[[noreturn]] void saveForever(const Project& a, const Project& b, const std::string& path, int startedFd)
{
    const char started = 1;
    if (::write(startedFd, &started, 1) != 1)
        ::_exit(3);
    for (unsigned k = 0;; ++k) {
        try {
            saveProject(k % 2 ? b : a, path);
        } catch (...) {
            ::_exit(2); // a save that fails on its own is a test failure (the parent sees the exit)
        }
    }
}

} // namespace

class TestProjectFaults : public QObject {
    Q_OBJECT
    QTemporaryDir dir;
    Project sample;
    std::string path(const char* name) { return dir.filePath(name).toStdString(); }

private slots:
    void initTestCase()
    {
        QVERIFY(dir.isValid());
        sample = sampleProject();
    }

    void killedSavesLeaveAWholeProject()
    {
        // 60 child processes each save two different projects in turn to the same file and are killed
        // (SIGKILL: no clean-up, no destructors) after a random delay within a few saves. Whatever the
        // moment, the file must load as one of the two projects: the previous one or the new one in full.
        QTemporaryDir killDir;
        QVERIFY(killDir.isValid());
        const std::string p = killDir.filePath("killed.hetplan").toStdString();
        Project other = sample;
        other.jobs.pop_back();
        other.runs.pop_back();
        saveProject(sample, p);

        QElapsedTimer timer;
        timer.start();
        for (int i = 0; i < 4; ++i)
            saveProject(i % 2 ? sample : other, p);
        const qint64 saveMicros = std::max<qint64>(timer.nsecsElapsed() / 4000, 200);

        std::mt19937 rng(16);
        // The kill comes within `window` of the child's start. A forked child's first save can take longer
        // than the parent's warm ones (copy-on-write faults, a loaded CI machine); when ten rounds in a row
        // never got past a rename, the window doubles so that the kills still spread over whole saves.
        qint64 window = 3 * saveMicros;
        int kills = 0, midSave = 0, previous = 0, replaced = 0;
        for (int round = 0; round < 60; ++round) {
            if (round % 10 == 9 && replaced == 0)
                window *= 2;
            std::uniform_int_distribution<qint64> delay(0, window);
            int fds[2];
            QVERIFY(::pipe(fds) == 0);
            const Project before = loadProject(p);
            const pid_t pid = ::fork();
            QVERIFY(pid >= 0);
            if (pid == 0) {
                ::close(fds[0]);
                saveForever(round % 2 ? sample : other, round % 2 ? other : sample, p, fds[1]);
            }
            ::close(fds[1]);
            char started = 0;
            QCOMPARE(::read(fds[0], &started, 1), ssize_t(1));
            ::close(fds[0]);
            ::usleep(useconds_t(delay(rng)));
            QCOMPARE(::kill(pid, SIGKILL), 0);
            int status = 0;
            QCOMPARE(::waitpid(pid, &status, 0), pid);
            QVERIFY2(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "the child stopped before the kill");
            ++kills;

            const Project after = loadProject(p); // throws (fails the test) if the file does not open
            QVERIFY2(after == sample || after == other, "a killed save left a project that was never saved");
            (after == before ? previous : replaced) += 1;
            const QStringList leftovers = tempFiles(killDir.path());
            midSave += leftovers.isEmpty() ? 0 : 1;
            for (const QString& f : leftovers) // a crash may leave its temporary copy; it is never read
                QVERIFY(QFile::remove(killDir.filePath(f)));
        }
        qInfo("%d kills (random delay 0..%lld us at the end, one save %lld us): %d inside a save, file kept %d "
              "times, replaced %d times",
              kills, window, saveMicros, midSave, previous, replaced);
        QVERIFY(kills >= 50);
        // The kills spread over the whole save cycle: inside a save (its temporary file is left), and both
        // before and after the rename. Each count below fails only if the kill points were not random.
        QVERIFY2(midSave >= kills / 6, "too few kills landed inside a save to test anything");
        QVERIFY(previous >= 1);
        QVERIFY(replaced >= 1);
    }

    void damagedFilesAreRefusedAndUntouched_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("reason"); // a part of the message the user sees

        const std::string good = path("good-source.hetplan");
        saveProject(sample, good);
        const QByteArray bytes = readAll(good);
        QVERIFY(bytes.size() > 3 * 4096);
        QTest::newRow("truncated to 50 bytes") << bytes.left(50) << "is truncated: 50 bytes, shorter than the header";
        QTest::newRow("truncated to the header") << bytes.left(100) << "is truncated: 100 bytes";
        QTest::newRow("truncated to one page") << bytes.left(4096) << "is truncated: 4096 bytes, its header says";
        QTest::newRow("truncated inside a page") << bytes.left(bytes.size() - 1000) << "is truncated";
        QTest::newRow("last page cut") << bytes.left(bytes.size() - 4096) << "is truncated";

        QByteArray noise(40000, '\0');
        std::mt19937 rng(7);
        for (char& c : noise)
            c = char(rng());
        QTest::newRow("random bytes") << noise << "not a database";
        QByteArray noisyHeader = QByteArray("SQLite format 3", 16) + noise.left(8000);
        QTest::newRow("random bytes behind an SQLite header") << noisyHeader << "";

        const std::string foreign = path("foreign-source.db");
        sql(foreign, "PRAGMA application_id = 1196444237; CREATE TABLE notes(id INTEGER PRIMARY KEY, text TEXT);");
        QTest::newRow("foreign application_id") << readAll(foreign) << "not a hetplan project";

        for (int version : {2, 1000}) {
            const std::string newer = path("newer-source.hetplan");
            saveProject(sample, newer);
            sql(newer, "PRAGMA user_version = " + std::to_string(version) + ";");
            QTest::newRow(qPrintable(QString("newer user_version %1").arg(version)))
                << readAll(newer) << QString("made by a newer hetplan (schema %1 > 1)").arg(version);
            QFile::remove(QString::fromStdString(newer));
        }
        // Only the app's own schema is read, and it is checked before any row is: a generated column could
        // make every read build a 900 MB value, a trigger or view run SQL. Each file is resealed, so only
        // the schema check stands between it and the row readers.
        const std::pair<const char*, const char*> schemas[] = {
            {"generated zeroblob column",
             "ALTER TABLE clusters ADD COLUMN pad BLOB GENERATED ALWAYS AS (zeroblob(10000000)) VIRTUAL;"},
            {"extra table", "CREATE TABLE notes(id INTEGER PRIMARY KEY, text TEXT);"},
            {"trigger", "CREATE TRIGGER t AFTER INSERT ON jobs BEGIN DELETE FROM runs; END;"},
            {"view", "CREATE VIEW v AS SELECT * FROM clusters;"},
            {"extra index", "CREATE INDEX extra ON runs(started);"},
            {"changed column", "ALTER TABLE jobs ADD COLUMN note TEXT;"},
            {"dropped index", "DROP INDEX runs_by_id;"},
        };
        for (const auto& [name, change] : schemas) {
            const std::string crafted = path("crafted-source.hetplan");
            saveProject(sample, crafted);
            sql(crafted, change, true);
            QTest::newRow(name) << readAll(crafted) << QString("hetplan");
            QFile::remove(QString::fromStdString(crafted));
        }
        QFile::remove(QString::fromStdString(good));
        QFile::remove(QString::fromStdString(foreign));
    }

    void foreignSchemaIsNamed()
    {
        const std::string crafted = path("crafted.hetplan");
        saveProject(sample, crafted);
        sql(crafted, "CREATE TRIGGER wipe AFTER INSERT ON jobs BEGIN DELETE FROM runs; END;", true);
        expectRefused(crafted, "schema", "not the schema hetplan writes: unexpected trigger \"wipe\"");
        QFile::remove(QString::fromStdString(crafted));
    }

    void abandonedTempFilesAreRemovedBySave()
    {
        // A save killed before its rename leaves "<file>.tmp-XXXXXX"; the next save removes it, but never a
        // copy another save is still writing (it holds a lock on it), nor a file that merely looks similar.
        QTemporaryDir own;
        QVERIFY(own.isValid());
        const std::string p = own.filePath("p.hetplan").toStdString();
        saveProject(sample, p);
        const QString abandoned = own.filePath("p.hetplan.tmp-abc123");
        const QString inUse = own.filePath("p.hetplan.tmp-zzz999");
        const QString lookalike = own.filePath("p.hetplan.tmp-keepme1");
        const QString otherFile = own.filePath("q.hetplan.tmp-abc123");
        for (const QString& f : {abandoned, inUse, lookalike, otherFile})
            writeAll(f.toStdString(), "partial");
        const int held = ::open(inUse.toLocal8Bit().constData(), O_RDONLY);
        QVERIFY(held >= 0);
        QCOMPARE(::flock(held, LOCK_EX), 0);
        saveProject(sample, p);
        ::close(held);
        QVERIFY(!QFile::exists(abandoned));
        QVERIFY(QFile::exists(inUse));
        QVERIFY(QFile::exists(lookalike));
        QVERIFY(QFile::exists(otherFile));
        QVERIFY(loadProject(p) == sample);
    }

    void damagedFilesAreRefusedAndUntouched()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, reason);
        QTemporaryDir own; // its own directory, so any side file would show in the listing
        QVERIFY(own.isValid());
        const std::string p = own.filePath("damaged.hetplan").toStdString();
        writeAll(p, bytes);
        ::usleep(2000); // a rewrite after this would show in the modification time
        const FileState before = stateOf(p);
        const QStringList filesBefore = listing(own);

        try {
            loadProject(p);
            QFAIL("a damaged file was loaded");
        } catch (const InputError& e) {
            QCOMPARE(QString::fromStdString(e.file()), QString::fromStdString(p));
            QVERIFY2(!e.reason().empty() && e.reason().find("readonly") == std::string::npos, e.what());
            QVERIFY2(QString::fromStdString(e.reason()).contains(reason), e.what());
        }
        const ProjectInfo info = probeProject(p);
        QVERIFY(!info.ok);
        QVERIFY(!info.reason.empty());
        QVERIFY(sameState(stateOf(p), before));
        QCOMPARE(listing(own), filesBefore);
    }

    void walModeProjectOpensWithoutSideFiles()
    {
        QTemporaryDir own;
        QVERIFY(own.isValid());
        const std::string p = own.filePath("wal.hetplan").toStdString();
        saveProject(sample, p);
        sql(p, "PRAGMA journal_mode = WAL;"); // what another tool may do; its close removes -wal and -shm
        QCOMPARE(readAll(p).at(18), char(2));  // the header says WAL
        QCOMPARE(listing(own), QStringList{"wal.hetplan"});
        const FileState before = stateOf(p);

        QVERIFY(loadProject(p) == sample);
        QVERIFY(probeProject(p).ok);
        QCOMPARE(listing(own), QStringList{"wal.hetplan"}); // no -wal, no -shm
        QVERIFY(sameState(stateOf(p), before));
    }

    void walChangesNotYetCheckpointedAreExplained()
    {
        QTemporaryDir own;
        QVERIFY(own.isValid());
        const std::string p = own.filePath("walpending.hetplan").toStdString();
        saveProject(sample, p);
        sql(p, "PRAGMA journal_mode = WAL;");
        writeAll(p + "-wal", QByteArray(4096, 'w')); // another program's changes, not in the file yet
        const QStringList filesBefore = listing(own);
        expectRefused(p, "file", "\"walpending.hetplan-wal\" beside it holds changes not yet written into it");
        QCOMPARE(listing(own), filesBefore); // no -shm made
    }

    void staleJournalIsExplained()
    {
        // Another program changed the file in place and was killed before it committed: its rollback
        // journal is hot. hetplan reads read-only, so it says what is there instead of SQLite's "attempt to
        // write a readonly database".
        QTemporaryDir own;
        QVERIFY(own.isValid());
        const std::string p = own.filePath("journal.hetplan").toStdString();
        saveProject(sample, p);
        const pid_t pid = ::fork();
        QVERIFY(pid >= 0);
        if (pid == 0) {
            sqlite3* db = nullptr;
            sqlite3_open(p.c_str(), &db);
            sqlite3_exec(db, "PRAGMA cache_size = 1; BEGIN; UPDATE runs SET started = 'x'; "
                             "UPDATE run_results SET message = hex(randomblob(5000));", nullptr, nullptr, nullptr);
            ::_exit(0); // killed mid-transaction: the journal stays behind, hot
        }
        int status = 0;
        QCOMPARE(::waitpid(pid, &status, 0), pid);
        QVERIFY(QFile::exists(QString::fromStdString(p + "-journal")));
        const QByteArray journal = readAll(p + "-journal");
        const QStringList filesBefore = listing(own);
        const QByteArray fileBefore = sha(p);
        try {
            loadProject(p);
            QFAIL("a file with a hot journal was loaded");
        } catch (const InputError& e) {
            QCOMPARE(e.field(), std::string("file"));
            QVERIFY2(e.reason().find("\"journal.hetplan-journal\" beside it holds the unfinished change") !=
                         std::string::npos,
                     e.what());
        }
        QCOMPARE(sha(p), fileBefore);
        QCOMPARE(readAll(p + "-journal"), journal);
        QCOMPARE(listing(own), filesBefore);
        QVERIFY(!probeProject(p).ok);
    }
};

QTEST_GUILESS_MAIN(TestProjectFaults)
#include "tst_project_faults.moc"
