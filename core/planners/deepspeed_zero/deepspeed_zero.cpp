#include "deepspeed_zero.h"

#include "core/base/errors.h"
#include "core/planners/common/zero_batches.h"

#include <algorithm>
#include <numeric>

namespace hetplan {

Plan DeepSpeedZeroPlanner::plan(const PlanRequest& req, const CostModel& costs, Progress& progress) const
{
    const int n = req.cluster.gpuCount(), gbs = req.job.globalBatchSize, stage = req.job.zeroStage;
    int micro = (gbs + n - 1) / n;
    for (const DeviceGroup& g : groupByDevice(req.cluster, costs)) {
        progress.checkpoint();
        micro = std::min(micro, largestFittingMicroBatch(costs, req.model, req.job, stage, n, g.node, micro));
        if (micro == 0)
            throw InfeasibleError("deepspeed-zero: one sample does not fit " + g.device + " at ZeRO-" +
                                  std::to_string(stage));
    }
    // Lower the micro-batch until the global batch splits into equal steps with at least one sample per
    // GPU in the last one.
    for (; micro >= 1; --micro) {
        const long long M = (long long)n * micro, gas = (gbs + M - 1) / M;
        if ((gas - 1) * M + n <= gbs)
            break;
    }
    std::vector<int> gpus(size_t(n), 0);
    std::iota(gpus.begin(), gpus.end(), 0);
    const std::vector<ZeroGpu> split = micro < 1 ? std::vector<ZeroGpu>{}
                                                 : equalStepsSplit(gpus, std::vector<int>(size_t(n), micro), gbs,
                                                                   [](int, int b) { return double(b); });
    if (split.empty())
        throw InfeasibleError("deepspeed-zero: the global batch " + std::to_string(gbs) +
                              " cannot be split into equal micro-batches over " + std::to_string(n) + " GPUs");
    Plan plan;
    plan.zero = ZeroPlan{stage, split};
    plan.search.candidates = 1;
    return plan;
}

} // namespace hetplan
