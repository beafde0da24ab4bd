// SPMD programs (HAP). Modelling choices:
//  - every GPU runs every instruction in order; a collective synchronises all GPUs (it starts when the last
//    one arrives) and lasts the affine time of core/cost/spmd_costs.h at the segment's largest ratio;
//  - a compute instruction takes its FLOP × (the GPU's ratio if sharded, else 1) at the GPU's sustained
//    rate for the job's precision (spmdComputeSeconds); consecutive computes of one layer and pass are drawn as one
//    event;
//  - a re-balance at a ratio-segment boundary lasts as long as moving the largest change of share;
//  - the all-reduces of parameter gradients are not run where the program lists them: as in the
//    frameworks, they fill DeepSpeed-sized buckets reduced one after another after the backward
//    (core/cost/gradient_reduction.h), each paying the ring's latency once, in the gradient reduction's
//    precision (fp32 for bf16 jobs, like the ZeRO simulator);
//  - then each GPU runs its optimizer step over the parameters it holds;
//  - memory per GPU: the parameters it holds (weights, gradients and optimizer states at Megatron's bytes
//    per parameter, core/cost/memory.h) plus every forward output (kept for the backward), each scaled by
//    the ratio when sharded. Instruction bytes are at the job's precision (bytesPerValue per value).
#include "sim_detail.h"

#include "core/base/errors.h"
#include "core/cost/gradient_reduction.h"
#include "core/cost/spmd_costs.h"
#include "core/cost/zero_comm.h"

#include <algorithm>
#include <cmath>

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
    for (size_t i = 0; i < sp.instructions.size(); ++i) {
        const SpmdInstruction& ins = sp.instructions[i];
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
    std::string group;
    bool backward = false;
};

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
    std::vector<double> t(n, 0.0);
    std::vector<Open> open(n);
    std::vector<double> gradients; // parameter-gradient bytes in the order the backward produces them
    auto flush = [&](int g) {
        if (open[g].start >= 0 && t[g] > open[g].start)
            rec.add(g, open[g].backward ? EventKind::Backward : EventKind::Forward, 0, 0, 0, -1, open[g].start, t[g]);
        open[g].start = -1;
    };
    for (const SpmdInstruction& ins : sp.instructions) {
        const std::vector<double>& r = sp.shardingRatios[ins.segment];
        if (ins.kind == SpmdInstruction::Kind::Load)
            continue; // takes no time; its memory is in spmdMemoryTerms
        if (ins.kind == SpmdInstruction::Kind::Compute) {
            for (int g = 0; g < n; ++g) {
                if (open[g].start < 0 || open[g].group != ins.group || open[g].backward != ins.backward) {
                    flush(g);
                    open[g] = {t[g], ins.group, ins.backward};
                }
                t[g] += spmdComputeSeconds(ins.flops * (ins.sharded ? r[g] : 1.0), *dev[g], plan.job.precision);
            }
        } else {
            SpmdCollective c;
            parseSpmdCollective(ins.collective, c);
            if (c == SpmdCollective::Slice)
                continue;
            if (ins.parameter && ins.backward && c == SpmdCollective::AllReduce) {
                gradients.push_back(ins.bytes / plan.job.bytesPerValue() * gradientReduceBytesPerParam(plan.job));
                continue;
            }
            double z = 0; // the largest share, or for a re-balance the largest change of share
            for (int g = 0; g < n; ++g)
                z = std::max(z, ins.fromSegment >= 0 ? std::abs(r[g] - sp.shardingRatios[ins.fromSegment][g]) : r[g]);
            const double start = *std::max_element(t.begin(), t.end());
            const double end = start + spmdCollectiveCost(c, ins.bytes, n, link).at(z);
            for (int g = 0; g < n; ++g) {
                flush(g);
                rec.add(g, eventOf(c), 0, 0, ins.segment, -1, start, end);
                t[g] = end;
            }
        }
    }
    for (double bucket : gradientBuckets(gradients, reduceBucketBytes(gradientReduceBytesPerParam(plan.job)))) {
        const double start = *std::max_element(t.begin(), t.end());
        const double end = start + ringAllReduce(bucket, n, link);
        for (int g = 0; g < n; ++g) {
            flush(g);
            rec.add(g, EventKind::AllReduce, 0, 0, 0, -1, start, end);
            t[g] = end;
        }
    }
    const SpmdMemoryTerms mem = spmdMemoryTerms(sp.instructions, int(sp.shardingRatios.size()));
    for (int g = 0; g < n; ++g) {
        flush(g);
        std::vector<double> mine; // this GPU's ratio in each segment
        for (const std::vector<double>& row : sp.shardingRatios)
            mine.push_back(row[g]);
        const double update = optimizerSeconds(costs, dev[g]->name, 0, mem.paramValues(mine, plan.job), 1);
        rec.add(g, EventKind::Optimizer, 0, 0, 0, -1, t[g], t[g] + update);
        rec.result.peakMemoryBytes[g] = mem.peakBytes(mine, plan.job);
    }
}

} // namespace hetplan::simdetail
