#pragma once
// The one shared test helper: fixture paths, temp dirs, running the CLI, small hand-made inputs.
#include "core/model/cluster.h"
#include "core/model/job.h"
#include "core/model/model.h"

#include <QString>
#include <QStringList>
#include <string>

namespace hetplan::test {

// tests/fixtures/<rel>
std::string fixture(const std::string& rel);
std::string sourceDir();

struct CliResult {
    int exitCode = -1;
    QString out, err;
};
// Runs the built hetplan-cli with the given arguments (30 s timeout).
CliResult runCli(const QStringList& args);

// A small two-node cluster: node "a" with `gpusA` GPUs of typeA, node "b" with `gpusB` of typeB.
Cluster twoNodeCluster(const std::string& typeA, int gpusA, const std::string& typeB, int gpusB,
                       double nicBandwidth = 1.25e9);
// A uniform toy model: `layers` identical layers with the given per-sample forward FLOP and params.
ModelSpec toyModel(int layers, double flopsPerLayer = 1e9, double paramsPerLayer = 1e6,
                   double outputBytes = 1e5);

} // namespace hetplan::test
