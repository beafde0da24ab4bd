#include "allocation.h"

#include <algorithm>
#include <queue>
#include <tuple>

namespace hetplan::poplar {

namespace {

int gpuCount(const std::vector<DeviceProfile>& devices)
{
    int n = 0;
    for (const DeviceProfile& d : devices)
        n += int(d.gpus.size());
    return n;
}

// ZeRO-0/1: compute time of `total` samples as micro-batches of `micro` and a last one of the rest.
double accumulatedSeconds(const SpeedCurve& c, int micro, int total)
{
    if (total <= 0)
        return 0;
    const int full = total / micro, rest = total % micro;
    return full * c.stepSeconds(micro) + (rest > 0 ? c.stepSeconds(rest) : 0.0);
}

ZeroGpu peakSteps(int gpu, int micro, int total)
{
    if (total <= 0)
        return {gpu, 0, 0, 0};
    micro = std::min(micro, total);
    const int steps = (total + micro - 1) / micro;
    return {gpu, micro, steps, total - (steps - 1) * micro};
}

} // namespace

Allocation allocateByPeakSpeed(const std::vector<DeviceProfile>& devices, const std::vector<SpeedCurve>& curves,
                               int globalBatch, const ZeroCollectiveSeconds& comm)
{
    double clusterSpeed = 0;
    for (size_t k = 0; k < devices.size(); ++k)
        clusterSpeed += devices[k].gpus.size() * curves[k].speed(curves[k].peakMicroBatch());
    const double timeOptimal = globalBatch / clusterSpeed;
    // gmbs_i = ⌊time_opt · speed_i⌋, then the remainder one sample at a time to the least-loaded GPU.
    struct Slot {
        size_t type;
        int gpu, total;
    };
    std::vector<Slot> gpuLoads;
    long long assigned = 0;
    for (size_t k = 0; k < devices.size(); ++k) {
        const double s = curves[k].speed(curves[k].peakMicroBatch());
        const int g = int(std::min<double>(globalBatch, std::floor(timeOptimal * s)));
        for (int gpu : devices[k].gpus) {
            gpuLoads.push_back({k, gpu, g});
            assigned += g;
        }
    }
    auto after = [&](const Slot& s, int extra) {
        const SpeedCurve& c = curves[s.type];
        return accumulatedSeconds(c, c.peakMicroBatch(), s.total + extra);
    };
    using Item = std::tuple<double, double, int, size_t>; // time after one more, −speed, gpu, slot
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> leastLoaded;
    for (size_t i = 0; i < gpuLoads.size(); ++i)
        leastLoaded.push({after(gpuLoads[i], 1),
                          -curves[gpuLoads[i].type].speed(curves[gpuLoads[i].type].peakMicroBatch()), gpuLoads[i].gpu,
                          i});
    for (long long remain = globalBatch - assigned; remain > 0; --remain) {
        auto [t, negSpeed, gpu, i] = leastLoaded.top();
        leastLoaded.pop();
        ++gpuLoads[i].total;
        leastLoaded.push({after(gpuLoads[i], 1), negSpeed, gpu, i});
    }
    Allocation a;
    a.candidates = (long long)gpuLoads.size();
    double slowest = 0;
    for (const Slot& s : gpuLoads) {
        a.gpus.push_back(peakSteps(s.gpu, curves[s.type].peakMicroBatch(), s.total));
        slowest = std::max(slowest, after(s, 0));
    }
    std::sort(a.gpus.begin(), a.gpus.end(), [](const ZeroGpu& x, const ZeroGpu& y) { return x.gpu < y.gpu; });
    a.seconds = slowest + comm.perIteration;
    return a;
}

namespace {

struct WallTimeSearch {
    const std::vector<DeviceProfile>& devices;
    const std::vector<SpeedCurve>& curves;
    int globalBatch, n;
    ZeroCollectiveSeconds comm;
    std::vector<double> ts; // candidate step limits, ascending

    struct Candidate {
        double estimate = 0, t = 0;
        std::vector<int> micro; // per device type
    };

    void collectStepLimits()
    {
        double tmin = 0;
        for (const SpeedCurve& c : curves)
            tmin = std::max(tmin, c.stepSeconds(1));
        for (const SpeedCurve& c : curves)
            for (int b = 1; b <= c.maxMicroBatch(); ++b)
                if (c.stepSeconds(b) >= tmin)
                    ts.push_back(c.stepSeconds(b));
        std::sort(ts.begin(), ts.end());
        ts.erase(std::unique(ts.begin(), ts.end()), ts.end());
    }

