#pragma once
// The table writers behind saveProject() (project_store.cpp makes the file, then renames it into place).
#include "project_sqlite.h"
#include "project_store.h"

#include "core/model/project.h"

#include <functional>
#include <string>

namespace hetplan::projectdb {

// Writes `p` and `selection` into the empty database `c` in one transaction: the identity pragmas, the
// schema `schemaSql` of version `schemaVersion`, every table, then the content hash. `stage("tables")` is
// called once the first table is written (tests interrupt a save there).
void writeProject(const Conn& c, const Project& p, const ProjectSelection& selection, int schemaVersion,
                  const char* schemaSql, const std::function<void(const std::string&)>& stage);

} // namespace hetplan::projectdb
