#pragma once
// One complete 3D-parallel strategy (degrees, placement, micro-batch, layer split) and the score a planner
// gave it; AMP and its baselines search over these.
#include "core/model/plan.h"
#include "core/planners/common/placement.h"

#include <vector>

namespace hetplan {

struct Strategy {
    Placement placement;
    int microBatchSize = 1;
    int microBatches = 1;         // gas
    std::vector<int> layerBounds; // pp+1 entries: stage i holds layers [layerBounds[i], layerBounds[i+1])
    double plannerCost = 0;       // the planner's own estimate, seconds
    bool fitsMemory = true;
};

// A plan holding the strategy as its one pipeline, with the inputs filled in (ready to simulate).
Plan strategyPlan(const Strategy& s, const Cluster& cluster, const ModelSpec& model, const Job& job);
Candidate strategyCandidate(const Strategy& s);

} // namespace hetplan
