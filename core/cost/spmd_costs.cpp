#include "spmd_costs.h"

#include "analytic.h"
#include "costmodel.h"
#include "memory.h"

#include "core/model/device.h"

#include <array>
#include <algorithm>
#include <functional>
#include <map>

namespace hetplan {

namespace {

const std::array<const char*, 7> kNames = {"all-reduce", "all-gather", "grouped-broadcast", "reduce-scatter",
                                           "all-to-all", "slice",      "rebalance"};

// The affine function z ↦ f(z·scale) of a cost f that is affine in its byte count for positive bytes.
AffineCost affineIn(const std::function<double(double)>& f, double scale)
{
    const double full = f(scale), half = f(scale / 2);
    const double slope = 2 * (full - half);
    return {full - slope, slope};
}

} // namespace

std::string toString(SpmdCollective c) { return kNames[size_t(c)]; }

bool parseSpmdCollective(const std::string& s, SpmdCollective& out)
{
    for (size_t i = 0; i < kNames.size(); ++i)
        if (s == kNames[i]) {
            out = SpmdCollective(i);
            return true;
        }
    return false;
}

AffineCost spmdCollectiveCost(SpmdCollective c, double fullBytes, int ranks, LinkParams link)
{
    if (ranks <= 1 || fullBytes <= 0 || c == SpmdCollective::Slice)
        return {};
    const double n = ranks;
    switch (c) {
    case SpmdCollective::AllReduce: return {ringAllReduce(fullBytes, ranks, link), 0};
    case SpmdCollective::AllGather: // every shard padded to the largest: a buffer of n · z · S
        return affineIn([&](double b) { return ringAllGather(b, ranks, link); }, n * fullBytes);
    case SpmdCollective::ReduceScatter:
        return affineIn([&](double b) { return ringReduceScatter(b, ranks, link); }, n * fullBytes);
    case SpmdCollective::AllToAll: // each rank sends its shard z · S
        return affineIn([&](double b) { return allToAll(b, ranks, link); }, fullBytes);
    case SpmdCollective::GroupedBroadcast: // all shards once, no padding; one launch per rank
        return {fullBytes / link.bandwidth + n * link.latency, 0};
    case SpmdCollective::Rebalance: return {0, (n - 1) / n * fullBytes / link.bandwidth};
    case SpmdCollective::Slice: break;
    }
    return {};
}

double spmdFlopsRate(const DeviceType& d, const Job& job) { return precisionPeakFlops(d, job) * d.effMax; }

double spmdComputeSeconds(double flops, const DeviceType& d, const Job& job)
{
    const double rate = spmdFlopsRate(d, job);
    return rate > 0 ? flops / rate : 0;
}

int spmdLayerOf(const ModelSpec& model, const std::string& group)
{
    for (int l = 0; l < model.layerCount(); ++l)
        if (model.layers[size_t(l)].name == group)
            return l;
    return -1;
}

double spmdSecondsPerFlop(const CostModel& costs, int layer, const std::string& device, double samples,
                          bool backward, double programFlops)
{
    if (layer < 0 || layer >= costs.model().layerCount() || !(programFlops > 0))
        return 1.0 / spmdFlopsRate(costs.device(device), costs.job());
    const double m = std::max(1.0, samples);
    const LayerTiming t = costs.layer(layer, device, 1, m);
    const double batch = double(std::max<long long>(1, costs.job().globalBatchSize));
    return (backward ? t.backward : t.forward) * (batch / m) / programFlops;
}

bool spmdKept(const SpmdInstruction& ins)
{
    return ins.kind == SpmdInstruction::Kind::Load || (ins.kind == SpmdInstruction::Kind::Compute && !ins.backward);
}

double spmdActivationScale(const ModelSpec& model, const Job& job, const std::string& group, double programBytes)
{
    const int l = spmdLayerOf(model, group);
    if (l < 0 || !(programBytes > 0))
        return 1.0;
    Job keep = job;
    keep.recompute = false;
    const double batch = double(std::max<long long>(1, job.globalBatchSize));
    return activationMemory(model, l, l + 1, 1, batch, keep) / programBytes;
}

SpmdMemoryTerms spmdMemoryTerms(const std::vector<SpmdInstruction>& program, int segments, const ModelSpec& model,
                                const Job& job, int dimensions)
{
    SpmdMemoryTerms m;
    for (SpmdShares* s : {&m.params, &m.activations, &m.reserve}) {
        s->perSegment.assign(segments, 0);
        s->perDimension.assign(dimensions, 0);
    }
    std::map<std::string, double> groupBytes; // activation bytes per group at the global batch
    for (const SpmdInstruction& ins : program)
        if (spmdKept(ins) && !(ins.kind == SpmdInstruction::Kind::Load && ins.parameter))
            groupBytes[ins.group] += ins.bytes;
    std::map<std::string, double> scale;
    std::string largest; // the group with the most activations: what the allocator reserve is sized from
    double largestBytes = 0;
    for (const auto& [group, bytes] : groupBytes) {
        scale[group] = spmdActivationScale(model, job, group, bytes);
        if (bytes * scale[group] > largestBytes) {
            largestBytes = bytes * scale[group];
            largest = group;
        }
    }
    auto add = [&](SpmdShares& s, const SpmdInstruction& ins, double bytes) {
        if (ins.sharded && ins.dimension >= 0 && ins.dimension < dimensions)
            s.perDimension[size_t(ins.dimension)] += bytes;
        else if (ins.sharded)
            s.perSegment[size_t(ins.segment)] += bytes;
        else
            s.fixed += bytes;
    };
    double paramBytes = 0;
    for (const SpmdInstruction& ins : program) {
        if (!spmdKept(ins) || ins.segment < 0 || ins.segment >= segments)
            continue;
        const bool param = ins.kind == SpmdInstruction::Kind::Load && ins.parameter;
        if (param) {
            add(m.params, ins, ins.bytes);
            paramBytes += ins.bytes;
            continue;
        }
        add(m.activations, ins, ins.bytes * scale[ins.group]);
        if (ins.group == largest)
            add(m.reserve, ins, ins.bytes * scale[ins.group]);
    }
    m.gradientBufferBytes = spmdGradientBuffer(paramBytes / job.bytesPerValue(), job);
    return m;
}

double spmdGradientBuffer(double paramValues, const Job& job)
{
    Job deepspeed = job;
    deepspeed.framework = Framework::DeepSpeedPipe;
    deepspeed.zeroStage = 0;
    return gradientBufferMemory(paramValues, deepspeed);
}

double SpmdShares::at(const std::vector<double>& ratios) const
{
    double bytes = fixed;
    for (size_t k = 0; k < perSegment.size() && k < ratios.size(); ++k)
        bytes += perSegment[k] * ratios[k];
    return bytes;
}

double SpmdShares::onGpu(const SpmdPlan& plan, int g) const
{
    double bytes = fixed;
    for (size_t k = 0; k < perSegment.size() && k < plan.shardingRatios.size(); ++k)
        bytes += perSegment[k] * plan.shardingRatios[k][size_t(g)];
    for (size_t d = 0; d < perDimension.size() && d < plan.dimensions.size(); ++d)
        bytes += perDimension[d] * double(plan.dimensions[d].shards[size_t(g)]) / double(plan.dimensions[d].size);
    return bytes;
}

double SpmdMemoryTerms::paramValues(const std::vector<double>& ratios, const Job& job) const
{
    return params.at(ratios) / job.bytesPerValue();
}

double SpmdMemoryTerms::peakBytes(const std::vector<double>& ratios, const Job& job) const
{
    return params.at(ratios) * spmdStateBytesPerValueByte(job) + activations.at(ratios) + reserve.at(ratios) +
           spmdGradientBuffer(paramValues(ratios, job), job);
}

double SpmdMemoryTerms::paramValuesOnGpu(const SpmdPlan& plan, int g, const Job& job) const
{
    return params.onGpu(plan, g) / job.bytesPerValue();
}

double SpmdMemoryTerms::peakBytesOnGpu(const SpmdPlan& plan, int g, const Job& job) const
{
    return params.onGpu(plan, g) * spmdStateBytesPerValueByte(job) + activations.onGpu(plan, g) +
           reserve.onGpu(plan, g) + spmdGradientBuffer(paramValuesOnGpu(plan, g, job), job);
}

double spmdStateBytesPerValueByte(const Job& job)
{
    const StateBytesPerParam per = stateBytesPerParam(job);
    return (per.weights + per.gradients + per.optimizer) / job.bytesPerValue();
}

} // namespace hetplan
