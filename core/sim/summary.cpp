// The plan summary from one simulated iteration: shares from each GPU's event intervals (their union,
// so overlapping compute and communication are not counted twice), the bubble from the pipelines'
// forward/backward phase, memory from the simulator's peaks, MFU from the model's FLOP.
#include "summary.h"

#include "critical_path.h"

#include "core/base/errors.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <tuple>

namespace hetplan {

namespace {

using Interval = std::pair<double, double>;

// Length of the union of intervals, each clipped to [from, to].
double unionLength(std::vector<Interval> v, double from, double to)
{
    for (Interval& i : v)
        i = {std::max(i.first, from), std::min(i.second, to)};
    std::sort(v.begin(), v.end());
    double total = 0, start = 0, end = -1;
    bool open = false;
    for (const Interval& i : v) {
        if (i.second <= i.first)
            continue;
        if (open && i.first <= end) {
            end = std::max(end, i.second);
            continue;
        }
        if (open)
            total += end - start;
        start = i.first;
        end = i.second;
        open = true;
    }
    return open ? total + (end - start) : total;
}

struct GpuIntervals {
    std::vector<Interval> compute, all;
};

std::map<int, GpuIntervals> intervalsByGpu(const SimResult& r)
{
    std::map<int, GpuIntervals> out;
    for (const auto& [g, busy] : r.busySeconds)
        out[g]; // a used GPU without events is idle all iteration
    for (const TimelineEvent& e : r.events) {
        GpuIntervals& gi = out[e.gpu];
        gi.all.push_back({e.start, e.end});
        if (!isCommunication(e.kind))
            gi.compute.push_back({e.start, e.end});
    }
    return out;
}

const std::string& typeOf(const Plan& plan, int gpu) { return plan.cluster.nodeOf(gpu).deviceType; }


void fillDegrees(const Plan& plan, PlanSummary& s)
{
    switch (plan.kind()) {
    case PlanKind::Pipelines: {
        s.kind = "pipelines";
        s.pp = s.dp = s.tp = 0;
        for (const Pipeline& pl : plan.pipelines) {
            PipelineSummary ps{pl.replicas, pl.microBatchSize, pl.microBatches, {}};
            int stageDp = 1;
            for (const Stage& st : pl.stages) {
                std::string type = st.gpus.empty() ? "" : typeOf(plan, st.gpus.front());
                for (int n : plan.cluster.nodesOf(st.gpus))
                    if (plan.cluster.nodes[size_t(n)].deviceType != type)
                        type = "mixed";
                ps.stages.push_back({st.firstLayer, st.endLayer, type, st.tensorParallel, st.dataParallel,
                                     int(st.gpus.size())});
                stageDp = std::max(stageDp, st.dataParallel);
                s.tp = std::max(s.tp, st.tensorParallel);
            }
            s.pp = std::max(s.pp, int(pl.stages.size()));
            s.dp += pl.replicas * stageDp;
            s.pipelines.push_back(std::move(ps));
        }
        s.microBatchSize = plan.pipelines.front().microBatchSize;
        s.microBatches = plan.pipelines.front().microBatches;
        return;
    }
    case PlanKind::Zero:
        s.kind = "zero";
        s.dp = int(plan.zero->gpus.size());
        for (const ZeroGpu& g : plan.zero->gpus) {
            s.microBatchSize = std::max(s.microBatchSize, g.microBatchSize);
            s.microBatches = std::max(s.microBatches, g.accumulationSteps);
        }
        return;
    case PlanKind::Spmd:
        s.kind = "spmd";
        s.dp = int(plan.usedGpus().size());
        return;
    case PlanKind::Empty: throw std::logic_error("summarize() needs a simulated plan");
    }
}

// Idle share of each pipeline's forward/backward phase (first forward start to last backward end),
// over all its GPUs together: (S − 1) / (M + S − 1) for balanced 1F1B or GPipe stages with free sends.
std::optional<double> bubbleFraction(const Plan& plan, const SimResult& r, const std::map<int, GpuIntervals>& byGpu)
{
    if (plan.kind() != PlanKind::Pipelines)
        return std::nullopt;
    double idle = 0, total = 0;
    for (size_t p = 0; p < plan.pipelines.size(); ++p) {
        double from = INFINITY, to = -INFINITY;
        for (const TimelineEvent& e : r.events)
            if (e.pipeline == int(p) && !isCommunication(e.kind) && e.kind != EventKind::Optimizer) {
                from = std::min(from, e.start);
                to = std::max(to, e.end);
            }
        if (!(to > from))
            continue;
        for (const Stage& st : plan.pipelines[p].stages)
            for (int g : st.gpus) {
                auto it = byGpu.find(g);
                const double busy = it == byGpu.end() ? 0 : unionLength(it->second.all, from, to);
                idle += (to - from) - busy;
                total += to - from;
            }
    }
    return total > 0 ? std::optional<double>(idle / total) : std::nullopt;
}

std::vector<DeviceTypeSummary> deviceTypes(const Plan& plan, const CostModel& costs, const SimResult& r,
                                           const std::map<int, GpuIntervals>& byGpu)
{
    std::vector<DeviceTypeSummary> out;
    const double T = r.iterationSeconds;
    const std::vector<int> nodeOfGpu = plan.cluster.gpuNodes();
    for (const auto& [g, iv] : byGpu) {
        const std::string& type = plan.cluster.nodes[size_t(nodeOfGpu[size_t(g)])].deviceType;
        auto it = std::find_if(out.begin(), out.end(), [&](const DeviceTypeSummary& d) { return d.deviceType == type; });
        if (it == out.end()) {
            DeviceTypeSummary d;
            d.deviceType = type;
            d.memoryCapacityBytes = costs.device(type).memoryBytes;
            out.push_back(d);
            it = out.end() - 1;
        }
        const double compute = unionLength(iv.compute, 0, T), busy = unionLength(iv.all, 0, T);
        it->gpus += 1;
        it->computeShare += T > 0 ? compute / T : 0;
        it->communicationShare += T > 0 ? (busy - compute) / T : 0;
        it->idleShare += T > 0 ? (T - busy) / T : 1;
        auto peak = r.peakMemoryBytes.find(g);
        if (peak != r.peakMemoryBytes.end() && peak->second > it->peakMemoryBytes) {
            it->peakMemoryBytes = peak->second;
            auto parts = r.memory.find(g);
            it->peakMemory = parts != r.memory.end() ? parts->second : GpuMemory{};
        }
    }
    for (DeviceTypeSummary& d : out) {
        d.computeShare /= d.gpus;
        d.communicationShare /= d.gpus;
        d.idleShare /= d.gpus;
        d.headroomBytes = d.memoryCapacityBytes - d.peakMemoryBytes;
    }
    return out;
}

std::string percent(double share) { return std::to_string(std::lround(share * 100)) + " %"; }

// Without a critical path (ZeRO and SPMD plans record no pipeline dependencies): the GPU busy longest
// (compute + communication), named by its stage where the plan has pipelines.
Bottleneck busiestGpu(const Plan& plan, const SimResult& r, const std::map<int, GpuIntervals>& byGpu)
{
    Bottleneck b;
    const double T = r.iterationSeconds;
    int worst = -1;
    double worstBusy = -1, worstCompute = 0;
    for (const auto& [g, iv] : byGpu) {
        const double busy = unionLength(iv.all, 0, T);
        if (busy > worstBusy) {
            worst = g;
            worstBusy = busy;
            worstCompute = unionLength(iv.compute, 0, T);
        }
    }
    if (worst < 0 || !(T > 0))
        return b;
    b.deviceType = typeOf(plan, worst);
    b.share = worstBusy / T;
    for (size_t p = 0; p < plan.pipelines.size(); ++p)
        for (size_t s = 0; s < plan.pipelines[p].stages.size(); ++s) {
            const std::vector<int>& gs = plan.pipelines[p].stages[s].gpus;
            if (std::find(gs.begin(), gs.end(), worst) != gs.end()) {
                b.pipeline = int(p);
                b.stage = int(s);
            }
        }
    // Stages are numbered from 0, as the Gantt chart and the stage map label them.
    if (b.stage >= 0)
        b.text = (plan.pipelines.size() > 1 ? "pipeline " + std::to_string(b.pipeline) + " " : std::string()) +
                 "stage " + std::to_string(b.stage) + " on " + b.deviceType + " is the slowest stage";
    else
        b.text = "GPU " + plan.cluster.gpuName(worst) + " (" + b.deviceType + ") is the busiest GPU";
    b.text += ": " + percent(b.share) + " of the iteration";
    if (worstBusy - worstCompute > worstCompute)
        b.text += ", most of it communication";
    return b;
}

// The stage, or a stage's collective, that holds the largest part of the critical path (the chain of events
// that sets the iteration time): shortening anything else cannot shorten the iteration by more than it.
Bottleneck bottleneck(const Plan& plan, const SimResult& r, const std::map<int, GpuIntervals>& byGpu)
{
    const double T = r.iterationSeconds;
    if (plan.pipelines.empty() || !(T > 0))
        return busiestGpu(plan, r, byGpu);
    const CriticalPath path = criticalPath(r);
    // (pipeline, stage, collective?) → seconds of the chain.
    std::map<std::tuple<int, int, bool>, double> onPath;
    for (int i : path.chain) {
        const TimelineEvent& e = r.events[size_t(i)];
        onPath[{e.pipeline, e.stage, isCollective(e.kind)}] += e.end - e.start;
    }
    if (onPath.empty())
        return busiestGpu(plan, r, byGpu);
    const auto worst = std::max_element(onPath.begin(), onPath.end(),
                                        [](const auto& a, const auto& b) { return a.second < b.second; });
    const auto [p, st, collective] = worst->first;
    Bottleneck b;
    b.pipeline = p;
    b.stage = st;
    b.share = worst->second / T;
    const std::vector<int>& gpus = plan.pipelines.at(size_t(p)).stages.at(size_t(st)).gpus;
    b.deviceType = gpus.empty() ? std::string() : typeOf(plan, gpus.front());
    // Stages are numbered from 0, as the Gantt chart and the stage map label them.
    const std::string stage = (plan.pipelines.size() > 1 ? "pipeline " + std::to_string(p) + " " : std::string()) +
                              "stage " + std::to_string(st);
    b.text = collective ? "the collectives of " + stage + " on " + b.deviceType + " hold the critical path"
                        : stage + " on " + b.deviceType + " is the slowest stage";
    b.text += ": " + percent(b.share) + " of the iteration";
    return b;
}

} // namespace

double modelFlopsPerIteration(const Plan& plan)
{
    return 3.0 * plan.model.totalForwardFlops() * double(plan.samplesPerIteration());
}

namespace {
void fillThroughput(const Plan& plan, const CostModel& costs, const SimResult& r,
                    const std::map<int, GpuIntervals>& byGpu, PlanSummary& s)
{
    s.iterationSeconds = r.iterationSeconds;
    s.tokensPerSecond = r.tokensPerSecond;
    double peak = 0;
    const std::vector<int> nodeOfGpu = plan.cluster.gpuNodes();
    for (const auto& [g, iv] : byGpu)
        peak += precisionPeakFlops(costs.device(plan.cluster.nodes[size_t(nodeOfGpu[size_t(g)])].deviceType), plan.job);
    if (peak > 0 && s.iterationSeconds > 0)
        s.mfu = modelFlopsPerIteration(plan) / (s.iterationSeconds * peak);
}

// The summary from each GPU's compute seconds, which the simulator counts without events. Compute on one
// GPU never overlaps, so one interval of that length gives the exact compute share; communication cannot
// be told from idle time without the events, so it counts as idle, and there is no bubble fraction.
PlanSummary summarizeFromBusyTime(const Plan& plan, const CostModel& costs, const SimResult& r, const std::string& why)
{
    PlanSummary s;
    fillDegrees(plan, s);
    std::map<int, GpuIntervals> byGpu;
    for (const auto& [g, busy] : r.busySeconds)
        byGpu[g] = GpuIntervals{{{0.0, busy}}, {{0.0, busy}}};
    s.deviceTypes = deviceTypes(plan, costs, r, byGpu);
    fillThroughput(plan, costs, r, byGpu, s);
    s.bottleneck = busiestGpu(plan, r, byGpu);
    s.bottleneck.text += " (compute only: " + why + ")";
    return s;
}
} // namespace

PlanSummary summarize(const Plan& plan, const CostModel& costs, const SimResult& timeline)
{
    PlanSummary s;
    fillDegrees(plan, s);
    const std::map<int, GpuIntervals> byGpu = intervalsByGpu(timeline);
    s.bubbleFraction = bubbleFraction(plan, timeline, byGpu);
    s.deviceTypes = deviceTypes(plan, costs, timeline, byGpu);
    fillThroughput(plan, costs, timeline, byGpu, s);
    s.bottleneck = bottleneck(plan, timeline, byGpu);
    return s;
}

PlanSummary summarize(const Plan& plan, const CostModel& costs, std::stop_token stop)
{
    SimResult r;
    try {
        SimOptions options;
        options.stop = std::move(stop);
        r = simulate(plan, costs, options);
    } catch (const InputError& e) {
        if (e.field() != "timeline")
            throw;
        return summarizeFromBusyTime(plan, costs, simulate(plan, costs, SimOptions{false}),
                                     "the iteration has more than " + std::to_string(kMaxTimelineEvents) +
                                         " events, too many to analyse its timeline");
    }
    return summarize(plan, costs, r);
}

PlanSummary summarizeWithoutTimeline(const Plan& plan, const CostModel& costs, const std::string& why)
{
    return summarizeFromBusyTime(plan, costs, simulate(plan, costs, SimOptions{false}), why);
}

} // namespace hetplan
