// The SQLite project file: save → load round trips, refusal of foreign / damaged / newer files without
// touching them, the 0 → 1 migration on a copy, and atomic saves (failures and a killed process leave the
// previous file byte-identical).
#include "project_store_fixtures.h"

#include "core/base/errors.h"
#include "core/io/examples.h"
#include "core/io/project_store.h"
#include "core/planners/planner.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <sqlite3.h>

#include <csignal>
#include <filesystem>
#include <random>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace hetplan;

using namespace hetplan::test::projectstore;

class TestProjectStore : public QObject {
    Q_OBJECT
    QTemporaryDir dir;
    Project sample;
    std::string path(const char* name) { return dir.filePath(name).toStdString(); }

    std::string savedSample(const char* name)
    {
        const std::string p = path(name);
        saveProject(sample, p);
        return p;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(dir.isValid());
        sample = sampleProject();
        QVERIFY(sample.runs[0].results[0].plan.has_value());
    }

    void cleanup() { testing::setProjectSaveHook({}); }

    void roundTrip()
    {
        const std::string p = savedSample("round.hetplan");
        const Project back = loadProject(p);
        QCOMPARE(back.clusters.size(), sample.clusters.size());
        QVERIFY(back.clusters == sample.clusters);
        QCOMPARE(back.clusters[0].nodes[1].x, 120.5 + 37.25); // canvas positions survive
        QCOMPARE(back.clusters[0].nodes[1].y, -48.125 * 2);
        QVERIFY(back.models == sample.models);
        QCOMPARE(back.models[0].profile.table({"T4", 1, 4})->at(0).forward, 1.0 / 3);
        QVERIFY(back.models[1].profile.empty());
        QVERIFY(back.jobs == sample.jobs);
        QVERIFY(back.runs[0].results[0] == sample.runs[0].results[0]);
        QVERIFY(back.runs[0].results[1] == sample.runs[0].results[1]);
        QVERIFY(!back.runs[0].results[1].plan);
        QVERIFY(back == sample);
        QVERIFY(tempFiles(dir.path()).isEmpty());

        // Saving what was loaded gives the same bytes again (the writer is deterministic).
        const std::string p2 = path("round2.hetplan");
        saveProject(back, p2);
        QCOMPARE(readAll(p2), readAll(p));
    }

    void emptyProject()
    {
        const std::string p = path("empty.hetplan");
        saveProject(Project{}, p);
        QVERIFY(loadProject(p) == Project{});
    }

    // The selection rides in meta rows beside the checksum: it round-trips, files without it (older
    // ones, or saved with none) read as "no selection", and a garbled value only loses that value.
    void selectionRoundTrip()
    {
        const ProjectSelection chosen{"hethub-pair", sample.models[1].model.name, sample.jobs[1].name, 7, 1, std::nullopt};
        const std::string p = path("selected.hetplan");
        saveProject(sample, p, chosen);
        ProjectSelection back;
        QVERIFY(loadProject(p, &back) == sample);
        QVERIFY(back == chosen);

        ProjectSelection none{"stale", "stale", "stale", 3, 3, {{"stale"}}};
        QVERIFY(loadProject(savedSample("unselected.hetplan"), &none) == sample);
        QVERIFY(none == ProjectSelection{});
        QVERIFY(!none.planners); // no ticks saved: the app's defaults apply

        // The Run tab's ticks: a list, and an empty one is kept as "nothing ticked", not "none saved".
        for (const std::vector<std::string>& ticks : {std::vector<std::string>{"amp", "hethub"}, std::vector<std::string>{}}) {
            ProjectSelection ticked;
            ticked.planners = ticks;
            saveProject(sample, path("ticked.hetplan"), ticked);
            ProjectSelection read;
            QVERIFY(loadProject(path("ticked.hetplan"), &read) == sample);
            QVERIFY(read.planners && *read.planners == ticks);
        }

        // Edited by hand (outside the checksum): a run id that is not a number is dropped, the rest stays.
        sql(p, "UPDATE meta SET value = 'seven' WHERE key = 'selected_run';");
        QVERIFY(loadProject(p, &back) == sample);
        QCOMPARE(back.run, 0);
        QCOMPARE(back.cluster, std::string("hethub-pair"));
        QCOMPARE(back.resultIndex, 1);
    }

