#pragma once
// Collective and point-to-point communication times (alpha-beta model). Ring algorithms run at the
// bottleneck bandwidth of the group and pay one latency per step.
#include <vector>

namespace hetplan {

class Cluster;

struct LinkParams {
    double bandwidth = 0; // bytes/s (bottleneck of the group)
    double latency = 0;   // seconds per message step
};

// Bottleneck link of a group of GPUs (dense indices) for a ring over them in the given order:
// lowest bandwidth and highest latency among consecutive pairs (and the wrap-around).
LinkParams groupLink(const Cluster& cluster, const std::vector<int>& gpus);

// `bytes` is the full buffer each rank holds (all-reduce, reduce-scatter input, all-gather output).
double ringAllReduce(double bytes, int ranks, LinkParams link);
double ringAllGather(double bytes, int ranks, LinkParams link);
double ringReduceScatter(double bytes, int ranks, LinkParams link);
// `bytes` each rank sends in total (split evenly across the other ranks).
double allToAll(double bytes, int ranks, LinkParams link);
double pointToPoint(double bytes, LinkParams link);
// Broadcast of `bytes` from one rank (pipelined ring/tree: ~ bytes/bw + (n-1) latency).
double broadcast(double bytes, int ranks, LinkParams link);

} // namespace hetplan
