#include "exhaustive.h"

#include "core/planners/common/exact_pipeline.h"

#include "core/base/errors.h"

#include <QJsonArray>
#include <QJsonObject>

#include <chrono>
#include <optional>
#include <sstream>

namespace hetplan {

std::vector<PlannerOption> ExhaustivePlanner::options() const
{
    return {searchedMicroBatchOption(), pipelinesOption(), maxStatesOption()};
}

namespace {

// The exact pipeline for one share of the cluster (k replicas), at one micro-batch size; an empty plan when
// nothing fits. `objective` gets T plus the replicas' gradient sync.
Plan exactAt(const PlanRequest& req, const CostModel& costs, Progress& progress, const std::vector<TypeGroup>& groups,
             int k, int mbs, double* objective)
{
    const std::vector<TypeGroup> share = k == 1 ? groups : replicaShare(groups, req.cluster, k, 0);
    std::vector<int> available;
    for (const TypeGroup& g : share)
        available.push_back(g.gpus);
    const int microBatches = req.job.globalBatchSize / k / mbs;
    StageCosts sc(costs, req.job, groupTypes(share), groupNodeSizes(share), mbs, microBatches,
                  groupTightestNodes(groups, req.cluster, costs), &req.cluster, StageCosts::Memory::Defer);
    // The memory table is sized before it is built (a 4,000-layer model needs 16 M entries per stage
    // shape), then filled under the time limit: a stop there leaves this share without a pipeline.
    checkStateCount(req, "exhaustive", sc.memoryEntries(), "stage-cost entries: layer ranges x stage shapes");
    try {
        sc.fitMemory(costs, &progress);
    } catch (const CancelledError&) {
        Plan stopped;
        stopped.search.stopped = progress.stopReason();
        return stopped;
    }
    progress.report(0.1, "exhaustive: searching (" + std::to_string(k) + " pipeline(s), micro-batch " +
                             std::to_string(mbs) + ")");
    const ExactResult r = exactPipeline(sc, available, req.job, &progress);
    Plan plan;
    plan.search.stopped = r.stopped;
    if (r.stages.empty())
        return plan;
    // The search counts GPUs per type, not per node: a template whose tensor-parallel groups do not fit
    // the nodes' free GPUs is no fit here, and the other shapes are still tried.
    try {
        plan.pipelines = placeReplicas(r.stages, req.cluster, groups, k, mbs, microBatches);
    } catch (const InfeasibleError&) {
        return plan;
    }
    const TemplateObjective o = templateObjective(stageTimes(r.stages), microBatches);
    const double sync = k > 1 ? replicaSyncSeconds(r.stages, req.model, req.job, req.cluster, groups, k) : 0;
    *objective = o.total() + sync;
    plan.plannerEstimate = *objective;
    plan.search.candidates = r.labels;
    plan.search.extra["states"] = double(r.states);
    QJsonObject details = objectiveJson(o);
    details["template"] = templateJson(r.stages, groups);
    details["states"] = double(r.states);
    details["labels"] = double(r.labels);
    details["micro_batches"] = microBatches;
    details["micro_batch_size"] = mbs;
    details["pipelines"] = k;
    details["replica_sync_seconds"] = sync;
    plan.details["exhaustive"] = details;
    return plan;
}

} // namespace

Plan ExhaustivePlanner::plan(const PlanRequest& req, const CostModel& costs, Progress& progress) const
{
    progress.report(0, "exhaustive: stage costs");
    const std::vector<TypeGroup> groups = typeGroups(req.cluster);
    std::vector<int> available;
    for (const TypeGroup& g : groups)
        available.push_back(g.gpus);
    checkStateCount(req, "exhaustive", exactStateCount(req.model.layerCount(), available),
                    "layers x GPU counts per type; ditto plans larger clusters");
    // The optimum over the micro-batch sizes and the number of identical pipelines too: each is its own
    // exact search, and T (plus the replicas' sync) compares directly.
    const std::vector<int> replicas = replicaCandidates(req, groups);
    std::optional<Plan> best;
    double bestObjective = kNoStage;
    QJsonArray tried;
    for (int k : replicas)
        for (int mbs : templateMicroBatchCandidates(req)) {
            if (req.job.globalBatchSize % (k * mbs) != 0 || progress.stopReason() != StopReason::None)
                continue;
            double objective = kNoStage;
            Plan p;
            try {
                p = exactAt(req, costs, progress, groups, k, mbs, &objective);
            } catch (const InputError& e) {
                if (!best)
                    throw; // nothing found yet: the user should hear why (a table too large for max_states)
                tried.append(QJsonObject{{"pipelines", k},
                                         {"micro_batch_size", mbs},
                                         {"T", QString::fromStdString("refused: " + e.reason())}});
                continue;
            }
            tried.append(QJsonObject{{"pipelines", k},
                                     {"micro_batch_size", mbs},
                                     {"T", p.pipelines.empty() ? QJsonValue("no fit") : QJsonValue(objective)}});
            if (!p.pipelines.empty() && objective < bestObjective) {
                bestObjective = objective;
                best = std::move(p);
            }
        }
    if (!best) {
        if (progress.stopReason() != StopReason::None)
            throw CancelledError("exhaustive: stopped before any pipeline was found");
        throw InfeasibleError("exhaustive: no pipeline of these GPUs fits the model in memory");
    }
    best->search.stopped = progress.stopReason();
    QJsonObject details = best->details["exhaustive"];
    details["tried"] = tried;
    best->details["exhaustive"] = details;
    return std::move(*best);
}

} // namespace hetplan
