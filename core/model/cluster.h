#pragma once
// The GPU cluster: nodes of one device type each, optional explicit links between nodes.
// GPUs are named "<node>/<local-index>" in files and numbered densely (node order, then local index)
// inside the engine.
#include "device.h"

#include <optional>
#include <string>
#include <vector>

namespace hetplan {

// How GPUs of different nodes talk: GPU-direct RDMA (NCCL over IB/RoCE) or through host memory over
// Ethernet (HetHub's "CPU communicator", used between vendors whose collective libraries cannot talk).
enum class Communicator { GpuRdma, CpuEthernet };

struct Node {
    std::string name;
    std::string deviceType; // catalog name
    int gpus = 1;
    double intraBandwidth = 0; // bytes/s between two GPUs of this node; 0 = device type's default
    double nicBandwidth = 0;   // bytes/s out of the node
    Communicator communicator = Communicator::GpuRdma;
    double x = 0, y = 0; // canvas position (GUI only; kept in files so layouts survive)
    // Per-GPU runtime overhead (CUDA context, NCCL buffers, fragmentation) in bytes when this node's
    // software stack differs from the catalog's figure for its device type; < 0 = the catalog's figure.
    // Last, so aggregate initialisers that stop at the canvas position keep their meaning.
    double runtimeOverhead = -1;
    bool operator==(const Node&) const = default;
};

struct Link {
    std::string a, b;     // node names
    double bandwidth = 0; // bytes/s
    double latency = 0;   // seconds
    bool operator==(const Link&) const = default;
};

struct GpuRef {
    int node = 0;  // index into nodes
    int local = 0; // local index inside the node
};

class Cluster {
public:
    std::string name;
    std::string description;
    std::vector<Node> nodes;
    std::vector<Link> links;
    double intraLatency = 5e-6;  // seconds per message inside a node
    double interLatency = 20e-6; // seconds per message between nodes (unless a link says otherwise)
    // Extra per-byte cost factor for the CPU communicator path (device→host copies on both ends).
    double cpuPathPenalty = 1.0;

    bool operator==(const Cluster&) const = default;

    int gpuCount() const;
    GpuRef gpu(int index) const; // dense index → node/local
    int gpuIndex(int node, int local) const;
    std::string gpuName(int index) const; // "node/local"
    std::optional<int> findGpu(const std::string& name) const;
    std::optional<int> findNode(const std::string& name) const;
    const Node& nodeOf(int gpuIndex) const { return nodes[gpu(gpuIndex).node]; }
    // First dense index of each node (size nodes.size()+1, last = gpuCount()).
    std::vector<int> nodeOffsets() const;

    // Point-to-point bandwidth (bytes/s) and latency (s) between two GPUs.
    double bandwidth(int a, int b) const;
    double latency(int a, int b) const;
    bool sameNode(int a, int b) const { return gpu(a).node == gpu(b).node; }
    const Link* linkBetween(int nodeA, int nodeB) const;
    // Intra-node bandwidth of a node, resolving 0 to the device type's default.
    double intraBandwidthOf(const Node& n) const;

    // Checks names, counts, bandwidths and device types; throws InputError(file, field, reason).
    // `allowEmpty`: a draft cluster without nodes (the canvas and project files allow it; planning does not).
    void validate(const DeviceCatalog& catalog, const std::string& file, bool allowEmpty = false) const;
};

// The cluster minus the named nodes (failed ones) and the links that touch them. Throws
// InputError(file, "node", reason) for a name the cluster does not have.
Cluster withoutNodes(const Cluster& cluster, const std::vector<std::string>& names, const std::string& file);

} // namespace hetplan
