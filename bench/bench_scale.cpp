// Planners end to end (as `hetplan-cli plan` runs them) on the generated 1024- and 4096-GPU, 8-type
// clusters and the 200-layer GPT, global batch 1024. amp has time targets (below); the others track how
// planning time grows with scale.
#include "bench.h"
#include "scale_inputs.h"

#include "core/base/errors.h"
#include "core/planners/planner.h"

#include <map>
#include <string>

using namespace hetplan;

namespace {

struct ScaleRun {
    const char* planner;
    double timeLimitSeconds; // 0 = none; searches stop there and keep their best plan
    bool slow;               // takes minutes on these inputs: skipped unless --include-slow
};

// uniform, data-parallel and random find nothing that fits; they are timed reaching that answer. amp
// (targets: < 1 s at 1024 GPUs, < 3 s at 4096) is no longer slow. Every planner at both sizes, with
// wall time and peak RSS per child process, is `make bench-scale` (bench/scale_table.py).
const ScaleRun kScaleRuns[] = {
    {"uniform", 0, false}, {"data-parallel", 0, false}, {"megatron", 0, false},
    {"random", 2, false},  {"annealing", 5, false},     {"amp", 0, false},
};

const int kScaleGpus[] = {1024, 4096};

const PlanRequest& scaleRequest(int gpus)
{
    static std::map<int, PlanRequest> requests; // registered and run from the main thread only
    auto it = requests.find(gpus);
    if (it == requests.end()) {
        PlanRequest r;
        r.cluster = bench::makeScaleCluster(bench::scaleClusterShape(gpus));
        r.model = bench::makeScaleModel();
        r.job.globalBatchSize = 1024;
        r.job.sequenceLength = r.model.arch.sequence;
        it = requests.emplace(gpus, std::move(r)).first;
    }
    return it->second;
}

// "time limit 2 s, stopped: time-limit", "infeasible", ... ("" for a plain finished run).
std::string outcome(const ScaleRun& run, const Plan& plan, const std::string& noPlan)
{
    const std::string limit =
        run.timeLimitSeconds > 0 ? "time limit " + std::to_string(int(run.timeLimitSeconds)) + " s" : "";
    const std::string stopped = plan.search.stopped == StopReason::None ? "" : "stopped: " + toString(plan.search.stopped);
    const std::string result = noPlan.empty() ? stopped : noPlan;
    return limit.empty() || result.empty() ? limit + result : limit + ", " + result;
}

void scalePlan(benchmark::State& state, const ScaleRun& run, int gpus)
{
    PlanRequest req = scaleRequest(gpus);
    req.timeLimitSeconds = run.timeLimitSeconds;
    Plan plan;
    std::string noPlan; // why a run ended without a plan; finding that quickly is an answer too
    try {
        for (auto _ : state) {
            Progress progress({}, req.timeLimitSeconds);
            try {
                plan = runPlanner(run.planner, req, progress);
            } catch (const InfeasibleError&) {
                noPlan = "infeasible";
            } catch (const CancelledError&) {
                noPlan = "no feasible plan within the limit";
            }
        }
    } catch (const std::exception& e) { // bad input
        state.SkipWithError(e.what());
        return;
    }
    if (noPlan.empty()) {
        state.counters["iteration_s"] = plan.estimate.iterationSeconds;
        state.counters["gpus_used"] = double(plan.usedGpus().size());
    }
    const bool amp = std::string(run.planner) == "amp";
    state.SetLabel(bench::targetLabel(amp ? (gpus <= 1024 ? 1000 : 3000) : 0, outcome(run, plan, noPlan)));
}

} // namespace

void bench::registerScaleBenchmarks(bool includeSlow)
{
    const ScaleModelShape model;
    for (int gpus : kScaleGpus) {
        const std::string prefix =
            "scale/" + std::to_string(gpus) + "_gpus/gpt-" + std::to_string(model.layerCount()) + "/";
        for (const ScaleRun& run : kScaleRuns) {
            const std::string name = (run.slow && !includeSlow ? "DISABLED_" : "") + prefix + run.planner;
            benchmark::RegisterBenchmark(name.c_str(), scalePlan, run, gpus)->Apply(bench::wallMilliseconds);
        }
    }
}
