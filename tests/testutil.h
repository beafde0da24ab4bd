#pragma once
// The one shared test helper: fixture paths, temp dirs, running the CLI, small hand-made inputs.
#include "core/base/errors.h"
#include "core/model/cluster.h"
#include "core/model/job.h"
#include "core/model/model.h"
#include "core/model/plan.h"

#include <QString>
#include <QStringList>
#include <optional>
#include <string>

namespace hetplan {
class CostModel;
}

namespace hetplan::test {

// tests/fixtures/<rel>
std::string fixture(const std::string& rel);
std::string sourceDir();

// How long a test waits for a signal or a child process before calling it hung. A wait returns as soon as
// what it waits for happens, so this is no speed bound: it is long enough for a machine loaded twenty times
// over (CI may be busy), and a test never fails because the machine is slow.
constexpr int kHangGuardMs = 600000;

struct CliResult {
    int exitCode = -1;
    QString out, err;
    double cpuSeconds = 0; // the child's user + system CPU time: a bound that a busy machine does not move
};
// Runs hetplan-cli; a run past `timeoutMs` is killed (exitCode -1, err "timeout"). A non-zero
// `memoryCapBytes` caps the child's address space (RLIMIT_AS), so a runaway allocation fails in the child.
CliResult runCli(const QStringList& args, int timeoutMs = kHangGuardMs, unsigned long long memoryCapBytes = 0);

// A small two-node cluster: node "a" with `gpusA` GPUs of typeA, node "b" with `gpusB` of typeB.
Cluster twoNodeCluster(const std::string& typeA, int gpusA, const std::string& typeB, int gpusB,
                       double nicBandwidth = 1.25e9);
// A uniform toy model: `layers` identical layers with the given per-sample forward FLOP and params.
ModelSpec toyModel(int layers, double flopsPerLayer = 1e9, double paramsPerLayer = 1e6, double outputBytes = 1e5);

// Runs `f` and returns the InputError it threw, or nothing if it returned normally (other exceptions pass).
template <typename F>
std::optional<InputError> errorOf(F&& f)
{
    try {
        f();
    } catch (const InputError& e) {
        return e;
    }
    return std::nullopt;
}

// Structural invariants of a pipeline plan, checked with QTest macros (on failure the current test is
// marked failed and this returns early; callers follow with `if (QTest::currentTestFailed()) return;`):
// every pipeline assigns each layer exactly once, in order, to non-empty stages; each stage holds
// replicas × tensorParallel × dataParallel GPUs; no GPU is used twice; the pipelines' samples add up to
// the global batch. With `allGpusUsed` every GPU of the cluster must be used; with `costsForMemory`
// every stage's 1F1B peak (CostModel::stagePeak, min(S - s, M) micro-batches in flight) must fit each of its
// GPUs (fitsMemory, device types looked up in that cost model).
void checkPipelineInvariants(const Plan& plan, const CostModel* costsForMemory = nullptr, bool allGpusUsed = false);

} // namespace hetplan::test