    void fileIdentityAndOutsideQueries()
    {
        const std::string p = savedSample("ident.hetplan");
        QCOMPARE(pragma(p, "application_id"), 0x48455450LL); // "HETP"
        QCOMPARE(pragma(p, "user_version"), 1LL);
        QCOMPARE(projectSchemaVersion(), 1);
        // Names are queryable without parsing documents.
        sqlite3* db = nullptr;
        sqlite3_open_v2(p.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
        sqlite3_stmt* s = nullptr;
        sqlite3_prepare_v2(db, "SELECT group_concat(name, ',') FROM (SELECT name FROM clusters ORDER BY position)", -1,
                           &s, nullptr);
        QCOMPARE(sqlite3_step(s), SQLITE_ROW);
        QCOMPARE(QString(reinterpret_cast<const char*>(sqlite3_column_text(s, 0))),
                 QString("amp-het-cluster,hethub-pair,poplar-a"));
        sqlite3_finalize(s);
        sqlite3_prepare_v2(db, "SELECT count(*) FROM run_results WHERE plan IS NULL AND status = 'infeasible'", -1, &s,
                           nullptr);
        QCOMPARE(sqlite3_step(s), SQLITE_ROW);
        QCOMPARE(sqlite3_column_int(s, 0), 1);
        sqlite3_finalize(s);
        sqlite3_close(db);

        const ProjectInfo info = probeProject(p);
        QVERIFY(info.ok);
        QVERIFY(info.isProject);
        QCOMPARE(info.schemaVersion, 1);
        QCOMPARE(info.clusters, 3);
        QCOMPARE(info.models, 2);
        QCOMPARE(info.jobs, 2);
        QCOMPARE(info.runs, 2);
    }

    void overwriteReplacesAndKeepsPermissions()
    {
        const std::string p = savedSample("over.hetplan");
        QVERIFY(::chmod(p.c_str(), 0640) == 0);
        Project changed = sample;
        changed.clusters[1].nodes[0].x = -999.5;
        changed.runs.pop_back();
        saveProject(changed, p);
        QVERIFY(loadProject(p) == changed);
        struct stat st {};
        QCOMPARE(::stat(p.c_str(), &st), 0);
        QCOMPARE(int(st.st_mode & 07777), 0640);
        QVERIFY(tempFiles(dir.path()).isEmpty());
    }

    void saveThroughSymlinkKeepsLink()
    {
        const std::string target = savedSample("target.hetplan");
        const std::string link = path("link.hetplan");
        std::filesystem::create_symlink(target, link);
        Project changed = sample;
        changed.jobs.pop_back();
        saveProject(changed, link);
        QVERIFY(std::filesystem::is_symlink(link));
        QVERIFY(loadProject(target) == changed);
    }

    void loadingNeverWrites()
    {
        const std::string p = savedSample("ro.hetplan");
        const QByteArray before = sha(p);
        struct stat st0 {};
        ::stat(p.c_str(), &st0);
        for (int i = 0; i < 3; ++i)
            loadProject(p);
        probeProject(p);
        struct stat st1 {};
        ::stat(p.c_str(), &st1);
        QCOMPARE(sha(p), before);
        QCOMPARE(st1.st_mtim.tv_sec, st0.st_mtim.tv_sec);
        QCOMPARE(st1.st_mtim.tv_nsec, st0.st_mtim.tv_nsec);
        // Read-only file permissions are enough to load.
        QVERIFY(::chmod(p.c_str(), 0444) == 0);
        QVERIFY(loadProject(p) == sample);
    }

    void foreignFilesRefused()
    {
        // Random bytes.
        const std::string bin = path("random.hetplan");
        QByteArray noise(50000, '\0');
        std::mt19937 rng(3);
        for (char& c : noise)
            c = char(rng());
        writeAll(bin, noise);
        expectRefused(bin, "file", "not a database");
        QVERIFY(!probeProject(bin).ok);
        QVERIFY(!probeProject(bin).isSqlite);

        // A JSON document (e.g. a cluster file opened by mistake).
        const std::string json = path("cluster.json");
        writeAll(json, R"({"schema":"hetplan.cluster/1","name":"x","nodes":[]})");
        expectRefused(json, "file", "not a database");

        // Empty and missing files.
        const std::string empty = path("empty-file.hetplan");
        writeAll(empty, {});
        expectRefused(empty, "file", "empty");
        try {
            loadProject(path("missing.hetplan"));
            QFAIL("expected InputError");
        } catch (const InputError& e) {
            QVERIFY(std::string(e.reason()).find("does not exist") != std::string::npos);
        }
        QVERIFY(!QFile::exists(dir.filePath("missing.hetplan"))); // not created by the attempt
        QVERIFY(!probeProject(path("missing.hetplan")).exists);

        // Another application's SQLite database (application_id 0, its own tables) ...
        const std::string other = path("other.db");
        sql(other, "CREATE TABLE notes(id INTEGER PRIMARY KEY, text TEXT); INSERT INTO notes(text) VALUES ('hi');");
        expectRefused(other, "application_id", "not a hetplan project");
        // ... and one with some other application id, even if it had our table names.
        const std::string other2 = path("other2.db");
        sql(other2, "PRAGMA application_id = 1196444237; PRAGMA user_version = 1; CREATE TABLE clusters(x);");
        expectRefused(other2, "application_id", "not a hetplan project");
        QVERIFY(probeProject(other2).isSqlite);
        QVERIFY(!probeProject(other2).isProject);
    }

    void newerVersionRefused()
    {
        const std::string p = savedSample("newer.hetplan");
        sql(p, "PRAGMA user_version = 2;");
        expectRefused(p, "user_version", "newer hetplan (schema 2 > 1)");
        const ProjectInfo info = probeProject(p);
        QVERIFY(info.isProject);
        QVERIFY(!info.ok);
        QCOMPARE(info.schemaVersion, 2);
        QVERIFY(info.reason.find("newer") != std::string::npos);
    }

    void truncatedRefused()
    {
        const std::string good = savedSample("trunc-src.hetplan");
        const QByteArray bytes = readAll(good);
        QVERIFY(bytes.size() > 8192);
        for (qsizetype cut : {bytes.size() / 2, bytes.size() - 4096, qsizetype(4096), qsizetype(100), qsizetype(50)}) {
            const std::string p = path("trunc.hetplan");
            writeAll(p, bytes.left(cut));
            const QByteArray before = sha(p);
            QVERIFY_THROWS_EXCEPTION(InputError, loadProject(p));
            QCOMPARE(sha(p), before);
        }
    }

    void flippedBytesDetectedOrHarmless()
    {
        // Property: after flipping any byte, loading either refuses with InputError or returns exactly the
        // saved project (the byte was unused space or a header counter); it never returns a different
        // project, never crashes, and never changes the file.
        const std::string src = savedSample("flip-src.hetplan");
        const QByteArray bytes = readAll(src);
        std::mt19937 rng(11);
        std::vector<qsizetype> positions;
        for (qsizetype h = 0; h < 100; ++h) // every header byte
            positions.push_back(h);
        for (int i = 0; i < 250; ++i) // and a sample of the rest
            positions.push_back(100 + qsizetype(rng() % quint32(bytes.size() - 100)));
        // A byte inside a number of a stored document: must be caught (by the content hash).
        const qsizetype digit = bytes.indexOf("\"nic_bandwidth\":") + qsizetype(strlen("\"nic_bandwidth\":"));
        QVERIFY(digit > 20);
        positions.push_back(digit);
        int refused = 0, harmless = 0;
        const std::string p = path("flip.hetplan");
        for (qsizetype pos : positions) {
            QByteArray b = bytes;
            b[pos] = char(b[pos] ^ (pos == digit ? 0x01 : 0xff)); // '1' <-> '0' style flip keeps JSON valid
            writeAll(p, b);
            const QByteArray before = sha(p);
            try {
                const Project back = loadProject(p);
                QVERIFY2(back == sample, qPrintable(QString("flip at %1 loaded a different project").arg(pos)));
                QVERIFY2(pos != digit, "a changed number was not detected");
                ++harmless;
            } catch (const InputError& e) {
                QCOMPARE(QString::fromStdString(e.file()), QString::fromStdString(p));
                ++refused;
            }
            QCOMPARE(sha(p), before);
        }
        qInfo("flipped %d positions: %d refused, %d harmless", int(positions.size()), refused, harmless);
        QVERIFY(refused >
                int(positions.size()) / 4); // many land in live rows; the rest in page slack or header counters
    }

    void editedOutsideRefused()
    {
        const std::string p = savedSample("edited.hetplan");
        sql(p, "UPDATE runs SET started = '1999-01-01T00:00:00Z' WHERE position = 0;");
        expectRefused(p, "meta.content_sha256", "checksum");
        const std::string q = savedSample("edited2.hetplan");
        sql(q, "DELETE FROM meta;");
        expectRefused(q, "meta.content_sha256", "missing");
    }

    void badRowsRefusedWithTheirField()
    {
        // Rows with a correct checksum but bad content reach the row readers, which name the row.
        const std::string a = savedSample("badjson.hetplan");
        sql(a, "UPDATE clusters SET document = '{\"schema\": ' WHERE position = 1;", true);
        expectRefused(a, "clusters[1].document", "invalid JSON");

        const std::string b = savedSample("badcluster.hetplan");
        sql(b, "UPDATE clusters SET document = json_set(document, '$.nodes[0].gpus', 0) WHERE position = 0;", true);
        expectRefused(b, "clusters[0].nodes[0].gpus", "at least 1");

        const std::string c = savedSample("badname.hetplan");
        sql(c, "UPDATE models SET name = 'other' WHERE position = 0;", true);
        expectRefused(c, "models[0].name", "does not match");

        const std::string d = savedSample("badplan.hetplan");
        sql(d, "UPDATE run_results SET plan = '[1,2]' WHERE position = 0;", true);
        expectRefused(d, "run_results[0].plan", "JSON object");

        const std::string e = savedSample("badtype.hetplan");
        sql(e, "UPDATE run_results SET duration_seconds = 'soon' WHERE position = 1;", true);
        expectRefused(e, "run_results[1].duration_seconds", "number");

        const std::string s = savedSample("badstatus.hetplan");
        sql(s, "UPDATE run_results SET status = 'finished' WHERE position = 1;", true);
        expectRefused(s, "run_results[1].status", "expected ok, infeasible, not-applicable, cancelled or error");

        const std::string f = savedSample("orphan.hetplan");
        sql(f, "INSERT INTO profiles VALUES (9, 'ghost', 'csv', '{}');", true);
        expectRefused(f, "profiles[1].model_position", "no model");

        const std::string g = savedSample("notable.hetplan");
        sql(g, "DROP TABLE jobs;", true);
        expectRefused(g, "jobs", "table missing");
    }

    // The columns that repeat what a plan or an item says (the planner, the run's cluster, model, job and
    // start) follow the rules their plan-JSON and document counterparts have. A crafted file with a correct
    // checksum is refused naming the column, and left as it was.
    void freeTextColumnsFollowTheirRules_data()
    {
        QTest::addColumn<QString>("change");
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("reason");
        QTest::newRow("planner with a line break")
            << "UPDATE run_results SET planner = 'amp' || char(10) || 'feasible: yes' WHERE run_position = 0 AND "
               "position = 1;"
            << "run_results[1].planner"
            << "contains \"\\n\" at position 3";
        QTest::newRow("planner not its plan's")
            << "UPDATE run_results SET planner = 'amp' WHERE run_position = 0 AND position = 0;"
            << "run_results[0].planner"
            << "does not match its plan's planner \"uniform\"";
        QTest::newRow("run on another cluster than its plan")
            << "UPDATE runs SET cluster = 'hethub-pair' WHERE position = 0;"
            << "runs[0].cluster"
            << "does not match the cluster \"amp-het-cluster\" its result run_results[0].plan";
        QTest::newRow("run with another model than its plan")
            << "UPDATE runs SET model = 'bert-base' WHERE position = 0;"
            << "runs[0].model"
            << "does not match the model \"gpt2-amp\"";
        QTest::newRow("run without a cluster") << "UPDATE runs SET cluster = '' WHERE position = 1;"
                                               << "runs[1].cluster"
                                               << "must not be empty";
        QTest::newRow("run without a job") << "UPDATE runs SET job = '' WHERE position = 1;"
                                           << "runs[1].job"
                                           << "must not be empty";
        QTest::newRow("start not a date") << "UPDATE runs SET started = 'yesterday' WHERE position = 1;"
                                          << "runs[1].started"
                                          << "ISO 8601";
        QTest::newRow("run id twice") << "UPDATE runs SET id = 1 WHERE position = 1;"
                                      << "runs[1].id"
                                      << "duplicate run id 1";
        QTest::newRow("job without a name") << "UPDATE jobs SET name = '' WHERE position = 1;"
                                            << "jobs[1].name"
                                            << "must not be empty";
        QTest::newRow("job name twice") << "UPDATE jobs SET name = 'gbs32' WHERE position = 1;"
                                        << "jobs[1].name"
                                        << "duplicate name \"gbs32\"";
    }
    void freeTextColumnsFollowTheirRules()
    {
        QFETCH(QString, change);
        QFETCH(QString, field);
        QFETCH(QString, reason);
        const std::string p = savedSample("column.hetplan");
        sql(p, change.toStdString(), true);
        expectRefused(p, field.toStdString(), reason.toStdString());
        QFile::remove(QString::fromStdString(p));
    }

    // A run keeps the names of what it ran on, which the user may since have renamed or deleted: a name that
    // is in no item of the project still loads.
    void runsKeepNamesOfItemsSinceRenamed()
    {
        const std::string p = savedSample("renamed.hetplan");
        sql(p, "UPDATE runs SET cluster = 'renamed away', model = 'gone' WHERE position = 1;", true);
        const Project loaded = loadProject(p);
        QCOMPARE(loaded.runs[1].cluster, std::string("renamed away"));
        QVERIFY(loaded.findCluster("renamed away") == nullptr);
    }

    // Nothing that would be refused on loading is saved: the written copy is read back first.
    void badColumnIsNotSaved()
    {
        const std::string p = savedSample("unsaved.hetplan");
        const QByteArray before = readAll(p);
        Project bad = sample;
        bad.runs[0].results[1].planner = "amp\nfeasible: yes";
        const auto e = test::errorOf([&] { saveProject(bad, p); });
        QVERIFY(e.has_value());
        QCOMPARE(e->file(), p);
        QCOMPARE(e->field(), std::string("run_results[1].planner"));
        QCOMPARE(readAll(p), before);
        QVERIFY(tempFiles(dir.path()).isEmpty());
    }

    void migratesVersion0OnACopy()
    {
        // A bare version-0 file: the hetplan id stamped, no tables. It loads as an empty project through
        // the 0 → 1 migration, which runs in memory: the file keeps version 0 and its bytes.
        const std::string p = path("v0.hetplan");
        sql(p, "PRAGMA application_id = 1212503120;"); // 0x48455450
        QCOMPARE(pragma(p, "user_version"), 0LL);
        const QByteArray before = sha(p);
        QVERIFY(loadProject(p) == Project{});
        QCOMPARE(sha(p), before);
        QCOMPARE(pragma(p, "user_version"), 0LL);
        QVERIFY(probeProject(p).ok);
        // Saving it writes the current version (to the same path, atomically).
        saveProject(sample, p);
        QCOMPARE(pragma(p, "user_version"), 1LL);
        QVERIFY(loadProject(p) == sample);

        // A version-0 file is bare: one that already holds tables is refused before any migration runs, not
        // half-migrated.
        const std::string q = path("v0-clash.hetplan");
        sql(q, "PRAGMA application_id = 1212503120; CREATE TABLE clusters(x);");
        expectRefused(q, "schema", "unexpected table \"clusters\"");
    }

    void failedSaveKeepsOldFile_data()
    {
        QTest::addColumn<QString>("stage");
        for (const char* s : {"opened", "tables", "written", "synced", "before-rename"})
            QTest::newRow(s) << s;
    }

    void failedSaveKeepsOldFile()
    {
        QFETCH(QString, stage);
        const std::string p = savedSample("atomic.hetplan");
        const QByteArray before = readAll(p);
        testing::setProjectSaveHook([&](const std::string& at) {
            if (at == stage.toStdString())
                throw std::runtime_error("simulated failure at " + at);
        });
        Project changed = sample;
        changed.clusters.clear();
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, saveProject(changed, p));
        testing::setProjectSaveHook({});
        QCOMPARE(readAll(p), before);             // byte-identical
        QVERIFY(tempFiles(dir.path()).isEmpty()); // the temporary copy was removed
        QVERIFY(loadProject(p) == sample);
    }

