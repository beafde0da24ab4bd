#include "whale.h"

#include "core/base/errors.h"
#include "core/planners/common/zero_batches.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace hetplan {

namespace {

struct WhaleGpu {
    int gpu = 0, maxMicro = 0;
    double flops = 0;
};

// Largest-remainder shares of `total` proportional to FLOP/s (ties to the lower GPU index).
std::vector<int> proportionalShares(const std::vector<WhaleGpu>& gs, int total)
{
    double sum = 0;
    for (const WhaleGpu& g : gs)
        sum += g.flops;
    std::vector<int> share;
    std::vector<std::pair<double, size_t>> fraction;
    long long given = 0;
    for (size_t i = 0; i < gs.size(); ++i) {
        const double exact = total * gs[i].flops / sum;
        share.push_back(int(std::floor(exact)));
        given += share.back();
        fraction.push_back({-(exact - share.back()), i});
    }
    std::sort(fraction.begin(), fraction.end());
    for (size_t k = 0; given < total; ++k, ++given)
        ++share[fraction[k % fraction.size()].second];
    return share;
}

std::vector<ZeroGpu> zero01(const std::vector<WhaleGpu>& gs, int gbs)
{
    const std::vector<int> share = proportionalShares(gs, gbs);
    std::vector<ZeroGpu> out;
    for (size_t i = 0; i < gs.size(); ++i)
        out.push_back(evenSteps(gs[i].gpu, share[i], gs[i].maxMicro));
    return out;
}

// Micro-batches ∝ FLOP/s, scaled so the tightest GPU is at its largest fitting size.
std::vector<ZeroGpu> zero23(const std::vector<WhaleGpu>& gs, int gbs)
{
    double scale = 1e300;
    for (const WhaleGpu& g : gs)
        scale = std::min(scale, g.maxMicro / g.flops);
    std::vector<int> gpus, micro;
    for (const WhaleGpu& g : gs) {
        gpus.push_back(g.gpu);
        micro.push_back(std::clamp(int(std::floor(scale * g.flops + 1e-9)), 1, g.maxMicro));
    }
    std::vector<double> flopsOf(gs.size());
    for (size_t i = 0; i < gs.size(); ++i)
        flopsOf[size_t(gs[i].gpu)] = gs[i].flops;
    return equalStepsSplit(gpus, micro, gbs, [&](int gpu, int b) { return b / flopsOf[size_t(gpu)]; });
}

} // namespace

Plan WhalePlanner::plan(const PlanRequest& req, const CostModel& costs, Progress& progress) const
{
    const int n = req.cluster.gpuCount(), gbs = req.job.globalBatchSize, stage = req.job.zeroStage;
    std::vector<WhaleGpu> gs(static_cast<size_t>(n));
    for (const DeviceGroup& g : groupByDevice(req.cluster, costs)) {
        progress.checkpoint();
        const int mbs = largestFittingMicroBatch(costs, req.model, req.job, stage, n, g.node, gbs);
        if (mbs == 0)
            throw InfeasibleError("whale: one sample does not fit " + g.device + " at ZeRO-" + std::to_string(stage));
        const double flops = costs.device(g.device).peakFlops;
        for (int gpu : g.gpus)
            gs[size_t(gpu)] = {gpu, mbs, flops > 0 ? flops : 1.0};
    }
    std::vector<ZeroGpu> split = stage <= 1 ? zero01(gs, gbs) : zero23(gs, gbs);
    if (split.empty())
        throw InfeasibleError("whale: ZeRO-" + std::to_string(stage) + " needs at least one sample per GPU per " +
                              "micro-step; the global batch " + std::to_string(gbs) + " cannot be split over " +
                              std::to_string(n) + " GPUs");
    std::sort(split.begin(), split.end(), [](const ZeroGpu& a, const ZeroGpu& b) { return a.gpu < b.gpu; });
    Plan plan;
    plan.zero = ZeroPlan{stage, split};
    plan.search.candidates = 1;
    return plan;
}

} // namespace hetplan
