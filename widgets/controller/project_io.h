#pragma once
// File ▸ Import / Export of one cluster, model or plan as the JSON the CLI reads and writes (core/io/json_io:
// readCluster / readModel / readPlan and toJson), so work moves between the GUI and hetplan-cli both ways.
#include "project_document.h"

#include <string>

namespace hetplan {

enum class JsonItem { Cluster, Model, Plan };

// Reads `path` and adds what it holds to the project, made current: a cluster or model as one undo step
// (a name the project has already is imported as "name (2)"), a plan as a new run with that one result.
// Returns the name it got ("Run N" for a plan). A bad file throws InputError (file: field: reason) and
// leaves the project as it was.
std::string importJson(ProjectDocument& doc, JsonItem kind, const std::string& path);

// Writes the current cluster / model / plan to `path` (atomically); throws InputError when there is none
// or the file cannot be written.
void exportJson(const ProjectDocument& doc, JsonItem kind, const std::string& path);

} // namespace hetplan
