// The table writers behind saveProject(): every row of the project, its selection and the content hash,
// in one transaction on a fresh database (project_store.cpp makes the file and renames it into place).
#include "project_store_write.h"

#include "json_io.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <sqlite3.h>

namespace hetplan::projectdb {

namespace {

std::string compact(const QJsonObject& o) { return QJsonDocument(o).toJson(QJsonDocument::Compact).toStdString(); }

class Insert {
public:
    Insert(const Conn& c, const char* sql, const char* table) : c_(c), table_(table), s_(c.prepare(sql, table)) {}
    Insert& i(long long v) { return check(sqlite3_bind_int64(s_.get(), ++n_, v)); }
    Insert& d(double v) { return check(sqlite3_bind_double(s_.get(), ++n_, v)); }
    Insert& t(const std::string& v)
    {
        return check(sqlite3_bind_text64(s_.get(), ++n_, v.data(), v.size(), SQLITE_TRANSIENT, SQLITE_UTF8));
    }
    Insert& null() { return check(sqlite3_bind_null(s_.get(), ++n_)); }
    void run()
    {
        if (c_.step(s_.get(), table_))
            throw InputError(c_.path(), table_, "insert returned rows");
        sqlite3_reset(s_.get());
        sqlite3_clear_bindings(s_.get());
        n_ = 0;
    }

private:
    Insert& check(int rc)
    {
        if (rc != SQLITE_OK)
            c_.fail(table_, rc);
        return *this;
    }
    const Conn& c_;
    std::string table_;
    Stmt s_;
    int n_ = 0;
};

void writeSelection(const Conn& c, const ProjectSelection& sel)
{
    Insert meta(c, "INSERT INTO meta (key, value) VALUES (?, ?)", "meta");
    const std::pair<const char*, std::string> rows[] = {
        {"selected_cluster", sel.cluster},
        {"selected_model", sel.model},
        {"selected_job", sel.job},
        {"selected_run", sel.run > 0 ? std::to_string(sel.run) : std::string()},
        {"selected_result", sel.resultIndex >= 0 ? std::to_string(sel.resultIndex) : std::string()},
    };
    for (const auto& [key, value] : rows)
        if (!value.empty())
            meta.t(key).t(value).run();
    if (sel.planners) { // written even when empty: "nothing ticked" is the user's choice, not a default
        std::string joined;
        for (const std::string& p : *sel.planners)
            joined += (joined.empty() ? "" : ",") + p;
        meta.t("ticked_planners").t(joined).run();
    }
}

} // namespace

void writeProject(const Conn& c, const Project& p, const ProjectSelection& selection, int schemaVersion,
                  const char* schemaSql, const std::function<void(const std::string&)>& stage)
{
    c.exec("BEGIN", "file");
    c.exec(("PRAGMA application_id = " + std::to_string(kProjectApplicationId) +
            "; PRAGMA user_version = " + std::to_string(schemaVersion))
               .c_str(),
           "file");
    c.exec(schemaSql, "schema");
    {
        Insert ins(c, "INSERT INTO clusters (position, name, document) VALUES (?, ?, ?)", "clusters");
        for (size_t i = 0; i < p.clusters.size(); ++i)
            ins.i(i64(i)).t(p.clusters[i].name).t(compact(toJson(p.clusters[i]))).run();
    }
    stage("tables");
    {
        Insert ins(c, "INSERT INTO models (position, name, document) VALUES (?, ?, ?)", "models");
        Insert prof(c, "INSERT INTO profiles (model_position, model, source, document) VALUES (?, ?, ?, ?)",
                    "profiles");
        for (size_t i = 0; i < p.models.size(); ++i) {
            const ProjectModel& m = p.models[i];
            ins.i(i64(i)).t(m.model.name).t(compact(toJson(m.model))).run();
            if (!(m.profile == Profile{}))
                prof.i(i64(i)).t(m.profile.model).t(m.profile.source).t(compact(toJson(m.profile))).run();
        }
    }
    {
        Insert ins(c, "INSERT INTO jobs (position, name, document) VALUES (?, ?, ?)", "jobs");
        for (size_t i = 0; i < p.jobs.size(); ++i)
            ins.i(i64(i)).t(p.jobs[i].name).t(compact(toJson(p.jobs[i].job))).run();
    }
    {
        Insert run(c, "INSERT INTO runs (position, id, cluster, model, job, started) VALUES (?, ?, ?, ?, ?, ?)",
                   "runs");
        Insert res(c,
                   "INSERT INTO run_results (run_position, position, planner, options, status, message, "
                   "duration_seconds, plan) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                   "run_results");
        for (size_t i = 0; i < p.runs.size(); ++i) {
            const Run& r = p.runs[i];
            run.i(i64(i)).i(r.id).t(r.cluster).t(r.model).t(r.job).t(r.started).run();
            for (size_t k = 0; k < r.results.size(); ++k) {
                const RunResult& rr = r.results[k];
                QJsonObject opts;
                for (const auto& [key, v] : rr.options)
                    opts[QString::fromStdString(key)] = QString::fromStdString(v);
                res.i(i64(i)).i(i64(k)).t(rr.planner).t(compact(opts)).t(toString(rr.status)).t(rr.message).d(rr.durationSeconds);
                if (rr.plan)
                    res.t(compact(toJson(*rr.plan)));
                else
                    res.null();
                res.run();
            }
        }
    }
    Insert meta(c, "INSERT INTO meta (key, value) VALUES (?, ?)", "meta");
    meta.t("content_sha256").t(contentHash(c)).run();
    writeSelection(c, selection);
    c.exec("COMMIT", "file");
}

} // namespace hetplan::projectdb
