#pragma once
// The bundled examples: clusters from resources/clusters/*.json and models from the builders, addressed
// by name or by "example:NAME" / file path specs (CLI and GUI).
#include "core/model/cluster.h"
#include "core/model/model.h"

#include <string>
#include <vector>

namespace hetplan {

std::vector<std::string> exampleClusterNames();
Cluster exampleCluster(const std::string& name); // throws InputError if unknown

// "example:NAME" or a JSON file path.
Cluster loadCluster(const std::string& spec);
ModelSpec loadModel(const std::string& spec, int sequence = 0);

} // namespace hetplan