    // Samples one step carries when every GPU takes find(g_i, t), at least 1 and at most cap[k].
    long long capacity(double t, const std::vector<int>& cap) const
    {
        long long m = 0;
        for (size_t k = 0; k < curves.size(); ++k)
            m += (long long)devices[k].gpus.size() * std::clamp(curves[k].largestWithin(t), 1, cap[k]);
        return m;
    }

    // The shortest candidate t whose step (micro-batches capped at cap) carries r samples.
    double lastStepSeconds(long long r, const std::vector<int>& cap, size_t upTo) const
    {
        size_t lo = 0, hi = upTo; // capacity(ts[upTo]) >= r: every GPU at its full micro-batch
        while (lo < hi) {
            const size_t mid = (lo + hi) / 2;
            if (capacity(ts[mid], cap) >= r)
                hi = mid;
            else
                lo = mid + 1;
        }
        return ts[lo];
    }

    Candidate evaluate(size_t i) const
    {
        Candidate c;
        c.t = ts[i];
        long long M = 0;
        double full = 0;
        for (size_t k = 0; k < curves.size(); ++k) {
            c.micro.push_back(std::max(1, curves[k].largestWithin(c.t)));
            M += (long long)devices[k].gpus.size() * c.micro.back();
            full = std::max(full, curves[k].stepSeconds(c.micro.back()));
        }
        const long long gas = (globalBatch + M - 1) / M;
        const long long r = globalBatch - (gas - 1) * M;
        const double last = lastStepSeconds(r, c.micro, i);
        c.estimate = (gas - 1) * (full + comm.perMicroStep) + last + comm.perMicroStep + comm.perIteration;
        return c;
    }
};

// The exact equal-steps split of one candidate (micro-batch per device type) and its estimate.
Allocation buildSplit(const std::vector<DeviceProfile>& devices, const std::vector<SpeedCurve>& curves,
                      const std::vector<int>& microPerType, int globalBatch, const ZeroCollectiveSeconds& comm)
{
    std::vector<int> gpus, micro;
    std::vector<const SpeedCurve*> curveOf;
    for (size_t k = 0; k < devices.size(); ++k)
        for (int g : devices[k].gpus) {
            gpus.push_back(g);
            micro.push_back(microPerType[k]);
            curveOf.push_back(&curves[k]);
        }
    std::vector<size_t> slotOfGpu(size_t(*std::max_element(gpus.begin(), gpus.end())) + 1);
    for (size_t i = 0; i < gpus.size(); ++i)
        slotOfGpu[size_t(gpus[i])] = i;
    const StepTime stepTime = [&](int gpu, int b) { return curveOf[slotOfGpu[size_t(gpu)]]->stepSeconds(b); };
    Allocation a;
    a.gpus = equalStepsSplit(gpus, micro, globalBatch, stepTime);
    if (a.gpus.empty())
        return a;
    double full = 0, last = 0;
    for (const ZeroGpu& z : a.gpus) {
        full = std::max(full, stepTime(z.gpu, z.microBatchSize));
        last = std::max(last, stepTime(z.gpu, z.lastMicroBatchSize));
    }
    a.accumulation = a.gpus.front().accumulationSteps;
    a.seconds = (a.accumulation - 1) * (full + comm.perMicroStep) + last + comm.perMicroStep + comm.perIteration;
    std::sort(a.gpus.begin(), a.gpus.end(), [](const ZeroGpu& x, const ZeroGpu& y) { return x.gpu < y.gpu; });
    return a;
}

} // namespace

Allocation searchWallTime(const std::vector<DeviceProfile>& devices, const std::vector<SpeedCurve>& curves,
                          int globalBatch, const ZeroCollectiveSeconds& comm)
{
    WallTimeSearch s{devices, curves, globalBatch, gpuCount(devices), comm, {}};
    if (globalBatch < s.n)
        return {};
    s.collectStepLimits();
    std::vector<WallTimeSearch::Candidate> ranked;
    for (size_t i = 0; i < s.ts.size(); ++i)
        ranked.push_back(s.evaluate(i));
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const auto& a, const auto& b) { return a.estimate < b.estimate; });
    // The best few by the estimate are split exactly; the shortest exact split wins.
    Allocation best;
    for (size_t i = 0, tried = 0; i < ranked.size() && tried < 8; ++i) {
        Allocation a = buildSplit(devices, curves, ranked[i].micro, globalBatch, comm);
        if (a.gpus.empty())
            continue;
        ++tried;
        a.stepLimit = ranked[i].t;
        if (best.gpus.empty() || a.seconds < best.seconds)
            best = std::move(a);
    }
    best.candidates = (long long)s.ts.size();
    return best;
}

} // namespace hetplan::poplar
