#include "planner.h"

#include "core/base/errors.h"
#include "core/base/quote.h"
#include "core/planners/megatron_space.h"
#include "core/planners/selection.h"
#include "core/sim/simulator.h"
#include "core/sim/summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <set>
#include <stdexcept>

namespace hetplan {

// ---------------------------------------------------------------- options

const std::string& PlanRequest::option(const std::string& key) const { return textOption(options, key); }
int PlanRequest::intOption(const std::string& key) const { return hetplan::intOption(options, key); }
double PlanRequest::doubleOption(const std::string& key) const { return hetplan::doubleOption(options, key); }
bool PlanRequest::boolOption(const std::string& key) const { return hetplan::boolOption(options, key); }

std::map<std::string, std::string> resolveOptions(const Planner& planner,
                                                  const std::map<std::string, std::string>& given)
{
    return resolveOptions(planner.options(), given, "planner '" + planner.name() + "'");
}

// ---------------------------------------------------------------- progress

Progress::Progress(Callback cb, double timeLimitSeconds, std::stop_token stop) : cb_(std::move(cb))
{
    setTimeLimit(timeLimitSeconds);
    if (stop.stop_possible())
        forward_.emplace(stop, Forward{&source_}); // runs at once when that token is stopped already
}

double searchShareOfTimeLimit(double seconds)
{
    // The limit covers the whole run. What follows the search, scoring its plan with the simulator and
    // summarizing the timeline, cannot stop early (a plan is returned whole) and takes about a second for
    // a thousand-GPU pipeline: it gets a quarter of the limit, at most 5 s.
    return seconds - std::min(0.25 * seconds, 5.0);
}

void Progress::setTimeLimit(double seconds)
{
    // Non-finite or absurdly long limits (over ~30 years) mean "no limit" rather than an overflowing deadline.
    deadline_ = seconds > 0 && seconds < 1e9 ? std::chrono::steady_clock::now() +
                                                   std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                       std::chrono::duration<double>(searchShareOfTimeLimit(seconds)))
                                             : std::chrono::steady_clock::time_point::max();
}

void Progress::report(double fraction, const std::string& text) const
{
    if (cb_)
        cb_(std::clamp(fraction, 0.0, 1.0), text);
}

StopReason Progress::stopReason() const
{
    if (source_.stop_requested())
        return StopReason::Cancelled;
    if (std::chrono::steady_clock::now() > deadline_)
        return StopReason::TimeLimit;
    return StopReason::None;
}

void Progress::checkpoint() const
{
    switch (stopReason()) {
    case StopReason::None: return;
    case StopReason::Cancelled: throw CancelledError("cancelled");
    case StopReason::TimeLimit: throw CancelledError("time limit reached");
    }
}

// ---------------------------------------------------------------- registry

// builtin.cpp: adds every built-in planner.
void addBuiltinPlanners(PlannerRegistry& registry);

PlannerRegistry& PlannerRegistry::instance()
{
    static PlannerRegistry r = [] {
        PlannerRegistry builtin;
        addBuiltinPlanners(builtin);
        return builtin;
    }();
    return r;
}

void PlannerRegistry::add(Factory f)
{
    const std::string name = f()->name();
    if (name.empty())
        throw std::logic_error("a planner registered with an empty name");
    if (!factories_.emplace(name, std::move(f)).second)
        throw std::logic_error("planner '" + name + "' registered twice");
}

std::vector<std::string> PlannerRegistry::names() const
{
    std::vector<std::string> out;
    for (const auto& [k, v] : factories_)
        out.push_back(k);
    return out;
}

std::unique_ptr<Planner> PlannerRegistry::create(const std::string& name) const
{
    auto it = factories_.find(name);
    return it == factories_.end() ? nullptr : it->second();
}

// ---------------------------------------------------------------- running

PlanRequest requestForPlanner(const PlanRequest& request, const std::string& planner, const PlannerOptions& perPlanner)
{
    PlanRequest req = request;
    if (auto it = perPlanner.find(planner); it != perPlanner.end())
        for (const auto& [k, v] : it->second)
            req.options[k] = v;
    return req;
}

namespace {
// "v100-0/0 needs 17.2 GiB of 16.0 GiB usable": the GPU whose simulated peak is furthest over its usable
// memory, for a refusal the user can act on.
std::string worstMemoryMisfit(const Plan& plan, const CostModel& costs)
{
    std::string worst;
    double ratio = 0;
    for (const auto& [gpu, peak] : plan.estimate.peakMemoryBytes) {
        const Node& node = plan.cluster.nodeOf(gpu);
        const DeviceType& d = costs.device(node.deviceType);
        const double usable = d.memoryBytes * (1 - plan.job.memoryMargin);
        if (peak > usable && peak / usable > ratio) {
            ratio = peak / usable;
            char text[160];
            std::snprintf(text, sizeof text, "%s needs %.2f GiB of its %.2f GiB usable",
                          plan.cluster.gpuName(gpu).c_str(), peak / 1073741824.0, usable / 1073741824.0);
            worst = text;
        }
    }
    return worst.empty() ? std::string("no GPU named") : worst;
}
} // namespace

