#pragma once
// The plan summary (core/model/plan_summary.h) computed once from one simulated iteration, so every
// planner's plan gets the same numbers: runPlanner() and `hetplan-cli simulate` fill Plan::summary.
#include "simulator.h"

namespace hetplan {

// From a simulation of `plan` that carries its timeline (SimOptions::timeline).
PlanSummary summarize(const Plan& plan, const CostModel& costs, const SimResult& timeline);
// Simulates `plan` with its timeline, then summarizes it. Throws what simulate() throws. A plan whose
// timeline would pass kMaxTimelineEvents is summarized from each GPU's compute time instead (no bubble
// fraction; communication counts as idle; the bottleneck text says so).
// A stop requested on `stop` ends the timeline simulation early (CancelledError).
PlanSummary summarize(const Plan& plan, const CostModel& costs, std::stop_token stop = {});
// The summary from one simulation without events: each GPU's compute share, no bubble fraction,
// communication counted as idle; the bottleneck text ends with "(compute only: <why>)". A fraction of the
// timeline's cost, for a run whose time limit leaves no room for the timeline.
PlanSummary summarizeWithoutTimeline(const Plan& plan, const CostModel& costs, const std::string& why);

// Model FLOP of one iteration: forward + backward (3 × the forward FLOP) of every sample; recomputation
// is not counted (MFU counts the model's work, not the hardware's).
double modelFlopsPerIteration(const Plan& plan);

} // namespace hetplan
