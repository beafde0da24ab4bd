#include "zero_batches.h"

#include "core/cost/memory.h"

#include <algorithm>
#include <map>
#include <queue>

namespace hetplan {

std::vector<DeviceGroup> groupByDevice(const Cluster& cluster, const CostModel& costs)
{
    std::vector<DeviceGroup> groups;
    std::vector<std::vector<int>> nodes; // per group
    std::map<std::string, size_t> index;
    const std::vector<GpuRef> refs = cluster.gpuRefs();
    for (int g = 0; g < int(refs.size()); ++g) {
        const int node = refs[size_t(g)].node;
        const std::string& type = cluster.nodes[size_t(node)].deviceType;
        auto [it, added] = index.try_emplace(type, groups.size());
        if (added) {
            groups.push_back({type, {}, {}});
            nodes.emplace_back();
        }
        groups[it->second].gpus.push_back(g);
        if (nodes[it->second].empty() || nodes[it->second].back() != node)
            nodes[it->second].push_back(node);
    }
    for (size_t i = 0; i < groups.size(); ++i)
        groups[i].node = tightestNode(cluster, nodes[i], costs.device(groups[i].device));
    return groups;
}

double zeroPeakMemory(const ModelSpec& model, const Job& job, int stage, int ranks, int microBatch)
{
    Job j = job;
    j.zeroStage = stage;
    j.framework = Framework::DeepSpeedPipe; // ZeRO plans run on DeepSpeed's engine (its gradient buffer)
    return stagePeakMemory(model, 0, model.layerCount(), 1, ranks, microBatch, 1, j);
}

bool zeroFits(const CostModel& costs, const ModelSpec& model, const Job& job, int stage, int ranks, const Node& node,
              int microBatch)
{
    return fitsMemory(zeroPeakMemory(model, job, stage, ranks, microBatch), node, costs.device(node.deviceType), job,
                      RankGroups::dataParallel(ranks));
}

int largestFittingMicroBatch(const CostModel& costs, const ModelSpec& model, const Job& job, int stage, int ranks,
                             const Node& node, int cap)
{
    auto fits = [&](int b) { return zeroFits(costs, model, job, stage, ranks, node, b); };
    if (cap < 1 || !fits(1))
        return 0;
    int lo = 1, hi = 0; // lo fits; hi is the first size found not to fit
    while (hi == 0) {
        if (lo == cap)
            return cap;
        const int next = lo > cap / 2 ? cap : lo * 2;
        (fits(next) ? lo : hi) = next;
    }
    while (hi - lo > 1) { // invariant: lo fits, hi does not (or is past the cap)
        const int mid = lo + (hi - lo) / 2;
        (fits(mid) ? lo : hi) = mid;
    }
    return lo;
}

ZeroGpu evenSteps(int gpu, int total, int cap)
{
    if (total <= 0)
        return {gpu, 0, 0, 0};
    cap = std::max(1, cap);
    const int steps = (total + cap - 1) / cap;
    const int micro = (total + steps - 1) / steps;
    return {gpu, micro, steps, total - (steps - 1) * micro};
}

namespace {

// Shrinks `micro` until a split with equal steps exists; returns the step count, 0 when none exists.
int shrinkUntilSplittable(const std::vector<int>& gpus, std::vector<int>& micro, long long globalBatch,
                          const StepTime& stepTime)
{
    const long long n = (long long)gpus.size();
    long long M = 0;
    for (int m : micro)
        M += m;
    using Item = std::pair<double, size_t>; // step time, index: the slowest step first
    std::priority_queue<Item> slowest;
    for (size_t i = 0; i < micro.size(); ++i)
        if (micro[i] > 1)
            slowest.push({stepTime(gpus[i], micro[i]), i});
    for (;;) {
        const long long gas = (globalBatch + M - 1) / M;
        if ((gas - 1) * M + n <= globalBatch)
            return int(gas);
        if (slowest.empty())
            return 0;
        const size_t i = slowest.top().second;
        slowest.pop();
        --micro[i];
        --M;
        if (micro[i] > 1)
            slowest.push({stepTime(gpus[i], micro[i]), i});
    }
}

} // namespace

std::vector<ZeroGpu> equalStepsSplit(const std::vector<int>& gpus, std::vector<int> micro, int globalBatch,
                                     const StepTime& stepTime)
{
    const long long n = (long long)gpus.size();
    if (n == 0 || globalBatch < n || micro.size() != gpus.size())
        return {};
    for (int& m : micro)
        m = std::max(1, m);
    const int gas = shrinkUntilSplittable(gpus, micro, globalBatch, stepTime);
    if (gas == 0)
        return {};
    long long M = 0;
    for (int m : micro)
        M += m;
    // Last step: one sample each, then every further sample to the GPU whose last step stays shortest.
    long long rest = globalBatch - (gas - 1) * M - n;
    std::vector<int> last(micro.size(), 1);
    using Item = std::pair<double, size_t>;
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> fastest;
    for (size_t i = 0; i < micro.size(); ++i)
        if (micro[i] > 1)
            fastest.push({stepTime(gpus[i], 2), i});
    while (rest > 0 && !fastest.empty()) {
        const size_t i = fastest.top().second;
        fastest.pop();
        ++last[i];
        --rest;
        if (last[i] < micro[i])
            fastest.push({stepTime(gpus[i], last[i] + 1), i});
    }
    std::vector<ZeroGpu> out;
    for (size_t i = 0; i < micro.size(); ++i)
        out.push_back({gpus[i], micro[i], gas, last[i]});
    return out;
}

} // namespace hetplan
