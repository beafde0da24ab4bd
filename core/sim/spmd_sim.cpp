// SPMD programs (HAP). Modelling choices:
//  - every GPU runs every instruction in order; a collective synchronises all GPUs (it starts when the last
//    one arrives) and lasts the affine time of core/cost/spmd_costs.h at the segment's largest ratio;
//  - a compute instruction takes its FLOP × (the GPU's share if sharded, else 1) at the seconds per FLOP of
//    the layer-level cost model for that layer, pass and device at the GPU's samples of the layer
//    (spmdSecondsPerFlop: the one analytic or measured profile every other plan is timed with), so a
//    data-parallel program costs what the ZeRO simulator charges for the same per-GPU batches; the share is
//    the whole units of the instruction's dimension on that GPU (SpmdPlan::dimensions) when the plan has
//    them, else the segment's ratio; consecutive computes of one layer and pass are drawn as one event;
//  - a re-balance at a ratio-segment boundary lasts as long as moving the largest change of share;
//  - the all-reduces of parameter gradients are not run where the program lists them: as in the
//    frameworks, they fill DeepSpeed-sized buckets reduced one after another after the backward
//    (core/cost/gradient_reduction.h), each paying the ring's latency once, in the gradient reduction's
//    precision (fp32 for bf16 jobs, like the ZeRO simulator);
//  - then each GPU runs its optimizer step over the parameters it holds;
//  - memory per GPU: the parameters it holds (weights, gradients and optimizer states at Megatron's bytes
//    per parameter, core/cost/memory.h) plus the layer-level model's activations (spmdMemoryTerms), each
//    scaled by the GPU's share when sharded. Instruction bytes are at the job's precision.
#include "sim_detail.h"

#include "core/base/errors.h"
#include "core/cost/gradient_reduction.h"
#include "core/cost/spmd_costs.h"
#include "core/cost/zero_comm.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <vector>

