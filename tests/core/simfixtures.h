#pragma once
// Hand-built inputs for the simulator and exporter tests: a private device catalog with two test GPUs,
// clusters with chosen links, toy models and measured profiles with exact per-layer times.
#include "core/base/errors.h"
#include "core/cost/costmodel.h"
#include "core/model/plan.h"

#include <string>
#include <utility>
#include <vector>

namespace hetplan::simtest {

inline DeviceType testDevice(const std::string& name, double memoryBandwidth, double memoryBytes)
{
    DeviceType d;
    d.name = name;
    d.vendor = "test";
    d.peakFlops = 1e14;
    d.memoryBytes = memoryBytes;
    d.memoryBandwidth = memoryBandwidth;
    d.intraNodeBandwidth = 1e11;
    return d;
}

// TestA: 1.2e12 B/s memory bandwidth, 80 GB; TestB: half of both.
inline const DeviceCatalog& testCatalog()
{
    static const DeviceCatalog c({testDevice("TestA", 1.2e12, 80e9), testDevice("TestB", 0.6e12, 40e9)});
    return c;
}

// Nodes n0, n1, ... of the given (device type, GPU count); one intra bandwidth and one NIC bandwidth.
inline Cluster testCluster(const std::vector<std::pair<std::string, int>>& nodes, double intraBandwidth,
                           double nicBandwidth, double intraLatency = 0, double interLatency = 0)
{
    Cluster c;
    c.name = "test";
    c.intraLatency = intraLatency;
    c.interLatency = interLatency;
    for (size_t i = 0; i < nodes.size(); ++i) {
        Node n;
        n.name = "n" + std::to_string(i);
        n.deviceType = nodes[i].first;
        n.gpus = nodes[i].second;
        n.intraBandwidth = intraBandwidth;
        n.nicBandwidth = nicBandwidth;
        c.nodes.push_back(n);
    }
    return c;
}

inline ModelSpec testModel(int layers, double paramsPerLayer = 0, double outputBytes = 0,
                           double activationPerSample = 0)
{
    ModelSpec m;
    m.name = "toy";
    m.arch.family = "custom";
    m.arch.layers = layers;
    for (int i = 0; i < layers; ++i) {
        LayerSpec l;
        l.name = "l" + std::to_string(i);
        l.kind = LayerKind::Transformer;
        l.params = paramsPerLayer;
        l.forwardFlops = 1e9;
        l.outputBytes = outputBytes;
        l.activationBytesSharded = activationPerSample;
        m.layers.push_back(l);
    }
    return m;
}

// A measured table: layer i takes forward[i] / backward[i] seconds at (device, tp, microBatch).
inline void setTimes(Profile& p, const std::string& device, int tp, int microBatch, const std::vector<double>& forward,
                     const std::vector<double>& backward)
{
    std::vector<LayerTiming> t(forward.size());
    for (size_t i = 0; i < forward.size(); ++i) {
        t[i].forward = forward[i];
        t[i].backward = backward[i];
    }
    p.set(ProfileKey{device, tp, microBatch}, t);
}

// One pipeline: stage s has layers [bounds[s], bounds[s+1]) and GPUs gpus[s] (replicas × dp × tp of them).
inline Pipeline makePipeline(const std::vector<int>& bounds, const std::vector<std::vector<int>>& gpus, int replicas,
                             int microBatchSize, int microBatches, int tp = 1, int dp = 1)
{
    Pipeline pl;
    pl.replicas = replicas;
    pl.microBatchSize = microBatchSize;
    pl.microBatches = microBatches;
    for (size_t s = 0; s + 1 < bounds.size(); ++s) {
        Stage st;
        st.firstLayer = bounds[s];
        st.endLayer = bounds[s + 1];
        st.gpus = gpus[s];
        st.tensorParallel = tp;
        st.dataParallel = dp;
        pl.stages.push_back(st);
    }
    return pl;
}

inline Plan makePlan(const Cluster& c, const ModelSpec& m, const Job& j, const Profile& p)
{
    Plan plan;
    plan.planner = "test";
    plan.cluster = c;
    plan.model = m;
    plan.job = j;
    plan.profile = p;
    return plan;
}

// Why Plan::validate refuses `plan` (the InputError's text), or "" when it accepts it.
inline std::string refusal(const Plan& plan)
{
    try {
        plan.validate("plan");
    } catch (const InputError& e) {
        return e.what();
    }
    return {};
}

} // namespace hetplan::simtest
