#pragma once
// One complete 3D-parallel strategy (degrees, placement, micro-batch, layer split) and the score a planner
// gave it; AMP and its baselines search over these.
#include "core/model/plan.h"
#include "core/planners/common/placement.h"

#include <functional>
#include <vector>

namespace hetplan {

struct Strategy {
    Placement placement;
    int microBatchSize = 1;
    int microBatches = 1;             // gas
    std::vector<int> bounds;          // pp+1 layer boundaries
    double plannerCost = 0;           // the planner's own estimate, seconds
    bool fitsMemory = true;
};

// A plan holding the strategy as its one pipeline, with the inputs filled in (ready to simulate).
Plan strategyPlan(const Strategy& s, const Cluster& cluster, const ModelSpec& model, const Job& job);
Candidate strategyCandidate(const Strategy& s);

// The AMP paper's "real trials" step with the shared simulator standing in for the cluster: build each
// strategy's plan, `score` it (callers pass the simulator's scorePlan), record the simulated seconds in
// `candidates` (one per strategy, same order) and return the best plan — simulator-feasible first, then
// fastest, then earliest in the list. `checkpoint` runs before each trial (cancellation).
// Requires a non-empty list.
Plan pickBySimulation(const std::vector<Strategy>& strategies, const Cluster& cluster, const ModelSpec& model,
                      const Job& job, const std::function<void(Plan&)>& score,
                      const std::function<void()>& checkpoint, std::vector<Candidate>& candidates);

} // namespace hetplan