namespace hetplan::simdetail {

namespace {

EventKind eventOf(SpmdCollective c)
{
    switch (c) {
    case SpmdCollective::AllReduce: return EventKind::AllReduce;
    case SpmdCollective::AllGather: return EventKind::AllGather;
    case SpmdCollective::GroupedBroadcast: return EventKind::Broadcast;
    case SpmdCollective::ReduceScatter: return EventKind::ReduceScatter;
    case SpmdCollective::AllToAll:
    case SpmdCollective::Rebalance:
    case SpmdCollective::Slice: break;
    }
    return EventKind::AllToAll;
}

void checkSpmd(const Plan& plan)
{
    const SpmdPlan& sp = *plan.spmd;
    const std::string f = "plan";
    if (sp.instructions.empty())
        throw InputError(f, "spmd.instructions", "an SPMD plan needs its instructions to be simulated");
    const int n = plan.cluster.gpuCount();
    for (size_t k = 0; k < sp.shardingRatios.size(); ++k)
        if (int(sp.shardingRatios[k].size()) != n)
            throw InputError(f, "spmd.sharding_ratios[" + std::to_string(k) + "]", "needs one ratio per GPU");
    for (size_t d = 0; d < sp.dimensions.size(); ++d) {
        const SpmdDimension& dim = sp.dimensions[d];
        const std::string field = "spmd.dimensions[" + std::to_string(d) + "]";
        if (int(dim.shards.size()) != n)
            throw InputError(f, field + ".shards", "needs one shard size per GPU");
        long long sum = 0;
        for (long long v : dim.shards)
            sum += v < 0 ? dim.size + 1 : v;
        if (dim.size <= 0 || sum != dim.size)
            throw InputError(f, field + ".shards", "non-negative whole units that add up to the size");
    }
    for (size_t i = 0; i < sp.instructions.size(); ++i) {
        const SpmdInstruction& ins = sp.instructions[i];
        if (ins.dimension >= int(sp.dimensions.size()))
            throw InputError(f, "spmd.instructions[" + std::to_string(i) + "].dimension", "no such dimension");
        SpmdCollective c;
        if (ins.segment < 0 || ins.segment >= int(sp.shardingRatios.size()) ||
            ins.fromSegment >= int(sp.shardingRatios.size()))
            throw InputError(f, "spmd.instructions[" + std::to_string(i) + "].segment", "no such ratio row");
        if (ins.kind == SpmdInstruction::Kind::Collective && !parseSpmdCollective(ins.collective, c))
            throw InputError(f, "spmd.instructions[" + std::to_string(i) + "].collective", "unknown collective");
    }
}

struct Open {
    double start = -1;
    int group = -1; // index into the program's distinct op groups
    bool backward = false;
};

// GPUs that run every instruction alike: the same device type, ratio in every segment and units of every
// dimension. Their clocks never differ, so the program is run once per class (a data-parallel program on
// 1,024 GPUs of four types has four) and each event is recorded for every member.
struct GpuClasses {
    std::vector<int> representative; // per class: one of its GPUs
    std::vector<std::vector<int>> members;
};

GpuClasses gpuClasses(const SpmdPlan& sp, const std::vector<const DeviceType*>& dev)
{
    GpuClasses out;
    std::map<std::tuple<const DeviceType*, std::vector<double>, std::vector<long long>>, int> index;
    for (int g = 0; g < int(dev.size()); ++g) {
        std::vector<double> ratios;
        for (const std::vector<double>& row : sp.shardingRatios)
            ratios.push_back(row[size_t(g)]);
        std::vector<long long> units;
        for (const SpmdDimension& d : sp.dimensions)
            units.push_back(d.shards[size_t(g)]);
        auto [it, added] = index.try_emplace({dev[size_t(g)], std::move(ratios), std::move(units)},
                                             int(out.representative.size()));
        if (added) {
            out.representative.push_back(g);
            out.members.emplace_back();
        }
        out.members[size_t(it->second)].push_back(g);
    }
    return out;
}

} // namespace

void simulateSpmd(const Plan& plan, const CostModel& costs, Recorder& rec)
{
    checkSpmd(plan);
    const SpmdPlan& sp = *plan.spmd;
    const int n = plan.cluster.gpuCount();
    std::vector<int> all(n);
    for (int g = 0; g < n; ++g)
        all[g] = g;
    const LinkParams link = groupLink(plan.cluster, all);
    std::vector<const DeviceType*> dev(n);
    const std::vector<int> nodeOfGpu = plan.cluster.gpuNodes();
    for (int g = 0; g < n; ++g)
        dev[g] = &costs.device(plan.cluster.nodes[size_t(nodeOfGpu[size_t(g)])].deviceType);
    const GpuClasses classes = gpuClasses(sp, dev);
    const int C = int(classes.representative.size());
    // Op groups by index, so the per-class loop compares integers, not layer names.
    std::vector<int> groupOf(sp.instructions.size(), -1);
    {
        std::map<std::string, int> ids;
        for (size_t i = 0; i < sp.instructions.size(); ++i)
            groupOf[i] = ids.try_emplace(sp.instructions[i].group, int(ids.size())).first->second;
    }
    std::vector<double> t(C, 0.0); // per class
    std::vector<Open> open(C);
    // Seconds per FLOP per class for the current (group, pass), from the layer-level cost model at the
    // GPU's samples (its batch ratio of the segment × the global batch); recomputed when the group changes.
    std::map<std::pair<std::string, bool>, double> programFlops; // the layer's FLOP per pass, whole batch
    for (const SpmdInstruction& ins : sp.instructions)
        if (ins.kind == SpmdInstruction::Kind::Compute)
            programFlops[{ins.group, ins.backward}] += ins.flops;
    const double batch = double(std::max<long long>(1, plan.job.globalBatchSize));
    std::vector<double> spf(C, 0.0);
    std::map<std::tuple<const DeviceType*, double>, double> spfCache;
    int spfGroup = -1, spfSegment = -1, spfBackward = -1;
    auto secondsPerFlop = [&](const SpmdInstruction& ins, int group) {
        if (group == spfGroup && ins.segment == spfSegment && int(ins.backward) == spfBackward)
            return;
        spfGroup = group;
        spfSegment = ins.segment;
        spfBackward = ins.backward;
        spfCache.clear();
        const int layer = spmdLayerOf(plan.model, ins.group);
        const double flops = programFlops[{ins.group, ins.backward}];
        for (int c = 0; c < C; ++c) {
            const int g = classes.representative[size_t(c)];
            const double samples = std::round(sp.shardingRatios[ins.segment][g] * batch);
            auto [it, added] = spfCache.try_emplace({dev[g], samples}, 0.0);
            if (added)
                it->second = spmdSecondsPerFlop(costs, layer, dev[g]->name, samples, ins.backward, flops);
            spf[c] = it->second;
        }
    };
    std::vector<double> gradients; // parameter-gradient bytes in the order the backward produces them
    auto addToClass = [&](int c, EventKind kind, int stage, double start, double end) {
        for (int g : classes.members[size_t(c)])
            rec.add(g, kind, 0, 0, stage, -1, start, end);
    };
    auto flush = [&](int c) {
        if (open[c].start >= 0 && t[c] > open[c].start)
            addToClass(c, open[c].backward ? EventKind::Backward : EventKind::Forward, 0, open[c].start, t[c]);
        open[c].start = -1;
    };
    for (size_t i = 0; i < sp.instructions.size(); ++i) {
        const SpmdInstruction& ins = sp.instructions[i];
        if (ins.kind == SpmdInstruction::Kind::Load)
            continue; // takes no time; its memory is in spmdMemoryTerms
        if (ins.kind == SpmdInstruction::Kind::Compute) {
            secondsPerFlop(ins, groupOf[i]);
            for (int c = 0; c < C; ++c) {
                if (open[c].start < 0 || open[c].group != groupOf[i] || open[c].backward != ins.backward) {
                    flush(c);
                    open[c] = {t[c], groupOf[i], ins.backward};
                }
                t[c] += ins.flops * (ins.sharded ? sp.share(ins, classes.representative[size_t(c)]) : 1.0) * spf[c];
            }
        } else {
            SpmdCollective kind;
            parseSpmdCollective(ins.collective, kind);
            if (kind == SpmdCollective::Slice)
                continue;
            if (ins.parameter && ins.backward && kind == SpmdCollective::AllReduce) {
                gradients.push_back(ins.bytes / plan.job.bytesPerValue() * gradientReduceBytesPerParam(plan.job));
                continue;
            }
            const std::vector<double>& r = sp.shardingRatios[ins.segment];
            double z = 0; // the largest share, or for a re-balance the largest change of share
            for (int c = 0; c < C; ++c) {
                const int g = classes.representative[size_t(c)];
                z = std::max(z, ins.fromSegment >= 0 ? std::abs(r[g] - sp.shardingRatios[ins.fromSegment][g])
                                                     : sp.share(ins, g));
            }
            const double start = *std::max_element(t.begin(), t.end());
            const double end = start + spmdCollectiveCost(kind, ins.bytes, n, link).at(z);
            for (int c = 0; c < C; ++c) {
                flush(c);
                addToClass(c, eventOf(kind), ins.segment, start, end);
                t[c] = end;
            }
        }
    }
    for (double bucket : gradientBuckets(gradients, reduceBucketBytes(gradientReduceBytesPerParam(plan.job)))) {
        const double start = *std::max_element(t.begin(), t.end());
        const double end = start + ringAllReduce(bucket, n, link);
        for (int c = 0; c < C; ++c) {
            flush(c);
            addToClass(c, EventKind::AllReduce, 0, start, end);
            t[c] = end;
        }
    }
    for (int c = 0; c < C; ++c)
        flush(c);
    std::vector<double> clock(n); // each GPU's time when its optimizer step starts
    for (int c = 0; c < C; ++c)
        for (int g : classes.members[size_t(c)])
            clock[size_t(g)] = t[c];
    const SpmdMemoryTerms mem = spmdMemoryTerms(sp.instructions, int(sp.shardingRatios.size()), plan.model,
                                                plan.job, int(sp.dimensions.size()));
    // The optimizer step: the layer-level profile's update time of the whole model (what the ZeRO simulator
    // charges a data-parallel GPU), scaled by the share of the parameters this GPU holds.
    const int L = plan.model.layerCount();
    const double modelParams = plan.model.totalParams();
    std::map<const DeviceType*, double> fullUpdate;
    for (int g = 0; g < n; ++g) {
        const double values = mem.paramValuesOnGpu(sp, g, plan.job);
        auto [it, added] = fullUpdate.try_emplace(dev[g], 0.0);
        if (added && L > 0)
            it->second = costs.range(0, L, dev[g]->name, 1, 1).update;
        const double measured = modelParams > 0 ? it->second * values / modelParams : 0.0;
        const double update = optimizerSeconds(costs, dev[g]->name, measured, values, 1);
        rec.add(g, EventKind::Optimizer, 0, 0, 0, -1, clock[size_t(g)], clock[size_t(g)] + update);
        rec.result.peakMemoryBytes[g] = mem.peakBytesOnGpu(sp, g, plan.job);
        // Its parts: the parameters' states at Megatron's bytes per parameter, activations, DeepSpeed's
        // reserve and buffer; every GPU is in one data-parallel communicator.
        const StateBytesPerParam per = stateBytesPerParam(plan.job);
        GpuMemory& m = rec.result.memory[g];
        m.weights = values * per.weights;
        m.gradients = values * per.gradients;
        m.optimizer = values * per.optimizer;
        m.activations = mem.activations.onGpu(sp, g);
        m.allocatorReserve = mem.reserve.onGpu(sp, g);
        m.gradientBuffer = spmdGradientBuffer(values, plan.job);
        rec.result.rankGroups[g] = RankGroups::dataParallel(n);
    }
}

} // namespace hetplan::simdetail