    void killedDuringSaveKeepsOldFile()
    {
        // A real crash: a child process is killed (SIGKILL, no clean-up) in the middle of writing.
        const std::string p = savedSample("killed.hetplan");
        const QByteArray before = readAll(p);
        const pid_t pid = ::fork();
        QVERIFY(pid >= 0);
        if (pid == 0) {
            testing::setProjectSaveHook([](const std::string& at) {
                if (at == "written")
                    ::raise(SIGKILL);
            });
            Project changed = sample;
            changed.jobs.clear();
            try {
                saveProject(changed, p);
            } catch (...) {
            }
            ::_exit(0); // not reached if the kill happened
        }
        int status = 0;
        QCOMPARE(::waitpid(pid, &status, 0), pid);
        QVERIFY(WIFSIGNALED(status));
        QCOMPARE(WTERMSIG(status), SIGKILL);
        QCOMPARE(readAll(p), before);
        QVERIFY(loadProject(p) == sample);
        // The crash left its temporary file behind; it does not disturb the next save.
        const QStringList leftovers = tempFiles(dir.path());
        QCOMPARE(leftovers.size(), 1);
        Project changed = sample;
        changed.jobs.clear();
        saveProject(changed, p);
        QVERIFY(loadProject(p) == changed);
        for (const QString& f : leftovers)
            QFile::remove(dir.filePath(f));
    }

