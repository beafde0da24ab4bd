#pragma once
// Collective and point-to-point communication times (alpha-beta model). Ring algorithms run at the
// bottleneck bandwidth of the group and pay one latency per step.
#include <utility>
#include <vector>

namespace hetplan {

class Cluster;

struct LinkParams {
    double bandwidth = 0; // bytes/s (bottleneck of the group)
    double latency = 0;   // seconds per message step
};

// Bottleneck link of a group of GPUs (dense indices) for a ring over them in the given order:
// lowest bandwidth and highest latency among consecutive pairs (and the wrap-around). Hops inside a PCIe
// node take ringHopBandwidths().
LinkParams groupLink(const Cluster& cluster, const std::vector<int>& gpus);

// Bandwidth of each hop i → i+1 (and the wrap-around) of a ring over `gpus`, all of them running at once.
// Between nodes: the pair's link. Inside an NVLink node: the node's intra-node bandwidth. Inside a PCIe node
// (Cluster::pcieNode): a hop between two GPUs of one switch with P2P on runs at the GPU's link; any other
// hop is staged through host memory, so it uses the sender's switch uplink upwards and the receiver's
// downwards, and each uplink direction is split among the staged hops of the ring that use it (an uplink
// is one x16 link of the node's PCIe generation, the node's intra-node bandwidth).
std::vector<double> ringHopBandwidths(const Cluster& cluster, const std::vector<int>& gpus);
// The PCIe rule above for hops (sender, receiver local GPU index) that all run at once inside one PCIe node
// whose GPUs have `link` bytes/s each, `gpusPerSwitch` GPUs per switch (local index / gpusPerSwitch is the
// switch) and P2P on or off.
std::vector<double> pcieHopBandwidths(const std::vector<std::pair<int, int>>& hops, double link, int gpusPerSwitch,
                                      bool p2p);

// One point-to-point transfer between two GPUs (dense indices) that runs at the same time as others.
struct Flow {
    int src = 0, dst = 0;
};

// The bandwidth each of `flows` gets when they all run at once. A node's NIC is shared: flows leaving a
// node split its NIC bandwidth (and flows entering one split the receiver's, full duplex); flows over an
// explicit link between two nodes split that link per direction. Flows inside a node keep the pair's
// bandwidth (NVLink / PCIe paths are not shared).
std::vector<double> sharedBandwidths(const Cluster& cluster, const std::vector<Flow>& flows);

// Bottleneck of several rings over the same ranks running at once, e.g. the data-parallel rings of each
// tensor-parallel rank (rings[k] = the GPUs of ring k in ring order): every hop of every ring is a flow
// sharing NICs as in sharedBandwidths(); lowest bandwidth and highest latency over all hops.
LinkParams concurrentRingsLink(const Cluster& cluster, const std::vector<std::vector<int>>& rings);

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
