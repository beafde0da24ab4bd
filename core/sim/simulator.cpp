// Entry point of the shared iteration simulator: structural checks, dispatch to the pipeline or ZeRO part,
// and the summary numbers (iteration time, tokens/s, busy time, feasibility).
#include "simulator.h"

#include "sim_detail.h"

#include "core/base/errors.h"
#include "core/cost/collectives.h"
#include "core/cost/memory.h"
#include "core/model/frameworks.h"
#include "core/model/pricing.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace hetplan {

std::string toString(EventKind k)
{
    switch (k) {
    case EventKind::Forward: return "forward";
    case EventKind::Backward: return "backward";
    case EventKind::Recompute: return "recompute";
    case EventKind::Optimizer: return "optimizer";
    case EventKind::SendActivation: return "send-activation";
    case EventKind::SendGradient: return "send-gradient";
    case EventKind::AllReduce: return "all-reduce";
    case EventKind::AllGather: return "all-gather";
    case EventKind::ReduceScatter: return "reduce-scatter";
    case EventKind::AllToAll: return "all-to-all";
    case EventKind::Broadcast: return "broadcast";
    }
    return "unknown";
}

bool isCollective(EventKind k)
{
    return isCommunication(k) && k != EventKind::SendActivation && k != EventKind::SendGradient;
}

bool isCommunication(EventKind k)
{
    switch (k) {
    case EventKind::Forward:
    case EventKind::Backward:
    case EventKind::Recompute:
    case EventKind::Optimizer: return false;
    default: return true;
    }
}

namespace simdetail {

void refuseTimeline(int maxEvents)
{
    throw InputError("plan", "timeline",
                     "the simulated iteration has more than " + std::to_string(maxEvents) +
                         " events, the limit for a timeline (Chrome trace, Gantt chart); its timings and summary "
                         "are still computed without one");
}

double perTensorRank(const ModelSpec& model, int first, int end, int tp, double LayerSpec::*count)
{
    double p = 0;
    for (int l = first; l < end; ++l) {
        const LayerSpec& s = model.layers[l];
        p += s.tensorParallel ? s.*count / std::max(1, tp) : s.*count;
    }
    return p;
}

double paramsPerRank(const ModelSpec& model, int first, int end, int tp)
{
    return perTensorRank(model, first, end, tp, &LayerSpec::params);
}

// The slowest link of any tensor-parallel group in `gpus` (consecutive runs of tp GPUs).
static LinkParams tensorGroupLink(const Cluster& cluster, const std::vector<int>& gpus, int tp)
{
    LinkParams worst{std::numeric_limits<double>::infinity(), 0};
    for (size_t i = 0; i + tp <= gpus.size(); i += tp) {
        const LinkParams l = groupLink(cluster, {gpus.begin() + i, gpus.begin() + i + tp});
        worst.bandwidth = std::min(worst.bandwidth, l.bandwidth);
        worst.latency = std::max(worst.latency, l.latency);
    }
    return worst;
}

LayerTiming slowestRange(const Plan& plan, const CostModel& costs, const std::vector<int>& gpus, int first, int end,
                         int tp, double microBatch, std::string* deviceOut)
{
    // Distinct device types first: a group is almost always homogeneous, so this is one range() call.
    std::vector<std::string> types;
    for (int n : plan.cluster.nodesOf(gpus)) {
        const std::string& t = plan.cluster.nodes[size_t(n)].deviceType;
        if (std::find(types.begin(), types.end(), t) == types.end())
            types.push_back(t);
    }
    LayerTiming best;
    bool have = false;
    for (const std::string& t : types) {
        // Each tensor-parallel group's all-reduces run over its real links (a NIC if it spans nodes).
        LayerTiming lt = tp > 1 ? costs.range(first, end, t, tp, microBatch, tensorGroupLink(plan.cluster, gpus, tp))
                                : costs.range(first, end, t, tp, microBatch);
        if (!have || lt.forward + lt.backward > best.forward + best.backward) {
            best = lt;
            have = true;
            if (deviceOut)
                *deviceOut = t;
        }
    }
    return best;
}

double optimizerSeconds(const CostModel& costs, const std::string& device, double measuredUpdate, double params,
                        double shards)
{
    shards = std::max(1.0, shards);
    if (measuredUpdate > 0)
        return measuredUpdate / shards;
    const DeviceType& d = costs.device(device);
    if (d.memoryBandwidth <= 0)
        return 0;
    // Adam-like step: read states, update, write back ~ three passes over the optimizer state bytes.
    return 3.0 * params * costs.job().updateOptimizerBytes() / shards / d.memoryBandwidth;
}

} // namespace simdetail

