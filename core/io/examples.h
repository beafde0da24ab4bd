#pragma once
// The bundled examples: clusters from resources/clusters/*.json and models from the builders, addressed
// by name or by "example:NAME" / file path specs (CLI and GUI).
#include "core/model/cluster.h"
#include "core/model/job.h"
#include "core/model/model.h"
#include "core/model/profile.h"

#include <string>
#include <vector>

namespace hetplan {

std::vector<std::string> exampleClusterNames();
Cluster exampleCluster(const std::string& name); // throws InputError if unknown

// What a picker shows of each bundled cluster, by name: its one-paragraph description and GPU count.
struct ExampleClusterInfo {
    std::string name, description;
    int gpus = 0;
};
std::vector<ExampleClusterInfo> exampleClusterInfos();

// "example:NAME" or a JSON file path.
Cluster loadCluster(const std::string& spec);
ModelSpec loadModel(const std::string& spec, int sequence = 0);

} // namespace hetplan

namespace hetplan {

// Named example profiles ("example:NAME" for --profile). `gpt2-xl-ditto` is the Ditto paper's experiment
// (section 7.1): one measured-style table per GPU type of fig. 8, each the RTX 4090's per-layer times
// (analytic, tp 1, micro-batches 1-16) divided by the type's relative gpt2-xl throughput over the 4090's
// (V100 1.0, RTX 3090 2.0, RTX A6000 2.95, RTX 4090 3.8, A100 80GB PCIe 5.99), as the paper synthesised its
// other devices from one profiled 4090. Only for the model it is named after (gpt2-xl).
std::vector<std::string> exampleProfileNames();
Profile exampleProfile(const std::string& name, const ModelSpec& model, const Job& job);
// "example:NAME" or a profile JSON file path.
Profile loadProfile(const std::string& spec, const ModelSpec& model, const Job& job);

} // namespace hetplan
