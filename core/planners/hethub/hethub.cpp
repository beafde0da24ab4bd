#include "hethub.h"

#include "hethub_metrics.h"

#include "core/base/errors.h"
#include "core/planners/megatron_space.h"

#include <QJsonArray>

namespace hetplan {

std::vector<PlannerOption> HetHubPlanner::options() const
{
    return withMegatronSpace({PlannerOption::integer("top_k", "Leaves simulated", 10, 1, 1000,
                                   "best leaves by the predictor that the shared simulator re-scores"),
            PlannerOption::integer("max_micro_batch", "Largest micro-batch", 4, 1, 1024,
                                   "largest micro-batch size searched (the paper uses 1)"),
            PlannerOption::choice("order", "Stage order", "best", {"descending", "best"},
                                  "descending: the paper's rule (slowest stage first); best: the simulator's best "
                                  "order of the chosen split (the rule is up to 28% off on small cases)"),
            PlannerOption::integer("order_budget", "Order simulations", 120, 1, 100000,
                                   "order=best: simulations spent on stage orders (all orders when fewer, else "
                                   "pairwise-swap hill climbing)"),
            PlannerOption::boolean("metrics", "Paper metrics", true,
                                   "compute the additive upper bound (eq. 3) and the uniform-split baseline")});
}

Plan HetHubPlanner::plan(const PlanRequest& req, const CostModel& costs, Progress& progress) const
{
    hethub::SearchSettings settings;
    settings.topK = req.intOption("top_k");
    settings.maxMicroBatch = req.intOption("max_micro_batch");
    settings.bestOrder = req.option("order") == "best";
    settings.orderBudget = req.intOption("order_budget");
    hethub::SearchResult result = hethub::searchHetHub(req, costs, progress, settings);
    QJsonObject details;
    if (req.boolOption("metrics") && result.plan.search.stopped == StopReason::None) {
        try {
            details = hethub::hethubDetails(result, req, costs, progress, settings);
        } catch (const CancelledError&) {
            result.plan.search.stopped = progress.stopReason();
        }
    }
    if (details.isEmpty()) { // no metrics asked for (or stopped): the layout and eq. 2 / 4 are cheap
        details["tokens_per_gpu_second"] = hethub::tokensPerGpuSecond(result.plan);
        details["mfu"] = hethub::modelFlopsUtilization(result.plan, costs);
    }
    if (progress.stopReason() != StopReason::None && result.plan.search.stopped == StopReason::None)
        result.plan.search.stopped = progress.stopReason();
    if (const std::string w =
            hethub::dataParallelWarning(req.cluster, req.model, result.groups, req.job.globalBatchSize);
        !w.empty())
        details["warnings"] = QJsonArray{QString::fromStdString(w)};
    result.plan.details["hethub"] = details;
    return result.plan;
}

} // namespace hetplan
