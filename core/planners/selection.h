#pragma once
// Choosing which GPUs to use. Any planner runs on subsets of the cluster's nodes and the best plan by the
// request's objective is kept: a slow type can drag a pipeline or a ZeRO group down (poplar-b's two T4s at
// ZeRO-2/3), and fewer or cheaper GPUs may be what a budget or a cost goal wants. Subsets are whole
// nodes. Tried: every node; every subset of the device types (drop one type, keep one, ... up to four
// types, else drop one at a time); fewer nodes of one type (a half, three quarters); and every type
// scaled down alike (a quarter, a half, three quarters), keeping the nodes with the fastest NIC first.
// The plan's cluster is the chosen subset (as with --without); its "selection" section lists every
// subset tried, the nodes left out and why, and the GPUs its own plan leaves idle.
#include "core/planners/planner.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace hetplan {

struct NodeSubset {
    std::vector<std::string> leftOut; // node names, in cluster order
    std::string why;                  // "every node", "without T4", "2 of 4 V100-16GB nodes"
};
// The subsets tried for `cluster` (every node first), without duplicates.
std::vector<NodeSubset> candidateSubsets(const Cluster& cluster);

// One run of a planner on one request (runPlanner without the selection; no timeline summary).
using SingleRun = std::function<Plan(const std::string& planner, const PlanRequest&, Progress&)>;
// Runs `planner` on every candidate subset of request.cluster through `run` and returns the best plan by
// request.objective with its "selection" section. The request's time limit is shared out as it goes (each
// subset gets what is left divided by the subsets still to try). Throws InfeasibleError naming the
// closest miss (or the error on every node) when no subset's plan meets the objective, the first
// InputError when every subset failed on input, CancelledError when stopped before any plan.
Plan runWithSelection(const std::string& planner, const PlanRequest& request, Progress& progress, const SingleRun& run);

// The objective a plan was chosen under, read back from its "selection" section; nothing without one.
std::optional<Objective> objectiveOf(const Plan& plan);

// A plan's cost and speed, for the frontier.
struct FrontierPoint {
    double dollarsPerHour = 0, tokensPerSecond = 0;
    std::string label;
    bool operator==(const FrontierPoint&) const = default;
};
// The points no other point beats on both (cheaper per hour and at least as fast, or faster and no dearer),
// cheapest first.
std::vector<FrontierPoint> costFrontier(std::vector<FrontierPoint> points);
// The points of a plan's "selection" section (every subset that gave a priced plan that fits).
std::vector<FrontierPoint> selectionPoints(const Plan& plan);

} // namespace hetplan
