#include "planner.h"

#include "core/base/errors.h"
#include "core/sim/simulator.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <set>

namespace hetplan {

// ---------------------------------------------------------------- options

std::string PlanRequest::option(const std::string& key, const std::string& def) const
{
    auto it = options.find(key);
    return it == options.end() ? def : it->second;
}

int PlanRequest::intOption(const std::string& key, int def) const
{
    auto it = options.find(key);
    if (it == options.end())
        return def;
    try {
        size_t used = 0;
        int v = std::stoi(it->second, &used);
        if (used != it->second.size())
            throw std::invalid_argument("trailing");
        return v;
    } catch (const std::exception&) {
        throw InputError("--option", key, "expected an integer, got '" + it->second + "'");
    }
}

double PlanRequest::doubleOption(const std::string& key, double def) const
{
    auto it = options.find(key);
    if (it == options.end())
        return def;
    try {
        size_t used = 0;
        double v = std::stod(it->second, &used);
        if (used != it->second.size())
            throw std::invalid_argument("trailing");
        return v;
    } catch (const std::exception&) {
        throw InputError("--option", key, "expected a number, got '" + it->second + "'");
    }
}

bool PlanRequest::boolOption(const std::string& key, bool def) const
{
    auto it = options.find(key);
    if (it == options.end())
        return def;
    if (it->second == "true" || it->second == "1" || it->second == "yes")
        return true;
    if (it->second == "false" || it->second == "0" || it->second == "no")
        return false;
    throw InputError("--option", key, "expected true or false, got '" + it->second + "'");
}

// ---------------------------------------------------------------- progress

Progress::Progress(Callback cb, double timeLimitSeconds) : cb_(std::move(cb)) { setTimeLimit(timeLimitSeconds); }

void Progress::setTimeLimit(double seconds)
{
    // Non-finite or absurdly long limits (over ~30 years) mean "no limit" rather than an overflowing deadline.
    deadline_ = seconds > 0 && seconds < 1e9 ? std::chrono::steady_clock::now() +
                                  std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                      std::chrono::duration<double>(seconds))
                            : std::chrono::steady_clock::time_point::max();
}

void Progress::report(double fraction, const std::string& text) const
{
    if (cb_)
        cb_(std::clamp(fraction, 0.0, 1.0), text);
}

bool Progress::cancelled() const
{
    return cancel_.load(std::memory_order_relaxed) || std::chrono::steady_clock::now() > deadline_;
}

void Progress::checkpoint() const
{
    if (cancel_.load(std::memory_order_relaxed))
        throw CancelledError("cancelled");
    if (std::chrono::steady_clock::now() > deadline_)
        throw CancelledError("time limit reached");
}

// ---------------------------------------------------------------- registry

PlannerRegistry& PlannerRegistry::instance()
{
    static PlannerRegistry r;
    return r;
}

void PlannerRegistry::add(const std::string& name, Factory f) { factories_[name] = std::move(f); }

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

Plan runPlanner(const std::string& plannerName, const PlanRequest& request, Progress& progress)
{
    registerBuiltinPlanners();
    auto planner = PlannerRegistry::instance().create(plannerName);
    if (!planner) {
        std::string known;
        for (const std::string& n : PlannerRegistry::instance().names())
            known += (known.empty() ? "" : ", ") + n;
        throw InputError("--planner", "planner", "unknown planner '" + plannerName + "' (known: " + known + ")");
    }
    request.cluster.validate(DeviceCatalog::builtin(), "cluster");
    request.model.validate("model");
    request.job.validate("job");
    const CostModel costs(request.model, request.job, request.profile);

    progress.report(0, "planning with " + plannerName);
    const auto t0 = std::chrono::steady_clock::now();
    Plan plan = planner->plan(request, costs, progress);
    plan.search.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    plan.planner = plannerName;
    plan.options = request.options;
    plan.cluster = request.cluster;
    plan.model = request.model;
    plan.job = request.job;
    std::set<std::string> types;
    for (int g : plan.usedGpus())
        types.insert(plan.cluster.nodeOf(g).deviceType);
    plan.profile = request.profile.restrictedTo({types.begin(), types.end()});
    plan.validate("plan");
    progress.report(0.99, "simulating");
    scorePlan(plan, costs);
    if (!std::isfinite(plan.estimate.iterationSeconds) || !(plan.estimate.iterationSeconds > 0))
        throw InputError("plan", "estimate.iteration_seconds",
                         "the simulated iteration time is not a positive finite number: check the model's sizes and "
                         "the cluster's bandwidths and latencies");
    progress.report(1, "done");
    return plan;
}

} // namespace hetplan
