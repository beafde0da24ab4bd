#pragma once
// Cross-planner consistency over a seeded grid of generated scenarios: clusters of 2-4 catalog types with
// node overrides (a larger runtime overhead, slower NICs), bundled models and a range of batches. Every
// planner runs on every scenario; the checks are what a user must be able to rely on:
//  - no planner returns a plan (exit 0) that the simulator finds too big for a GPU;
//  - a planner never fails where a planner whose search space it contains succeeds, and is never beaten
//    by it (by more than the tolerance). The containments hold by construction here: hap builds the two
//    data-parallel programs (dp-even, dp-proportional) and keeps the fastest simulated; poplar builds the
//    uniform (deepspeed-zero) and FLOP/s-proportional (whale) allocations at its stage likewise; exhaustive
//    searches every single-pipeline template ditto can recover, so on their shared objective T (and in
//    feasibility) it is never worse than ditto, and ditto stays within 8 % of it; metis scores AMP's and
//    HetHub's best plans (one shape for every stage, inside its space) beside its own templates;
//  - uniform, megatron and oobleck are compared with the best plan but not checked against exhaustive:
//    their stages may mix device types (tp·dp groups across nodes of different types) or their pipelines
//    differ per node group, which exhaustive's space (one type per stage, identical pipelines) lacks.
// The small grid runs in the test suite; `hetplan-consistency` runs a larger one and prints the table.
#include "core/planners/planner.h"

#include <string>
#include <vector>

namespace hetplan::bench {

struct Scenario {
    std::string name; // "s3: 48 GPUs (2×A100-40GB×8, 4×T4×4) gpt2-amp gbs 128"
    PlanRequest request;
};

struct GridShape {
    unsigned seed = 1;
    int scenarios = 8;
    int minGpus = 8, maxGpus = 64;
    std::vector<std::string> models{"gpt2-amp", "opt-350m", "llama-0.5b"};
};
std::vector<Scenario> consistencyGrid(const GridShape& shape);

struct Outcome {
    std::string planner;
    enum class Kind { Plan, Infeasible, NotApplicable, Stopped } kind = Kind::Infeasible;
    double simulated = 0;    // iteration seconds, when a plan
    double objective = -1;   // the template objective T (ditto, exhaustive), when a plan
    bool feasible = false;   // the plan fits memory when simulated again from its JSON
    bool stoppedEarly = false; // a best-so-far plan (time limit): it promises no optimum
    double searchSeconds = 0;
    std::string message;
};

struct ScenarioRun {
    Scenario scenario;
    std::vector<Outcome> outcomes; // one per planner, in the given order
    const Outcome* find(const std::string& planner) const;
    double best() const; // the fastest simulated plan of any planner (0 when none)
};

std::vector<ScenarioRun> runGrid(const std::vector<Scenario>& grid, const std::vector<std::string>& planners,
                                 double timeLimitSeconds);

// One broken promise: "infeasible-ok", "false-infeasible" or "beaten".
struct Violation {
    std::string scenario, planner, containing, kind, detail;
};
// `tolerance`: how much slower than a contained planner's plan a containing planner may be (0.01 = 1 %).
std::vector<Violation> checkConsistency(const std::vector<ScenarioRun>& runs, double tolerance = 0.01);

// A Markdown table per planner: scenarios with a plan, infeasible plans returned, false "no plan" against
// the planners it contains, median and worst ratio of its simulated time to the best of any planner,
// median search time of the scenarios it planned (refusals return at once).
std::string consistencyTable(const std::vector<ScenarioRun>& runs);

} // namespace hetplan::bench
