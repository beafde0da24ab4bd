#include "spmd_costs.h"

#include "analytic.h"
#include "memory.h"

#include "core/model/device.h"

#include <array>
#include <functional>

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

double spmdFlopsRate(const DeviceType& d, Precision precision) { return precisionPeakFlops(d, precision) * d.effMax; }

double spmdComputeSeconds(double flops, const DeviceType& d, Precision precision)
{
    const double rate = spmdFlopsRate(d, precision);
    return rate > 0 ? flops / rate : 0;
}

SpmdMemoryTerms spmdMemoryTerms(const std::vector<SpmdInstruction>& program, int segments)
{
    SpmdMemoryTerms m;
    m.paramBytes.assign(segments, 0);
    m.activationBytes.assign(segments, 0);
    for (const SpmdInstruction& ins : program) {
        const bool kept =
            ins.kind == SpmdInstruction::Kind::Load || (ins.kind == SpmdInstruction::Kind::Compute && !ins.backward);
        if (!kept || ins.segment < 0 || ins.segment >= segments)
            continue;
        const bool param = ins.kind == SpmdInstruction::Kind::Load && ins.parameter;
        if (ins.sharded)
            (param ? m.paramBytes : m.activationBytes)[ins.segment] += ins.bytes;
        else
            (param ? m.fixedParamBytes : m.fixedActivationBytes) += ins.bytes;
    }
    return m;
}

double SpmdMemoryTerms::paramValues(const std::vector<double>& ratios, const Job& job) const
{
    double bytes = fixedParamBytes;
    for (size_t k = 0; k < paramBytes.size() && k < ratios.size(); ++k)
        bytes += paramBytes[k] * ratios[k];
    return bytes / job.bytesPerValue();
}

double SpmdMemoryTerms::peakBytes(const std::vector<double>& ratios, const Job& job) const
{
    double act = fixedActivationBytes;
    for (size_t k = 0; k < activationBytes.size() && k < ratios.size(); ++k)
        act += activationBytes[k] * ratios[k];
    return paramValues(ratios, job) * job.bytesPerValue() * spmdStateBytesPerValueByte(job) + act;
}

double spmdStateBytesPerValueByte(const Job& job)
{
    const StateBytesPerParam per = stateBytesPerParam(job);
    return (per.weights + per.gradients + per.optimizer) / job.bytesPerValue();
}

} // namespace hetplan
