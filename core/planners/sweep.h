#pragma once
// What-if sweeps: one planning request varied along a few axes (global batch, sequence length, ZeRO
// stage, a node left out), every combination planned by every chosen planner, the combinations run in
// parallel. The CLI's `sweep` command writes the result as hetplan.sweep/1 (resources/schema).
#include "core/planners/planner.h"
#include "core/model/project.h"

#include <QJsonObject>

#include <stop_token>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace hetplan {

// One varied parameter and its values, as given ("gbs" with "16", "32", "64").
struct SweepAxis {
    std::string name; // "gbs", "seq", "zero" or "without"
    std::vector<std::string> values;
};
// One combination: a value per axis, in axis order.
using SweepPoint = std::vector<std::pair<std::string, std::string>>;

// One planner's result at one combination.
struct SweepRow {
    SweepPoint point;
    std::string planner;
    RunStatus status = RunStatus::Ok; // Ok, Infeasible, NotApplicable or Cancelled
    std::string error;                // why, when not ok
    double iterationSeconds = 0, tokensPerSecond = 0;
    bool feasible = false; // a plan that fits memory
    std::optional<PlanCost> cost;
    std::vector<std::string> unpricedDeviceTypes; // why `cost` is empty, when a used GPU has no price
};

// "gbs=16,32,64" → {gbs, [16, 32, 64]}. Values are checked here (whole numbers in range, ZeRO 0-3, a node
// name or "none" for without); a bad one throws InputError(source, "<axis>", reason).
SweepAxis parseSweepAxis(const std::string& spec, const std::string& source = "--vary");
// Adds `axis` to `axes`; a repeated axis (--vary without=a --vary without=b) gains the new values; a
// value given twice throws InputError(source, name, reason).
void addSweepAxis(std::vector<SweepAxis>& axes, const SweepAxis& axis, const std::string& source = "--vary");
// Every combination, the last axis varying fastest.
std::vector<SweepPoint> sweepPoints(const std::vector<SweepAxis>& axes);
// The number of combinations (the product of the axes' value counts), and combination `index` of that
// order, computed on demand so a large grid is never held whole.
double sweepSize(const std::vector<SweepAxis>& axes);
SweepPoint sweepPoint(const std::vector<SweepAxis>& axes, long long index);
// The most plans one sweep makes (combinations × planners): rows are kept for the report, so a grid beyond
// this is refused before anything is planned.
inline constexpr long long kMaxSweepPlans = 100000;
// Throws InputError(source, "combinations", reason with the sizes) when the sweep would make more plans.
void checkSweepSize(const std::vector<SweepAxis>& axes, size_t planners, const std::string& source = "--vary");

// `base` with the point's values applied: gbs and zero on the job, without = the cluster minus that node
// ("none" keeps all), seq through `setSequence` (which must rebuild the model for that length). Throws
// InputError(source, field, reason) for a node the cluster does not have.
using SequenceSetter = std::function<void(PlanRequest& request, int sequence)>;
PlanRequest applySweepPoint(const PlanRequest& base, const SweepPoint& point, const SequenceSetter& setSequence,
                            const std::string& source = "--vary");

// Plans every (request, planner) pair on up to `threads` threads (0 = the hardware's count). Rows come
// back in order: request by request, planners in the given order. `done` is called (serialised) after
// each row with the number finished so far. A stop requested on `stop` (the GUI's Cancel) reaches the
// searches under way at their next poll (their Progress holds the token; no report needed) and skips the rest: those rows come back
// with status "cancelled".
// `perPlanner` adds each planner's own options to the requests' (the GUI's Run tab settings).
using SweepProgress = std::function<void(int finished, int total, const SweepRow& row)>;
std::vector<SweepRow> runSweep(const std::vector<std::pair<SweepPoint, PlanRequest>>& requests,
                               const std::vector<std::string>& planners, int threads, const SweepProgress& done = {},
                               std::stop_token stop = {}, const PlannerOptions& perPlanner = {});

// The same over every combination of `axes`, each request built by `request` only when its turn comes (a
// grid of 20,000 values never holds 20,000 requests), with one time limit for the whole sweep
// (`timeLimitSeconds`, 0 = none): a search under way gets the time that is left, and combinations not
// started when it has passed come back "cancelled". An InputError from `request` makes that row
// "not-applicable". Refuses grids beyond kMaxSweepPlans (checkSweepSize).
using SweepRequestFn = std::function<PlanRequest(const SweepPoint&)>;
std::vector<SweepRow> runSweep(const std::vector<SweepAxis>& axes, const SweepRequestFn& request,
                               const std::vector<std::string>& planners, int threads, double timeLimitSeconds,
                               const SweepProgress& done = {}, std::stop_token stop = {},
                               const PlannerOptions& perPlanner = {});

// The hetplan.sweep/1 document: the axes, and one row per combination × planner.
QJsonObject sweepToJson(const std::vector<SweepAxis>& axes, const std::vector<std::string>& planners,
                        const std::vector<SweepRow>& rows, const std::string& cluster, const std::string& model);

} // namespace hetplan
