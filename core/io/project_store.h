#pragma once
// The *.hetplan project file: one SQLite database holding a whole Project.
//
// Identity: PRAGMA application_id = kProjectApplicationId ('HETP'), PRAGMA user_version = schema version.
// Schema version 1 (every table keeps the project's vector order in `position`, its INTEGER PRIMARY KEY):
//   clusters(position, name, document)          document = hetplan.cluster/1 JSON (canvas x/y in nodes)
//   models(position, name, document)            document = hetplan.model/1 JSON
//   profiles(model_position, model, source, document)   measured profile of models[model_position],
//                                               hetplan.profile/1 JSON; no row = empty profile
//   jobs(position, name, document)              document = hetplan.job/1 JSON
//   runs(position, id, cluster, model, job, started)
//   run_results(run_position, position, planner, options, status, message, duration_seconds, plan)
//                                               options = JSON object of strings; plan = hetplan.plan/1
//                                               JSON or NULL
//   meta(key, value)                            'content_sha256': hash over every other table's rows;
//                                               'selected_cluster', 'selected_model', 'selected_job',
//                                               'selected_run', 'selected_result': what the user had
//                                               selected; 'ticked_planners': the Run tab's ticks,
//                                               comma-separated (ProjectSelection; absent in older files)
// Items are stored as their JSON documents (the same readers/writers as the CLI's files, so they
// round-trip exactly), with the names repeated in indexed columns for outside tools (sqlite3, scripts).
//
// Loading opens the file read-only and never writes to it. It refuses, with InputError(path, field,
// reason): non-SQLite files, SQLite files of other applications, files from a newer hetplan (higher
// user_version), files failing PRAGMA integrity_check or the content hash (damaged or edited outside
// hetplan), rows whose JSON does not parse, and columns that break the rules their plan-JSON or document
// counterparts follow (project_store_read.cpp: a result's planner must be a plain name and its plan's, a
// run's cluster and model those its plans were made on, names not empty and unique per table, run ids
// unique, a run's start an ISO 8601 time). A file cut short is named as truncated. It creates no side
// file: a WAL-mode file (written by another tool) opens immutable, and a hot "-journal" or a non-empty
// "-wal" beside the file (another program's unfinished change) is refused with what to do, since reading
// past it would mean writing. Older schema versions are migrated step by step
// (k → k+1) on an in-memory copy; the file itself is left as it is until the user saves.
//
// Saving is atomic: the project goes to a fresh temporary file next to the target
// ("<path>.tmp-XXXXXX"), is synced, re-read and checked with loadProject, and only then renamed over the
// target. A failure or a crash at any point leaves the previous file untouched (a crash may leave the
// temporary file behind; it is never read).
#include "core/model/project.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace hetplan {

constexpr std::int32_t kProjectApplicationId = 0x48455450; // "HETP"

int projectSchemaVersion(); // the version saveProject writes

// What the user had selected when the project was saved: view state, not project data, so it lives in
// meta rows outside the content hash, and a missing or unreadable value just reads as "none" (the app
// then picks its defaults) instead of refusing the file.
struct ProjectSelection {
    std::string cluster, model, job; // names; "" = none
    int run = 0;                     // run id; 0 = none
    int resultIndex = -1;            // index in that run's results; -1 = none
    // The Run tab's ticked planners; nullopt = the file has none saved (older files): the app's defaults.
    std::optional<std::vector<std::string>> planners;
    bool operator==(const ProjectSelection&) const = default;
};

void saveProject(const Project& project, const std::string& path, const ProjectSelection& selection = {});
// `selection`, when given, receives the stored selection ({} when the file has none).
Project loadProject(const std::string& path, ProjectSelection* selection = nullptr);

// A cheap look at a file without loading it (never throws): is it a hetplan project this build can
// open, which schema version, and how many items. No integrity or hash check (loadProject does those).
struct ProjectInfo {
    bool exists = false;
    bool isSqlite = false;
    bool isProject = false; // application_id matches
    int schemaVersion = 0;  // user_version
    bool ok = false;        // a project this build can load (modulo damage found on load)
    std::string reason;     // why not, when !ok
    int clusters = 0, models = 0, jobs = 0, runs = 0;
};
ProjectInfo probeProject(const std::string& path);

namespace testing {
// Test hook called by saveProject at named points ("opened", "tables", "written", "synced",
// "before-rename"); a hook that throws makes the save fail there. Pass {} to remove it.
void setProjectSaveHook(std::function<void(const std::string& stage)> hook);
} // namespace testing

} // namespace hetplan
