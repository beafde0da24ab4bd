#pragma once
// Fixtures for the project-store tests: file byte helpers, a sample project, raw SQLite edits that keep
// (or break) the content checksum, and the "refused and untouched" check.
#include "testutil.h"

#include "core/base/errors.h"
#include "core/io/examples.h"
#include "core/io/project_store.h"
#include "core/planners/planner.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QTest>

#include <sqlite3.h>

#include <string>

namespace hetplan::test::projectstore {

using namespace hetplan;

inline QByteArray readAll(const std::string& path)
{
    QFile f(QString::fromStdString(path));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return f.readAll();
}

inline void writeAll(const std::string& path, const QByteArray& bytes)
{
    QFile f(QString::fromStdString(path));
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QCOMPARE(f.write(bytes), bytes.size());
}

inline QByteArray sha(const std::string& path)
{
    return QCryptographicHash::hash(readAll(path), QCryptographicHash::Sha256);
}

// The project used throughout: example clusters moved around on the canvas, two example models (one with
// a small measured profile), two jobs, and a run with an ok result holding a real plan plus an infeasible
// result.
inline Project sampleProject()
{
    Project p;
    for (const char* name : {"amp-het-cluster", "hethub-pair", "poplar-a"}) {
        Cluster c = exampleCluster(name);
        for (size_t i = 0; i < c.nodes.size(); ++i) {
            c.nodes[i].x = 120.5 + 37.25 * double(i);
            c.nodes[i].y = -48.125 * double(i + 1);
        }
        p.clusters.push_back(c);
    }
    ProjectModel gpt{buildExampleModel("gpt2-amp"), {}};
    gpt.profile.model = "gpt2-amp";
    gpt.profile.source = "csv";
    const int layers = int(gpt.model.layers.size());
    std::vector<LayerTiming> t1(size_t(layers), LayerTiming{0.0125, 0.025, 0.001, -1});
    std::vector<LayerTiming> t4(size_t(layers), LayerTiming{0.04, 0.08, 0.001, 3.5e8});
    t4[0].forward = 1.0 / 3; // a value that needs all 17 digits
    gpt.profile.set({"T4", 1, 1}, t1);
    gpt.profile.set({"T4", 1, 4}, t4);
    p.models.push_back(gpt);
    p.models.push_back({buildExampleModel("bert-base"), {}});

    NamedJob a{"gbs32", {}};
    a.job.globalBatchSize = 32;
    NamedJob b{"bf16-zero2", {}};
    b.job.globalBatchSize = 64;
    b.job.sequenceLength = 512;
    b.job.precision = Precision::BF16;
    b.job.zeroStage = 2;
    b.job.schedule = Schedule::GPipe;
    b.job.recompute = true;
    p.jobs = {a, b};

    PlanRequest req;
    req.cluster = p.clusters[0];
    req.model = gpt.model;
    req.job = a.job;
    req.options["mbs"] = "2";
    Progress progress;
    Run run;
    run.id = 1;
    run.cluster = "amp-het-cluster";
    run.model = "gpt2-amp";
    run.job = "gbs32";
    run.started = "2026-11-21T21:40:00Z";
    RunResult ok;
    ok.planner = "uniform";
    ok.options = {{"mbs", "2"}};
    ok.durationSeconds = 0.0123456789012345;
    ok.plan = runPlanner("uniform", req, progress);
    RunResult bad;
    bad.planner = "amp";
    bad.options = {{"top_k", "5"}, {"note", "quotes \" and ünïcödé"}};
    bad.status = RunStatus::Infeasible;
    bad.message = "no pipeline fits in 16 GB";
    bad.durationSeconds = 2.5;
    run.results = {ok, bad};
    p.runs.push_back(run);
    Run empty;
    empty.id = 7;
    empty.cluster = "hethub-pair";
    empty.model = "bert-base";
    empty.job = "bf16-zero2";
    empty.started = "2026-11-22T08:00:00Z";
    p.runs.push_back(empty);
    return p;
}

// An independent implementation of the documented content hash (project_store.h: SHA-256 over every
// table but meta, tables by name, rows by rowid, type-tagged values), used to build files whose rows are
// bad but whose checksum is right, so the row readers' own checks are reached.
inline void reseal(sqlite3* db)
{
    QCryptographicHash h(QCryptographicHash::Sha256);
    auto add = [&](char tag, const void* p, size_t n) {
        const quint64 len = n;
        h.addData(QByteArrayView(&tag, 1));
        h.addData(QByteArrayView(reinterpret_cast<const char*>(&len), sizeof len));
        h.addData(QByteArrayView(static_cast<const char*>(p), qsizetype(n)));
    };
    sqlite3_stmt* t = nullptr;
    sqlite3_prepare_v2(db,
                       "SELECT name FROM sqlite_schema WHERE type='table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' "
                       "AND name <> 'meta' ORDER BY name",
                       -1, &t, nullptr);
    while (sqlite3_step(t) == SQLITE_ROW) {
        const std::string name = reinterpret_cast<const char*>(sqlite3_column_text(t, 0));
        add('T', name.data(), name.size());
        sqlite3_stmt* s = nullptr;
        sqlite3_prepare_v2(db, ("SELECT rowid, * FROM \"" + name + "\" ORDER BY rowid").c_str(), -1, &s, nullptr);
        while (sqlite3_step(s) == SQLITE_ROW) {
            add('R', nullptr, 0);
            for (int i = 0; i < sqlite3_column_count(s); ++i) {
                switch (sqlite3_column_type(s, i)) {
                case SQLITE_INTEGER: {
                    const qint64 v = sqlite3_column_int64(s, i);
                    add('i', &v, 8);
                    break;
                }
                case SQLITE_FLOAT: {
                    const double v = sqlite3_column_double(s, i);
                    add('f', &v, 8);
                    break;
                }
                case SQLITE_TEXT: add('t', sqlite3_column_text(s, i), size_t(sqlite3_column_bytes(s, i))); break;
                case SQLITE_BLOB: add('b', sqlite3_column_blob(s, i), size_t(sqlite3_column_bytes(s, i))); break;
                default: add('n', nullptr, 0);
                }
            }
        }
        sqlite3_finalize(s);
    }
    sqlite3_finalize(t);
    const std::string sql =
        "UPDATE meta SET value = '" + h.result().toHex().toStdString() + "' WHERE key = 'content_sha256'";
    QCOMPARE(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
}

// Runs SQL on a file with the plain SQLite API (an "outside tool"), optionally resealing the checksum.
inline void sql(const std::string& path, const std::string& statements, bool resealAfter = false)
{
    sqlite3* db = nullptr;
    QCOMPARE(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    char* err = nullptr;
    const int rc = sqlite3_exec(db, statements.c_str(), nullptr, nullptr, &err);
    QVERIFY2(rc == SQLITE_OK, err ? err : "sqlite error");
    if (resealAfter)
        reseal(db);
    sqlite3_close(db);
}

inline long long pragma(const std::string& path, const char* name)
{
    sqlite3* db = nullptr;
    sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
    sqlite3_stmt* s = nullptr;
    sqlite3_prepare_v2(db, (std::string("PRAGMA ") + name).c_str(), -1, &s, nullptr);
    long long v = sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_int64(s, 0) : -1;
    sqlite3_finalize(s);
    sqlite3_close(db);
    return v;
}

inline QStringList tempFiles(const QString& dir) { return QDir(dir).entryList({"*.tmp-*"}, QDir::Files); }

// Loading `file` must throw InputError naming `file` (and a field starting with `field`, a reason
// containing `reasonPart`), and leave the file as it was.
inline void expectRefused(const std::string& file, const std::string& field, const std::string& reasonPart)
{
    const QByteArray before = sha(file);
    try {
        loadProject(file);
        QFAIL(("expected InputError for " + file).c_str());
    } catch (const InputError& e) {
        QCOMPARE(QString::fromStdString(e.file()), QString::fromStdString(file));
        QVERIFY2(e.field().rfind(field, 0) == 0, e.what());
        QVERIFY2(e.reason().find(reasonPart) != std::string::npos, e.what());
    }
    QCOMPARE(sha(file), before);
    QVERIFY(!QFile::exists(QString::fromStdString(file) + "-journal"));
}

} // namespace hetplan::test::projectstore
