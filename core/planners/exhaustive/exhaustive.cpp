#include "exhaustive.h"

#include "exact_pipeline.h"

#include "core/base/errors.h"

#include <QJsonObject>

#include <chrono>
#include <sstream>

namespace hetplan {

std::vector<PlannerOption> ExhaustivePlanner::options() const
{
    return {templateMicroBatchOption(), maxStatesOption()};
}

Plan ExhaustivePlanner::plan(const PlanRequest& req, const CostModel& costs, Progress& progress) const
{
    progress.report(0, "exhaustive: stage costs");
    const std::vector<TypeGroup> groups = typeGroups(req.cluster);
    const int mbs = templateMicroBatchSize(req);
    const int microBatches = req.job.globalBatchSize / mbs;
    std::vector<int> available;
    for (const TypeGroup& g : groups)
        available.push_back(g.gpus);
    checkStateCount(req, "exhaustive", exactStateCount(req.model.layerCount(), available),
                    "layers x GPU counts per type; ditto plans larger clusters");
    const StageCosts sc(costs, req.job, groupTypes(groups), groupNodeSizes(groups), mbs, microBatches);
    progress.report(0.1, "exhaustive: searching");
    const ExactResult r = exactPipeline(sc, available, req.job, &progress);
    if (r.stages.empty()) {
        if (r.stopped != StopReason::None)
            throw CancelledError("exhaustive: stopped before any pipeline was found");
        throw InfeasibleError("exhaustive: no pipeline of these GPUs fits the model in memory");
    }
    Plan plan;
    plan.pipelines.push_back(placeTemplate(r.stages, req.cluster, groups, mbs, microBatches));
    const TemplateObjective o = templateObjective(stageTimes(r.stages), microBatches);
    plan.plannerEstimate = o.total();
    plan.search.candidates = r.labels;
    plan.search.extra["states"] = double(r.states);
    plan.search.stopped = toString(r.stopped);
    QJsonObject details = objectiveJson(o);
    details["template"] = templateJson(r.stages, groups);
    details["states"] = double(r.states);
    details["labels"] = double(r.labels);
    details["micro_batches"] = microBatches;
    plan.details["exhaustive"] = details;
    return plan;
}

} // namespace hetplan
