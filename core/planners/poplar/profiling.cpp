#include "profiling.h"

#include "core/cost/memory.h"

#include "core/base/errors.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace hetplan::poplar {

namespace {

// One "model.step(batch)" of algorithm 1: the memory oracle, then the step time when it fits.
struct Runner {
    const CostModel& costs;
    const Job& job;
    int stage, ranks;
    DeviceProfile& out;

    bool run(int b)
    {
        ++out.runs;
        if (!zeroFits(costs, costs.model(), job, stage, ranks, out.node, b)) {
            out.outOfMemory.push_back(b);
            return false;
        }
        const LayerTiming t = costs.range(0, costs.model().layerCount(), out.device, 1, b);
        out.points.push_back({b, t.forward + t.backward});
        return true;
    }
};

// Step 1: (capacity − before) / ((after − before) / batch) with batch = 1, clamped to [1, cap].
int estimateMax(const CostModel& costs, const Job& job, int stage, int ranks, const Node& node, int cap)
{
    const double before = zeroPeakMemory(costs.model(), job, stage, ranks, 0);
    const double after = zeroPeakMemory(costs.model(), job, stage, ranks, 1);
    // The paper's estimate uses the device's whole memory; the oracle that follows enforces the real limit.
    const double capacity = costs.device(node.deviceType).memoryBytes;
    if (!(after > before))
        return cap;
    const double est = std::floor((capacity - before) / (after - before));
    return int(std::clamp(est, 1.0, double(cap)));
}

std::string gigabytes(double bytes)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / 1073741824.0); // binary, as nvidia-smi and the app
    return buf;
}

} // namespace

DeviceProfile profileDevice(const CostModel& costs, const Job& job, int stage, int ranks, const DeviceGroup& group,
                            int cap)
{
    DeviceProfile p;
    p.device = group.device;
    p.node = group.node;
    p.gpus = group.gpus;
    p.estimatedMax = estimateMax(costs, job, stage, ranks, group.node, cap);
    Runner r{costs, job, stage, ranks, p};
    if (!r.run(1))
        return p;
    // Step 2: doubling up to the estimate (run last), then on past it while sizes still fit.
    int fit = 1, oom = 0;
    while (oom == 0 && fit < cap) {
        int next = fit < p.estimatedMax ? std::min(fit * 2, p.estimatedMax) : std::min(fit * 2, cap);
        (r.run(next) ? fit : oom) = next;
    }
    // Step 3: binary search in (fit, oom).
    while (oom - fit > 1) {
        const int mid = fit + (oom - fit) / 2;
        (r.run(mid) ? fit : oom) = mid;
    }
    p.maxMicroBatch = fit;
    auto byBatch = [](const ProfiledPoint& a, const ProfiledPoint& b) { return a.microBatch < b.microBatch; };
    std::sort(p.points.begin(), p.points.end(), byBatch);
    std::sort(p.outOfMemory.begin(), p.outOfMemory.end());
    return p;
}

ProfilingResult profileCluster(const PlanRequest& req, const CostModel& costs, bool escalate, Progress& progress)
{
    const std::vector<DeviceGroup> groups = groupByDevice(req.cluster, costs);
    const int ranks = req.cluster.gpuCount();
    const int cap = std::max(1, req.job.globalBatchSize);
    ProfilingResult result;
    result.requestedStage = req.job.zeroStage;
    for (int stage = req.job.zeroStage; stage <= 3; ++stage) {
        progress.checkpoint();
        result.stage = stage;
        result.devices.clear();
        std::string misfit;
        for (const DeviceGroup& g : groups) {
            result.devices.push_back(profileDevice(costs, req.job, stage, ranks, g, cap));
            if (result.devices.back().maxMicroBatch == 0 && misfit.empty())
                misfit = g.device + " cannot hold one sample at ZeRO-" + std::to_string(stage) + " (model states and " +
                         "one sample take " + gigabytes(zeroPeakMemory(costs.model(), req.job, stage, ranks, 1)) +
                         "; the GPU has " + gigabytes(costs.device(g.device).memoryBytes) + ", " +
                         gigabytes(usableMemory(g.node, costs.device(g.device), req.job,
                                                RankGroups::dataParallel(ranks))) +
                         " of it usable after the context, the communicator buffers and the margin)";
        }
        if (misfit.empty())
            return result;
        if (!escalate || stage == 3)
            throw InfeasibleError("poplar: " + misfit + (escalate ? "" : "; escalation is off"));
        result.escalations.push_back(misfit + ": moved to ZeRO-" + std::to_string(stage + 1));
    }
    throw InfeasibleError("poplar: no ZeRO stage fits"); // not reached: stage 3 throws above
}

} // namespace hetplan::poplar