    void unsavablePlaces()
    {
        // Missing directory, and a path that is a directory: clear errors, nothing created.
        try {
            saveProject(sample, path("no-such-dir/p.hetplan"));
            QFAIL("expected InputError");
        } catch (const InputError& e) {
            QVERIFY(std::string(e.reason()).find("cannot be saved") != std::string::npos);
        }
        QVERIFY_THROWS_EXCEPTION(InputError, saveProject(sample, dir.path().toStdString()));
        QVERIFY(tempFiles(dir.path()).isEmpty());

        // A read-only directory (only meaningful when not running as root, who may write anyway).
        if (::geteuid() == 0)
            QSKIP("running as root: directory permissions do not stop writes");
        const QString ro = dir.filePath("ro-dir");
        QVERIFY(QDir().mkpath(ro));
        const std::string p = (ro + "/p.hetplan").toStdString();
        saveProject(sample, p);
        const QByteArray before = readAll(p);
        QVERIFY(::chmod(ro.toLocal8Bit().constData(), 0555) == 0);
        QVERIFY_THROWS_EXCEPTION(InputError, saveProject(Project{}, p));
        ::chmod(ro.toLocal8Bit().constData(), 0755);
        QCOMPARE(readAll(p), before);
    }

    void unloadableProjectIsNotSaved()
    {
        // The written copy is read back before it replaces the old file: a project the loader would
        // refuse (here a node without GPUs) is reported and the previous file stays.
        const std::string p = savedSample("unloadable.hetplan");
        const QByteArray before = readAll(p);
        Project bad = sample;
        bad.clusters[2].nodes[0].gpus = 0;
        try {
            saveProject(bad, p);
            QFAIL("expected InputError");
        } catch (const InputError& e) {
            QCOMPARE(QString::fromStdString(e.file()), QString::fromStdString(p));
            QCOMPARE(QString::fromStdString(e.field()), QString("clusters[2].nodes[0].gpus"));
        }
        QCOMPARE(readAll(p), before);
        QVERIFY(tempFiles(dir.path()).isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestProjectStore)
#include "tst_project_store.moc"
