#pragma once
// JSON readers/writers for the domain types (the only place, with the SQLite store, that touches Qt's
// JSON). Readers validate and throw InputError(file, field, reason); field paths look like
// "nodes[2].gpus".
#include "core/model/catalog_json.h"
#include "core/model/cluster.h"
#include "core/model/job.h"
#include "core/model/model.h"
#include "core/model/plan.h"
#include "core/model/profile.h"

#include <QJsonObject>
#include <string>

namespace hetplan {

QJsonObject toJson(const Cluster& c);
Cluster clusterFromJson(const QJsonObject& o, const std::string& file, bool allowEmpty = false);

QJsonObject toJson(const ModelSpec& m);
ModelSpec modelFromJson(const QJsonObject& o, const std::string& file);

QJsonObject toJson(const Job& j);
Job jobFromJson(const QJsonObject& o, const std::string& file, Job defaults = {});

QJsonObject toJson(const Profile& p);
Profile profileFromJson(const QJsonObject& o, const std::string& file);

// Plan JSON (hetplan.plan/1), including its inputs.
QJsonObject toJson(const Plan& p);
Plan planFromJson(const QJsonObject& o, const std::string& file);
// The plan document's own top-level keys, and whether every plan has it; any other key holding an object is a
// planner's section (Plan::details).
struct PlanKey {
    const char* key;
    bool required;
};
const std::vector<PlanKey>& planKeys();

// Files. Reading reports a missing file or bad JSON as InputError(path, "", reason). Writing goes through
// writeOutputFile (core/base/output_file.h): a regular file is replaced atomically (temporary file +
// rename, so a failure never leaves a partial file), a device or FIFO is written through, and anything
// else is refused.
QJsonObject readJsonFile(const std::string& path);
void writeJsonFile(const std::string& path, const QJsonObject& o);
void writeTextFile(const std::string& path, const std::string& text);
// Several outputs of one command: all are prepared (temporary files) before any is committed, so a bad
// path for one leaves none of them behind.
void writeTextFiles(const std::vector<std::pair<std::string, std::string>>& files);

Cluster readCluster(const std::string& path);
ModelSpec readModel(const std::string& path);
Job readJob(const std::string& path, Job defaults = {});
Profile readProfile(const std::string& path);
Plan readPlan(const std::string& path);

} // namespace hetplan
