#include "strategy.h"

namespace hetplan {

Plan strategyPlan(const Strategy& s, const Cluster& cluster, const ModelSpec& model, const Job& job)
{
    Plan plan;
    plan.cluster = cluster;
    plan.model = model;
    plan.job = job;
    plan.pipelines.push_back(makePipeline(s.placement, s.microBatchSize, s.microBatches, s.layerBounds));
    plan.plannerEstimate = s.plannerCost;
    return plan;
}

Candidate strategyCandidate(const Strategy& s)
{
    Candidate c;
    c.pp = s.placement.degrees.pp;
    c.dp = s.placement.degrees.dp;
    c.tp = s.placement.degrees.tp;
    c.microBatchSize = s.microBatchSize;
    for (size_t i = 0; i + 1 < s.layerBounds.size(); ++i)
        c.layersPerStage.push_back(s.layerBounds[i + 1] - s.layerBounds[i]);
    c.plannerCost = s.plannerCost;
    return c;
}

} // namespace hetplan
