#pragma once
// The one interface every planning method implements, the request it receives, progress/cancel, and the
// registry through which the CLI and GUI find planners (so new planners appear without changes there).
#include "core/base/options.h"
#include "core/cost/costmodel.h"
#include "core/model/plan.h"
#include "core/planners/objective.h"

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

namespace hetplan {

struct PlanRequest {
    Cluster cluster;
    ModelSpec model;
    Job job;
    Profile profile;                            // measured entries (may be empty: analytic only)
    std::map<std::string, std::string> options; // planner options (--option key=value)
    unsigned long long seed = 1;
    double timeLimitSeconds = 0; // 0 = none
    // Planner sections of an earlier plan (--reuse plan.json, the GUI's re-plan after a node failure):
    // template planners (oobleck, ditto) re-instantiate the templates stored there instead of searching.
    std::map<std::string, QJsonObject> reuse;
    // What the plan optimises and must meet (objective.h). The selection layer ranks the subsets' plans
    // by it; metis ranks its own candidates by it too (the other planners rank theirs by time).
    Objective objective;
    // Try subsets of the cluster's nodes and keep the best plan by the objective (selection.h). A cost
    // goal, a budget or a throughput floor turn it on too: a fixed set of GPUs cannot trade cost.
    bool selectGpus = false;

    // Typed access to options after runPlanner() resolved them (validated, defaults filled in from the
    // planner's declarations, so a default is written only there). Asking for an undeclared key is a
    // programming error (std::logic_error).
    const std::string& option(const std::string& key) const;
    int intOption(const std::string& key) const;
    double doubleOption(const std::string& key) const;
    bool boolOption(const std::string& key) const;
};

// How much of a time limit a search may use (three quarters, and at most 5 s less than the limit): the rest
// is for scoring and summarizing the plan it returns, which runs to the end once started.
double searchShareOfTimeLimit(double seconds);

// Progress reporting and cooperative cancellation. Planners call report() now and then. Searches that can
// return their best so far poll stopReason() and wind down; code that cannot calls checkpoint(), which
// throws CancelledError when stopped.
//
// Cancellation is C++20's stop tokens throughout: a run, a sweep and live re-planning each hold a
// std::stop_source and give its token to the Progress of every search they start, so a request_stop()
// reaches the search at its next poll (not at its next report). Simulations take stopToken(); HAP's LP
// polls cancelled().
class Progress {
public:
    using Callback = std::function<void(double fraction, const std::string& text)>;
    Progress() = default;
    // `stop`: the caller's token; a stop requested on it stops this search (as cancel() does).
    explicit Progress(Callback cb, double timeLimitSeconds = 0, std::stop_token stop = {});
    Progress(const Progress&) = delete;
    Progress& operator=(const Progress&) = delete;

    void report(double fraction, const std::string& text) const;
    void checkpoint() const;
    StopReason stopReason() const;
    bool cancelled() const { return stopReason() != StopReason::None; } // cancelled or past the limit
    void cancel() { source_.request_stop(); }
    std::stop_token stopToken() const { return source_.get_token(); }
    // The search stops at searchShareOfTimeLimit(seconds) from now: the rest is for scoring its plan.
    void setTimeLimit(double seconds);

private:
    struct Forward { // requests a stop on this search's source when the caller's token is stopped
        std::stop_source* target;
        void operator()() const { target->request_stop(); }
    };

    Callback cb_;
    std::stop_source source_;
    std::optional<std::stop_callback<Forward>> forward_;
    std::chrono::steady_clock::time_point deadline_ = std::chrono::steady_clock::time_point::max();
};

// A planner's declared options (core/base/options.h): turned into CLI --option values, Run-tab editors and
// the plan JSON's options.
using PlannerOption = OptionDecl;

class Planner {
public:
    virtual ~Planner() = default;
    virtual std::string name() const = 0;
    virtual std::string description() const = 0;
    virtual std::vector<PlannerOption> options() const { return {}; }
    // Returns a plan with planner, inputs, decision, plannerEstimate and search stats filled in. A search
    // that is stopped (cancelled or past the time limit) after finding a feasible plan returns its best so
    // far with search.stopped set; before that it throws CancelledError. Throws InfeasibleError,
    // CancelledError or InputError.
    virtual Plan plan(const PlanRequest& request, const CostModel& costs, Progress& progress) const = 0;
};

// The planner's options with `given` applied: every key declared, values checked and canonical, defaults
// filled in. An unknown key or a bad value throws InputError("options", key, reason naming the valid keys).
std::map<std::string, std::string> resolveOptions(const Planner& planner,
                                                  const std::map<std::string, std::string>& given);

// The planners the CLI and the GUI list. instance() holds the built-in ones from its first use (one line per
// planner folder in builtin.cpp).
class PlannerRegistry {
public:
    using Factory = std::function<std::unique_ptr<Planner>()>;
    static PlannerRegistry& instance();
    // Registers the planner `f` makes under its own name(); a second planner of the same name, or an empty
    // name, throws std::logic_error (a programming error, like the format registry's).
    void add(Factory f);
    std::vector<std::string> names() const;
    std::unique_ptr<Planner> create(const std::string& name) const; // nullptr if unknown

private:
    std::map<std::string, Factory> factories_;
};

// Options per planner (planner → key → value): the GUI's Run tab keeps one set for each planner.
using PlannerOptions = std::map<std::string, std::map<std::string, std::string>>;
// The request one planner gets: `request` with that planner's own options (if any) on top.
PlanRequest requestForPlanner(const PlanRequest& request, const std::string& planner, const PlannerOptions& perPlanner);

// Runs a planner end to end: builds the cost model, plans, fills inputs/search time, re-scores with the
// shared simulator (when available) and returns the plan. Throws like Planner::plan.
Plan runPlanner(const std::string& plannerName, const PlanRequest& request, Progress& progress);
// The summary runPlanner gives a scored plan: from its timeline, or, once `progress` is past its search
// share of the time limit, from each GPU's busy time (summarizeWithoutTimeline). A finished search's
// timeline stops on a cancel; a best-so-far plan's is completed.
PlanSummary summaryWithin(const Plan& plan, const Progress& progress);

} // namespace hetplan