namespace {

// The checks the simulator needs so that nothing below can index out of range: Plan's structural rules
// (not its batch-size rule: the simulator also scores plans whose batch differs from the job's), and
// exactly one of pipelines or ZeRO batches.
void checkPlan(const Plan& plan)
{
    const std::string f = "plan";
    if (!plan.pipelines.empty() && plan.zero)
        throw InputError(f, "zero", "a plan has either pipelines or per-GPU ZeRO batches, not both");
    if (plan.pipelines.empty() && !plan.zero && !plan.spmd)
        throw InputError(f, "pipelines", "the plan has neither pipelines, ZeRO batches nor an SPMD program");
    // DeepSpeed's pipeline engine refuses ZeRO-2/3 (partitioned gradients cannot be accumulated across
    // micro-batches that other stages are still producing); Megatron has no ZeRO-2/3 at all.
    if (plan.job.zeroStage >= 2)
        for (const Pipeline& pl : plan.pipelines)
            if (pl.stages.size() > 1)
                throw InputError(f, "job.zero_stage",
                                 "ZeRO stage " + std::to_string(plan.job.zeroStage) +
                                     " cannot be combined with pipeline parallelism (DeepSpeed refuses it); use "
                                     "ZeRO 0 or 1, or one-stage pipelines / a ZeRO plan");
    if (plan.zero && plan.model.layerCount() == 0)
        throw InputError(f, "model.layers", "the model has no layers");
    plan.validateStructure(f);
}

// Events by start, then GPU; waitedOn indices follow their events to the new positions.
void sortEvents(std::vector<TimelineEvent>& events)
{
    std::vector<int> order(events.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        const TimelineEvent &x = events[size_t(a)], &y = events[size_t(b)];
        return x.start < y.start || (x.start == y.start && x.gpu < y.gpu);
    });
    std::vector<int> newIndex(events.size());
    std::vector<TimelineEvent> sorted;
    sorted.reserve(events.size());
    for (int i : order) {
        newIndex[size_t(i)] = int(sorted.size());
        sorted.push_back(events[size_t(i)]);
    }
    for (TimelineEvent& e : sorted)
        if (e.waitedOn >= 0)
            e.waitedOn = newIndex[size_t(e.waitedOn)];
    events = std::move(sorted);
}

} // namespace

SimResult simulate(const Plan& plan, const CostModel& costs, const SimOptions& options)
{
    checkPlan(plan);
    if (costs.model().layerCount() != plan.model.layerCount())
        throw InputError("plan", "model", "the cost model's layer count differs from the plan's model");

    SimResult result;
    simdetail::Recorder rec(options, result, plan.cluster.gpuCount());
    switch (plan.kind()) {
    case PlanKind::Pipelines: simdetail::simulatePipelines(plan, costs, rec); break;
    case PlanKind::Zero: simdetail::simulateZero(plan, costs, rec); break;
    case PlanKind::Spmd: simdetail::simulateSpmd(plan, costs, rec); break;
    case PlanKind::Empty: throw std::logic_error("checkPlan() lets no empty plan through");
    }

    double t = 0;
    for (int g = 0, n = plan.cluster.gpuCount(); g < n; ++g) {
        if (!rec.used[g])
            continue;
        t = std::max(t, rec.finish[g]);
        result.busySeconds[g] = rec.busy[g];
    }
    result.iterationSeconds = t;
    result.tokensPerSecond = t > 0 ? double(plan.samplesPerIteration()) * plan.job.sequenceLength / t : 0;
    result.feasible = true;
    // The schedules record each GPU's stage part and its communicators; what the GPU really holds adds
    // their buffers and the context, and feasibility is judged on that same number.
    const std::vector<int> nodeOfGpu = plan.cluster.gpuNodes();
    for (auto& [gpu, peak] : result.peakMemoryBytes) {
        const Node& node = plan.cluster.nodes[size_t(nodeOfGpu.at(size_t(gpu)))];
        const DeviceType& d = costs.device(node.deviceType);
        const RankGroups groups = result.rankGroups.count(gpu) ? result.rankGroups.at(gpu) : RankGroups{};
        GpuMemory& m = result.memory[gpu];
        if (!fitsMemory(peak, node, d, plan.job, groups)) // the planners' own rule, margin included
            result.feasible = false;
        addGpuTerms(m, node, d, plan.job, groups);
        peak = gpuPeakMemory(peak, node, d, plan.job, groups);
    }
    if (options.timeline)
        sortEvents(result.events);
    return result;
}

void scorePlan(Plan& plan, const CostModel& costs)
{
    SimResult r = simulate(plan, costs, SimOptions{false});
    plan.estimate.iterationSeconds = r.iterationSeconds;
    plan.estimate.tokensPerSecond = r.tokensPerSecond;
    plan.estimate.peakMemoryBytes = r.peakMemoryBytes;
    plan.estimate.memory = r.memory;
    plan.estimate.feasible = r.feasible;
    plan.estimate.frameworks = checkFrameworks(plan);
    priceEstimate(plan, [&](const std::string& type) { return &costs.device(type); });
}

} // namespace hetplan
