#pragma once
// The table readers behind loadProject() (project_store.cpp checks and migrates the file first).
#include "project_sqlite.h"
#include "project_store.h"

#include "core/model/project.h"

namespace hetplan::projectdb {

// The clusters, models with their profiles, jobs and runs with their results, in the file's order.
void readProjectTables(const Conn& c, Project& p);
// The selection rows of the meta table; a value that does not parse counts as absent (it is view state).
ProjectSelection readSelection(const Conn& c);

} // namespace hetplan::projectdb
