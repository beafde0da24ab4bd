// Reading a checked (and, if older, migrated) project database's tables into a Project: one function per
// table, each reporting `file: table[i]: reason` for a row it cannot use.
#include "project_store_read.h"

#include "json_io.h"

#include "core/base/errors.h"
#include "core/base/names.h"
#include "core/base/numbers.h"
#include "core/base/quote.h"

#include <QDateTime>
#include <QString>

#include <sqlite3.h>

#include <climits>
#include <map>
#include <set>
#include <string>

namespace hetplan::projectdb {

namespace {

std::string indexed(const char* table, size_t i) { return std::string(table) + "[" + std::to_string(i) + "]"; }

// The name columns follow the rules of the documents they name: not empty (as a cluster's, model's or
// job's "name"), and, within one table, unique (the app looks items up by name).
void checkName(const std::string& path, const std::string& field, const std::string& name,
               std::set<std::string>* seen = nullptr)
{
    if (name.empty())
        throw InputError(path, field, "must not be empty");
    if (seen && !seen->insert(name).second)
        throw InputError(path, field, "duplicate name " + quotedInput(name));
}

void readClusters(const Conn& c, Project& p)
{
    const std::string& path = c.path();
    Stmt s = c.prepare("SELECT name, document FROM clusters ORDER BY position", "clusters");
    std::set<std::string> names;
    while (c.step(s.get(), "clusters")) {
        const Row r{c, s.get(), indexed("clusters", p.clusters.size())};
        const std::string name = r.text(0, "name");
        const QJsonObject doc = r.json(1, "document");
        Cluster cl = readDocument(path, r.field, [&] { return clusterFromJson(doc, path, /*allowEmpty=*/true); });
        if (cl.name != name)
            throw InputError(path, r.field + ".name", "does not match the document's name '" + cl.name + "'");
        checkName(path, r.field + ".name", name, &names);
        p.clusters.push_back(std::move(cl));
    }
}

// Returns position → index of each model (profiles refer to models by position).
std::map<long long, size_t> readModels(const Conn& c, Project& p)
{
    const std::string& path = c.path();
    std::map<long long, size_t> modelIndex;
    Stmt s = c.prepare("SELECT position, name, document FROM models ORDER BY position", "models");
    std::set<std::string> names;
    while (c.step(s.get(), "models")) {
        const Row r{c, s.get(), indexed("models", p.models.size())};
        modelIndex[r.integer(0, "position")] = p.models.size();
        const std::string name = r.text(1, "name");
        const QJsonObject doc = r.json(2, "document");
        ProjectModel pm;
        pm.model = readDocument(path, r.field, [&] { return modelFromJson(doc, path); });
        if (pm.model.name != name)
            throw InputError(path, r.field + ".name", "does not match the document's name '" + pm.model.name + "'");
        checkName(path, r.field + ".name", name, &names);
        p.models.push_back(std::move(pm));
    }
    return modelIndex;
}

void readProfiles(const Conn& c, Project& p, const std::map<long long, size_t>& modelIndex)
{
    const std::string& path = c.path();
    Stmt s = c.prepare("SELECT model_position, document FROM profiles ORDER BY model_position", "profiles");
    for (size_t i = 0; c.step(s.get(), "profiles"); ++i) {
        const Row r{c, s.get(), indexed("profiles", i)};
        const auto it = modelIndex.find(r.integer(0, "model_position"));
        if (it == modelIndex.end())
            throw InputError(path, r.field + ".model_position", "refers to no model");
        const QJsonObject doc = r.json(1, "document");
        p.models[it->second].profile = readDocument(path, r.field, [&] { return profileFromJson(doc, path); });
    }
}

void readJobs(const Conn& c, Project& p)
{
    const std::string& path = c.path();
    Stmt s = c.prepare("SELECT name, document FROM jobs ORDER BY position", "jobs");
    std::set<std::string> names;
    while (c.step(s.get(), "jobs")) {
        const Row r{c, s.get(), indexed("jobs", p.jobs.size())};
        NamedJob j;
        j.name = r.text(0, "name");
        checkName(path, r.field + ".name", j.name, &names);
        const QJsonObject doc = r.json(1, "document");
        j.job = readDocument(path, r.field, [&] { return jobFromJson(doc, path); });
        p.jobs.push_back(std::move(j));
    }
}

// A run names the cluster, model and job it ran on as they were called then: the items may since have been
// renamed or deleted, so the names need not be in the project, but they follow the items' name rule, and a
// result's plan must have been made on that cluster and model (readRunResults).
void checkRunColumns(const Row& r, const Run& run, std::set<int>& ids)
{
    const std::string& path = r.c.path();
    if (!ids.insert(run.id).second)
        throw InputError(path, r.field + ".id", "duplicate run id " + std::to_string(run.id));
    checkName(path, r.field + ".cluster", run.cluster);
    checkName(path, r.field + ".model", run.model);
    checkName(path, r.field + ".job", run.job);
    if (!QDateTime::fromString(QString::fromStdString(run.started), Qt::ISODate).isValid())
        throw InputError(path, r.field + ".started",
                         "expected an ISO 8601 date and time such as 2026-11-21T21:40:00Z, got " +
                             quotedInput(run.started));
}

// Returns position → index of each run (results refer to runs by position).
std::map<long long, size_t> readRuns(const Conn& c, Project& p)
{
    std::map<long long, size_t> runIndex;
    std::set<int> ids;
    Stmt s = c.prepare("SELECT position, id, cluster, model, job, started FROM runs ORDER BY position", "runs");
    while (c.step(s.get(), "runs")) {
        const Row r{c, s.get(), indexed("runs", p.runs.size())};
        runIndex[r.integer(0, "position")] = p.runs.size();
        Run run;
        run.id = r.smallInt(1, "id");
        run.cluster = r.text(2, "cluster");
        run.model = r.text(3, "model");
        run.job = r.text(4, "job");
        run.started = r.text(5, "started");
        checkRunColumns(r, run, ids);
        p.runs.push_back(std::move(run));
    }
    return runIndex;
}

RunResult readRunResult(const Row& r, const std::string& path)
{
    RunResult rr;
    rr.planner = r.text(1, "planner");
    // The plan JSON's rule for its "planner": any planner's name, ours or another tool's, if it is plain.
    if (const std::string why = plainNameProblem(rr.planner); !why.empty())
        throw InputError(path, r.field + ".planner", why);
    const QJsonObject opts = r.json(2, "options");
    for (auto o = opts.begin(); o != opts.end(); ++o) {
        if (!o.value().isString())
            throw InputError(path, r.field + ".options." + o.key().toStdString(), "expected a string");
        rr.options[o.key().toStdString()] = o.value().toString().toStdString();
    }
    const std::string status = r.text(3, "status");
    if (!parseRunStatus(status, rr.status))
        throw InputError(path, r.field + ".status", "expected ok, infeasible, not-applicable, cancelled or error, got " +
                                                        quotedInput(status));
    rr.message = r.text(4, "message");
    rr.durationSeconds = r.real(5, "duration_seconds");
    if (!r.isNull(6)) {
        const QJsonObject doc = r.json(6, "plan");
        rr.plan = readDocument(path, r.field + ".plan", [&] { return planFromJson(doc, path); });
        if (rr.plan->planner != rr.planner)
            throw InputError(path, r.field + ".planner",
                             "does not match its plan's planner " + quotedInput(rr.plan->planner));
    }
    return rr;
}

// A result's plan was made on its run's cluster and model (the names the run recorded).
void checkResultOfRun(const RunResult& rr, const Run& run, const std::string& runField, const Row& r)
{
    if (!rr.plan)
        return;
    const std::pair<const std::string&, const std::string&> names[] = {{run.cluster, rr.plan->cluster.name},
                                                                       {run.model, rr.plan->model.name}};
    const char* columns[] = {"cluster", "model"};
    for (int i = 0; i < 2; ++i)
        if (names[i].first != names[i].second)
            throw InputError(r.c.path(), runField + "." + columns[i],
                             "does not match the " + std::string(columns[i]) + " " + quotedInput(names[i].second) +
                                 " its result " + r.field + ".plan was made on");
}

void readRunResults(const Conn& c, Project& p, const std::map<long long, size_t>& runIndex)
{
    Stmt s = c.prepare("SELECT run_position, planner, options, status, message, duration_seconds, plan "
                       "FROM run_results ORDER BY run_position, position",
                       "run_results");
    for (size_t i = 0; c.step(s.get(), "run_results"); ++i) {
        const Row r{c, s.get(), indexed("run_results", i)};
        const auto it = runIndex.find(r.integer(0, "run_position"));
        if (it == runIndex.end())
            throw InputError(c.path(), r.field + ".run_position", "refers to no run");
        Run& run = p.runs[it->second];
        run.results.push_back(readRunResult(r, c.path()));
        checkResultOfRun(run.results.back(), run, indexed("runs", it->second), r);
    }
}

int intOr(const QString& text, int fallback)
{
    const std::optional<long long> v = wholeNumber(text.toStdString()); // the one number rule
    return v && *v >= INT_MIN && *v <= INT_MAX ? int(*v) : fallback;
}

} // namespace

void readProjectTables(const Conn& c, Project& p)
{
    readClusters(c, p);
    readProfiles(c, p, readModels(c, p));
    readJobs(c, p);
    readRunResults(c, p, readRuns(c, p));
}

// The selection rows of meta; a value that does not parse counts as absent (it is view state only).
ProjectSelection readSelection(const Conn& c)
{
    ProjectSelection sel;
    Stmt s = c.prepare("SELECT key, value FROM meta", "meta");
    while (c.step(s.get(), "meta")) {
        if (sqlite3_column_type(s.get(), 0) != SQLITE_TEXT || sqlite3_column_type(s.get(), 1) != SQLITE_TEXT)
            continue;
        const std::string key = reinterpret_cast<const char*>(sqlite3_column_text(s.get(), 0));
        const QString value = QString::fromUtf8(reinterpret_cast<const char*>(sqlite3_column_text(s.get(), 1)));
        if (key == "selected_cluster")
            sel.cluster = value.toStdString();
        else if (key == "selected_model")
            sel.model = value.toStdString();
        else if (key == "selected_job")
            sel.job = value.toStdString();
        else if (key == "selected_run")
            sel.run = intOr(value, sel.run);
        else if (key == "selected_result")
            sel.resultIndex = intOr(value, sel.resultIndex);
        else if (key == "ticked_planners") { // names only tick what the registry has (RunPanel::setChecked)
            sel.planners.emplace();
            for (const QString& name : value.split(',', Qt::SkipEmptyParts))
                sel.planners->push_back(name.toStdString());
        }
    }
    return sel;
}

} // namespace hetplan::projectdb
