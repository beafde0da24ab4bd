#pragma once
// The one interface every planning method implements, the request it receives, progress/cancel, and the
// registry through which the CLI and GUI find planners (so new planners appear without changes there).
#include "core/cost/costmodel.h"
#include "core/model/plan.h"

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace hetplan {

struct PlanRequest {
    Cluster cluster;
    ModelSpec model;
    Job job;
    Profile profile;                                // measured entries (may be empty: analytic only)
    std::map<std::string, std::string> options;     // planner options (--option key=value)
    unsigned long long seed = 1;
    double timeLimitSeconds = 0;                    // 0 = none

    // Typed option access with defaults; malformed values throw InputError("options", key, reason).
    std::string option(const std::string& key, const std::string& def) const;
    int intOption(const std::string& key, int def) const;
    double doubleOption(const std::string& key, double def) const;
    bool boolOption(const std::string& key, bool def) const;
};

// Progress reporting and cooperative cancellation. Planners call report() now and then and
// checkpoint() in their loops; checkpoint() throws CancelledError when cancelled or past the deadline.
class Progress {
public:
    using Callback = std::function<void(double fraction, const std::string& text)>;
    Progress() = default;
    explicit Progress(Callback cb, double timeLimitSeconds = 0);

    void report(double fraction, const std::string& text) const;
    void checkpoint() const;
    bool cancelled() const;
    void cancel() { cancel_.store(true); }
    void setTimeLimit(double seconds);

private:
    Callback cb_;
    std::atomic<bool> cancel_{false};
    std::chrono::steady_clock::time_point deadline_ = std::chrono::steady_clock::time_point::max();
};

struct PlannerOption {
    std::string key, defaultValue, help;
};

class Planner {
public:
    virtual ~Planner() = default;
    virtual std::string name() const = 0;
    virtual std::string description() const = 0;
    virtual std::vector<PlannerOption> options() const { return {}; }
    // Returns a plan with planner, inputs, decision, plannerEstimate and search stats filled in.
    // Throws InfeasibleError, CancelledError or InputError.
    virtual Plan plan(const PlanRequest& request, const CostModel& costs, Progress& progress) const = 0;
};

class PlannerRegistry {
public:
    using Factory = std::function<std::unique_ptr<Planner>()>;
    static PlannerRegistry& instance();
    void add(const std::string& name, Factory f);
    std::vector<std::string> names() const;
    std::unique_ptr<Planner> create(const std::string& name) const;   // nullptr if unknown

private:
    std::map<std::string, Factory> factories_;
};

// Runs a planner end to end: builds the cost model, plans, fills inputs/search time, re-scores with the
// shared simulator (when available) and returns the plan. Throws like Planner::plan.
Plan runPlanner(const std::string& plannerName, const PlanRequest& request, Progress& progress);

// Registers the built-in planners (idempotent; called by runPlanner and the registry's users).
void registerBuiltinPlanners();

} // namespace hetplan
