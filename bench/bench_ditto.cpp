// Targets (Ditto paper fig. 9 needs minutes for Ditto and 10 hours for the exhaustive search on Ex3):
// `ditto` (DP and greedy recovery) < 0.1 s and `exhaustive` < 10 s on every Ditto example Ex1-Ex5 with
// gpt2-xl (profile example:gpt2-xl-ditto, gbs 128); the re-plan after one node of ditto-ex3 fails, from
// the stored templates (--reuse), < 50 ms. Counters: the paper's objective T and the simulated iteration.
#include "bench.h"

#include "core/io/examples.h"
#include "core/planners/planner.h"

#include <string>

using namespace hetplan;

namespace {

PlanRequest dittoRequest(const std::string& cluster)
{
    PlanRequest req;
    req.cluster = exampleCluster(cluster);
    req.model = buildExampleModel("gpt2-xl");
    req.job.globalBatchSize = 128;
    req.job.sequenceLength = req.model.arch.sequence;
    req.profile = exampleProfile("gpt2-xl-ditto", req.model, req.job);
    return req;
}

// The planner alone (cost model built beforehand), then the plan scored once for the counters.
void templatePlan(benchmark::State& state, const std::string& cluster, const std::string& planner,
                  const std::map<std::string, std::string>& options, double targetMs)
{
    const auto p = PlannerRegistry::instance().create(planner);
    PlanRequest req = dittoRequest(cluster);
    req.options = resolveOptions(*p, options);
    const CostModel costs(req.model, req.job, req.profile);
    Plan plan;
    bool feasible = true;
    for (auto _ : state) {
        Progress progress;
        try {
            plan = p->plan(req, costs, progress);
        } catch (const std::exception&) {
            feasible = false;
        }
    }
    if (feasible) {
        PlanRequest scored = req;
        scored.options = options;
        Progress progress;
        plan = runPlanner(planner, scored, progress);
        state.counters["T"] = *plan.plannerEstimate;
        state.counters["iteration_s"] = plan.estimate.iterationSeconds;
        state.counters["stages"] = double(plan.pipelines.at(0).stages.size());
    }
    state.SetLabel(bench::targetLabel(targetMs, feasible ? "" : "no plan (infeasible)"));
}

// ditto-ex3 minus one RTX 4090 node, re-planned from the full cluster's stored templates.
void replanAfterFailure(benchmark::State& state)
{
    PlanRequest req = dittoRequest("ditto-ex3");
    Progress first;
    const Plan full = runPlanner("ditto", req, first);
    req.cluster = withoutNodes(req.cluster, {"rtx4090-0"}, "bench");
    req.reuse = full.details;
    Plan plan;
    for (auto _ : state) {
        Progress progress;
        plan = runPlanner("ditto", req, progress); // end to end: validation, plan, simulation
    }
    state.counters["T"] = *plan.plannerEstimate;
    state.counters["iteration_s"] = plan.estimate.iterationSeconds;
    state.counters["reused"] = plan.details.at("ditto").value("reused").toBool() ? 1 : 0;
    state.SetLabel(bench::targetLabel(50));
}

// The same failure as the GUI sees it: the node marked failed in the cluster (runPlanner leaves it out).
void replanMarkedFailed(benchmark::State& state)
{
    PlanRequest req = dittoRequest("ditto-ex3");
    Progress first;
    const Plan full = runPlanner("ditto", req, first);
    req.cluster.nodes.at(size_t(*req.cluster.findNode("rtx4090-0"))).failed = true;
    req.reuse = full.details;
    Plan plan;
    for (auto _ : state) {
        Progress progress;
        plan = runPlanner("ditto", req, progress);
    }
    state.counters["gpus"] = plan.cluster.gpuCount();
    state.counters["iteration_s"] = plan.estimate.iterationSeconds;
    state.counters["reused"] = plan.details.at("ditto").value("reused").toBool() ? 1 : 0;
    state.SetLabel(bench::targetLabel(50));
}

void registerAll()
{
    for (int e = 1; e <= 5; ++e) {
        const std::string ex = "ditto-ex" + std::to_string(e);
        benchmark::RegisterBenchmark(("ditto_dp/" + ex).c_str(), templatePlan, ex, "ditto",
                                     std::map<std::string, std::string>{{"recovery", "dp"}}, 100.0)
            ->Apply(bench::wallMilliseconds);
        benchmark::RegisterBenchmark(("ditto_greedy/" + ex).c_str(), templatePlan, ex, "ditto",
                                     std::map<std::string, std::string>{{"recovery", "greedy"}}, 100.0)
            ->Apply(bench::wallMilliseconds);
        benchmark::RegisterBenchmark(("exhaustive/" + ex).c_str(), templatePlan, ex, "exhaustive",
                                     std::map<std::string, std::string>{}, 10000.0)
            ->Apply(bench::wallMilliseconds)
            ->Iterations(1);
    }
    benchmark::RegisterBenchmark("ditto_replan/ditto-ex3-without-rtx4090-0", replanAfterFailure)
        ->Apply(bench::wallMilliseconds);
    benchmark::RegisterBenchmark("ditto_replan/ditto-ex3-rtx4090-0-marked-failed", replanMarkedFailed)
        ->Apply(bench::wallMilliseconds);
}

const bool registered = (registerAll(), true);

} // namespace
