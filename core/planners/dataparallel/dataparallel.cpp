#include "dataparallel.h"

#include "core/base/errors.h"
#include "core/cost/memory.h"

namespace hetplan {

std::vector<PlannerOption> DataParallelPlanner::options() const
{
    return {
        PlannerOption::integer("mbs", "Micro-batch", 0, 0, kMaxBatch,
                               "micro-batch size per GPU; 0 = the largest that divides the per-GPU batch and fits")};
}

Plan DataParallelPlanner::plan(const PlanRequest& req, const CostModel& costs, Progress& progress) const
{
    const int n = req.cluster.gpuCount();
    const int gbs = req.job.globalBatchSize;
    if (gbs % n != 0)
        throw InputError("job", "global_batch_size",
                         "global batch " + std::to_string(gbs) + " is not divisible by the " + std::to_string(n) +
                             " GPUs (data-parallel gives every GPU the same batch)");
    const int perGpu = gbs / n;
    const int wanted = req.intOption("mbs");
    if (wanted < 0 || wanted > perGpu || (wanted > 0 && perGpu % wanted != 0))
        throw InputError("options", "mbs", "must divide the per-GPU batch " + std::to_string(perGpu));

    const int L = req.model.layerCount();
    // Every GPU holds the whole model as one stage of its own replica, in one data-parallel group of n.
    const RankGroups groups = RankGroups::pipelineStage(1, n, 1, 0, req.model.arch.tiedEmbeddings);
    auto fitsAll = [&](int mbs) {
        const double peak = stagePeakMemory(req.model, 0, L, 1, n, mbs, 1, req.job);
        for (const Node& node : req.cluster.nodes)
            if (node.gpus > 0 && !fitsMemory(peak, node, costs.device(node.deviceType), req.job, groups))
                return false;
        return true;
    };
    long long tried = 0;
    int mbs = 0;
    for (int m = perGpu; m >= 1; --m) {
        progress.checkpoint();
        if (perGpu % m != 0 || (wanted > 0 && m != wanted))
            continue;
        ++tried;
        if (fitsAll(m)) {
            mbs = m;
            break;
        }
    }
    if (mbs == 0)
        throw InfeasibleError("data-parallel: the model does not fit every GPU even at micro-batch 1 with ZeRO-" +
                              std::to_string(req.job.zeroStage));
    Plan plan;
    ZeroPlan z;
    z.stage = req.job.zeroStage;
    for (int g = 0; g < n; ++g)
        z.gpus.push_back({g, mbs, perGpu / mbs, mbs});
    plan.zero = z;
    plan.search.candidates = tried;
    return plan;
}

} // namespace hetplan
