#include "zero_baselines.h"

#include "core/planners/common/zero_batches.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace hetplan {

std::vector<ZeroGpu> uniformZeroBatches(const PlanRequest& req, const CostModel& costs, int stage, std::string& why,
                                        Progress* progress)
{
    const int n = req.cluster.gpuCount(), gbs = req.job.globalBatchSize;
    int micro = (gbs + n - 1) / n;
    for (const DeviceGroup& g : groupByDevice(req.cluster, costs)) {
        if (progress)
            progress->checkpoint();
        micro = std::min(micro, largestFittingMicroBatch(costs, req.model, req.job, stage, n, g.node, micro));
        if (micro == 0) {
            why = "one sample does not fit " + g.device + " at ZeRO-" + std::to_string(stage);
            return {};
        }
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
    std::vector<ZeroGpu> split = micro < 1 ? std::vector<ZeroGpu>{}
                                           : equalStepsSplit(gpus, std::vector<int>(size_t(n), micro), gbs,
                                                             [](int, int b) { return double(b); });
    if (split.empty())
        why = "the global batch " + std::to_string(gbs) + " cannot be split into equal micro-batches over " +
              std::to_string(n) + " GPUs";
    return split;
}

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

std::vector<ZeroGpu> flopsProportionalBatches(const PlanRequest& req, const CostModel& costs, int stage,
                                              WhaleFlops flops, std::string& why, Progress* progress)
{
    const int n = req.cluster.gpuCount(), gbs = req.job.globalBatchSize;
    if (gbs < n) {
        // Every rank of a data-parallel job takes part in each step: one with no sample has nothing to load.
        why = "the global batch " + std::to_string(gbs) + " is smaller than the " + std::to_string(n) +
              " GPUs: every rank needs at least one sample (leave GPUs out with --without)";
        return {};
    }
    std::vector<WhaleGpu> gs(static_cast<size_t>(n));
    for (const DeviceGroup& g : groupByDevice(req.cluster, costs)) {
        if (progress)
            progress->checkpoint();
        const int mbs = largestFittingMicroBatch(costs, req.model, req.job, stage, n, g.node, gbs);
        if (mbs == 0) {
            why = "one sample does not fit " + g.device + " at ZeRO-" + std::to_string(stage);
            return {};
        }
        const DeviceType& d = costs.device(g.device);
        const double rate = flops == WhaleFlops::Fp32 && d.peakFlopsFp32 > 0 ? d.peakFlopsFp32 : d.peakFlops;
        for (int gpu : g.gpus)
            gs[size_t(gpu)] = {gpu, mbs, rate > 0 ? rate : 1.0};
    }
    std::vector<ZeroGpu> split = stage <= 1 ? zero01(gs, gbs) : zero23(gs, gbs);
    if (std::any_of(split.begin(), split.end(), [](const ZeroGpu& z) { return z.samples() == 0; }))
        split.clear();
    if (split.empty()) {
        why = "ZeRO-" + std::to_string(stage) + " needs at least one sample per GPU per micro-step; the global batch " +
              std::to_string(gbs) + " cannot be split that way over " + std::to_string(n) + " GPUs";
        return {};
    }
    std::sort(split.begin(), split.end(), [](const ZeroGpu& a, const ZeroGpu& b) { return a.gpu < b.gpu; });
    return split;
}

} // namespace hetplan
