#include "uniform.h"

#include "core/base/errors.h"
#include "core/cost/memory.h"
#include "core/model/frameworks.h"
#include "core/planners/common/bounds.h"
#include "core/planners/common/placement.h"
#include "core/planners/megatron_space.h"

#include <algorithm>

namespace hetplan {

std::vector<PlannerOption> UniformPlanner::options() const
{
    return withMegatronSpace({
        PlannerOption::integer("tp", "Tensor parallel", 1, 1, 1024,
                               "tensor-parallel degree (must divide every node's GPU count)"),
        PlannerOption::integer("pp", "Pipeline depth", 0, 0, 1000000, "pipeline depth; 0 = smallest that fits memory"),
        PlannerOption::integer("mbs", "Micro-batch", 1, 1, kMaxBatch, "micro-batch size")});
}

namespace {
// Peak memory of every stage of a Megatron-placed pipeline fits its GPUs?
bool fits(const Pipeline& p, const PlanRequest& req, const CostModel& costs)
{
    const int S = int(p.stages.size());
    for (int s = 0; s < S; ++s) {
        const Stage& st = p.stages[s];
        const int inFlight = req.job.schedule == Schedule::GPipe ? p.microBatches : std::min(S - s, p.microBatches);
        const int shards = req.job.zeroStage > 0 ? p.replicas : 1;
        for (int n : req.cluster.nodesOf(st.gpus)) {
            const Node& node = req.cluster.nodes[size_t(n)];
            const double peak = costs.stagePeak(st.firstLayer, st.endLayer, node.deviceType, st.tensorParallel, shards,
                                                p.microBatchSize, inFlight);
            const RankGroups groups = RankGroups::pipelineStage(st.tensorParallel, p.replicas * st.dataParallel, S, s,
                                                                req.model.arch.tiedEmbeddings);
            if (!fitsMemory(peak, node, costs.device(node.deviceType), req.job, groups))
                return false;
        }
    }
    return true;
}
} // namespace

Plan UniformPlanner::plan(const PlanRequest& req, const CostModel& costs, Progress& progress) const
{
    const int n = req.cluster.gpuCount();
    const int layers = req.model.layerCount();
    const int tp = req.intOption("tp");
    const int mbs = req.intOption("mbs");
    const int ppWanted = req.intOption("pp");
    if (std::string why = tensorParallelProblem(req.model, tp); !why.empty())
        throw InputError("options", "tp", why);
    if (tp < 1 || n % tp != 0)
        throw InputError("options", "tp", "must divide the GPU count " + std::to_string(n));
    for (const Node& node : req.cluster.nodes)
        if (node.gpus % tp != 0)
            throw InputError("options", "tp",
                             "must divide every node's GPU count (node '" + node.name + "' has " +
                                 std::to_string(node.gpus) + ")");
    if (mbs < 1 || mbs > req.job.globalBatchSize)
        throw InputError("options", "mbs",
                         "must be between 1 and the global batch " + std::to_string(req.job.globalBatchSize));
    if (ppWanted < 0 || (ppWanted > 0 && (n / tp) % ppWanted != 0))
        throw InputError("options", "pp", "must divide GPUs / tp = " + std::to_string(n / tp));

    long long tried = 0;
    bool anyDivides = false;
    for (int pp = 1; pp <= std::min(n / tp, layers); ++pp) {
        progress.checkpoint();
        if ((n / tp) % pp != 0 || (ppWanted > 0 && pp != ppWanted))
            continue;
        const long long dp = n / tp / pp;
        if (req.job.globalBatchSize % (dp * mbs) != 0)
            continue;
        anyDivides = true;
        ++tried;
        Plan plan;
        plan.pipelines.push_back(makePipeline(megatronPlacement(req.cluster, {pp, int(dp), tp}), mbs,
                                              int(req.job.globalBatchSize / (dp * mbs)), uniformBounds(layers, pp)));
        if (!fits(plan.pipelines[0], req, costs))
            continue;
        plan.search.candidates = tried;
        return plan;
    }
    // A batch no depth can split evenly is a bad input (exit 2), like data-parallel's; memory is infeasibility.
    if (!anyDivides)
        throw InputError("job", "global_batch_size",
                         "global batch " + std::to_string(req.job.globalBatchSize) +
                             " is not divisible by data-parallel × micro-batch for any pipeline depth" +
                             (ppWanted > 0 ? " (pp " + std::to_string(ppWanted) + ")" : std::string()));
    throw InfeasibleError("uniform: no pipeline depth fits memory");
}

} // namespace hetplan