namespace {
// One planner on one cluster for one job: plans, checks and scores (no timeline summary, which runPlanner
// adds once).
Plan planAndScoreOnce(const std::string& plannerName, const PlanRequest& request, Progress& progress)
{
    auto planner = PlannerRegistry::instance().create(plannerName);
    if (!planner) {
        std::string known;
        for (const std::string& n : PlannerRegistry::instance().names())
            known += (known.empty() ? "" : ", ") + n;
        throw InputError("--planner", "planner", "unknown planner '" + plannerName + "' (known: " + known + ")");
    }
    PlanRequest resolved = request;
    resolved.options = resolveOptions(*planner, request.options);
    request.cluster.validate(DeviceCatalog::builtin(), "cluster");
    // Nodes marked failed are left out here, once, so every front end (CLI, GUI, benchmarks) plans on the
    // same GPUs and `"failed": true` means what `--without` means. The plan's cluster is the remainder.
    resolved.cluster = withoutFailedNodes(request.cluster);
    if (resolved.cluster.nodes.empty())
        throw InfeasibleError(plannerName + ": every node of cluster '" + request.cluster.name +
                              "' is marked failed: no GPU is left to plan on");
    request.model.validate("model");
    request.job.validate("job");
    const CostModel costs(request.model, request.job, request.profile);

    progress.report(0, "planning with " + plannerName);
    const auto t0 = std::chrono::steady_clock::now();
    Plan plan = planner->plan(resolved, costs, progress);
    plan.search.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    plan.planner = plannerName;
    plan.options = resolved.options; // every option, defaults included, so the plan says how it was made
    plan.cluster = resolved.cluster;
    plan.model = request.model;
    plan.job = request.job;
    std::set<std::string> types;
    for (int n : plan.cluster.nodesOf(plan.usedGpus()))
        types.insert(plan.cluster.nodes[size_t(n)].deviceType);
    plan.profile = request.profile.restrictedTo({types.begin(), types.end()});
    plan.validate("plan");
    // A search that finished before the user cancelled is dropped rather than scored: scoring a large plan
    // (simulation, then the timeline summary) takes longer than a cancel may. A search stopped by the
    // cancel returns its best so far, scored, as promised.
    const auto dropIfCancelled = [&] {
        if (plan.search.stopped == StopReason::None && progress.stopReason() == StopReason::Cancelled)
            throw CancelledError("cancelled");
    };
    dropIfCancelled();
    progress.report(0.99, "simulating");
    scorePlan(plan, costs);
    dropIfCancelled();
    if (!std::isfinite(plan.estimate.iterationSeconds) || !(plan.estimate.iterationSeconds > 0))
        throw InputError("plan", "estimate.iteration_seconds",
                         "the simulated iteration time is not a positive finite number: check the model's sizes and "
                         "the cluster's bandwidths and latencies");
    // A plan the simulator finds too big for some GPU is no plan, whatever the planner's own memory model
    // said (the SPMD planners do not search memory at all: HAP's paper leaves it out). Only a planner told
    // to keep memory misfits (keep_infeasible, AMP's search as published) returns one.
    if (!plan.estimate.feasible && plan.options["keep_infeasible"] != "true")
        throw InfeasibleError(plan.kind() == PlanKind::Spmd
                                  ? plannerName + ": the synthesized program does not fit GPU memory on this cluster"
                                  : plannerName + ": its plan does not fit GPU memory when simulated (" +
                                        worstMemoryMisfit(plan, costs) + ")");
    return plan;
}
// planAndScoreOnce, for a planner that searches Megatron's options once per job variant they allow.
Plan planAndScore(const std::string& plannerName, const PlanRequest& request, Progress& progress)
{
    const auto planner = PlannerRegistry::instance().create(plannerName);
    if (planner && searchesMegatronSpace(*planner)) {
        PlanRequest resolved = request;
        resolved.options = resolveOptions(*planner, request.options);
        for (const char* family : kMegatronSpaceFamilies)
            if (resolved.boolOption(family))
                return planInMegatronSpace(plannerName, resolved, progress, planAndScoreOnce);
    }
    return planAndScoreOnce(plannerName, request, progress);
}
} // namespace

PlanSummary summaryWithin(const Plan& plan, const Progress& progress)
{
    const CostModel costs(plan.model, plan.job, plan.profile); // the job the plan chose (megatron_space.h)
    // Past the search's share of the time limit the timeline (several times the cost of a simulation
    // without events on a large pipeline) would overrun the limit: the summary comes from busy time.
    if (progress.stopReason() == StopReason::TimeLimit)
        return summarizeWithoutTimeline(plan, costs, "the time limit left no time to analyse the timeline");
    return summarize(plan, costs, plan.search.stopped == StopReason::None ? progress.stopToken() : std::stop_token{});
}

Plan runPlanner(const std::string& plannerName, const PlanRequest& request, Progress& progress)
{
    Plan plan;
    if (request.selectGpus || !request.objective.isDefault()) {
        // What no subset can fix is refused before the subsets are tried: an unknown planner, bad options.
        auto planner = PlannerRegistry::instance().create(plannerName);
        if (!planner)
            return planAndScore(plannerName, request, progress); // throws the unknown-planner error
        resolveOptions(*planner, request.options);
        request.cluster.validate(DeviceCatalog::builtin(), "cluster");
        request.model.validate("model");
        request.job.validate("job");
        const auto t0 = std::chrono::steady_clock::now();
        plan = runWithSelection(plannerName, request, progress, planAndScore);
        plan.search.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    } else {
        plan = planAndScore(plannerName, request, progress);
    }
    // Once per returned plan (it needs the timeline, searches do not); a finished search's timeline stops
    // on a cancel, a best-so-far plan's is completed.
    plan.summary = summaryWithin(plan, progress);
    progress.report(1, "done");
    return plan;
}

} // namespace hetplan
