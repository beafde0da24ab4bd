#pragma once
// The GPU cluster: nodes of one device type each, optional explicit links between nodes.
// GPUs are named "<node>/<local-index>" in files and numbered densely (node order, then local index)
// inside the engine.
#include "device.h"

#include <optional>
#include <string>
#include <vector>

namespace hetplan {

// HetHub's unified communicator (sec. 3.1) decides per GPU pair which path a transfer takes:
// - GpuRdma, the GPU path: the vendor's collective library, RDMA over IB/RoCE through the node's NIC
//   between nodes; used between GPUs of one vendor;
// - CpuEthernet, the CPU path: device → host copy, Ethernet or IPoIB, host → device; used between vendors
//   (their libraries cannot talk to each other), capped at the cluster's CPU-path bandwidths.
// On a Node the field says what the node supports: gpu-rdma (the default) = the GPU path to same-vendor
// peers; cpu-ethernet = no GPU path at all, so every transfer, even inside the node, takes the CPU path.
enum class Communicator { GpuRdma, CpuEthernet };

// How the GPUs of a node whose intra-node link is PCIe hang off the host (docs/architecture.md, "PCIe
// servers"). A ring hop between two GPUs under one switch goes peer-to-peer when P2P is on; every other hop
// is staged through host memory (NCCL's shared-memory transport: P2P off, or a path through the CPU, where
// NCCL on x86 Intel hosts does not use P2P), so it crosses both switches' uplinks, and a switch uplink is
// shared by every staged hop that leaves (or enters) a GPU under it. NVLink nodes ignore it.
struct PcieTopology {
    int gpusPerSwitch = 0;     // GPUs sharing one PCIe switch uplink; 0 = kDefaultGpusPerPcieSwitch
    int p2p = -1;              // peer-to-peer under one switch: 1 on, 0 off, -1 = the device's catalog pcie_p2p
    bool isDefault() const { return gpusPerSwitch == 0 && p2p < 0; }
    bool operator==(const PcieTopology&) const = default;
};
// A typical 8-GPU PCIe server: two PCIe switches of 4 GPUs, one per CPU socket.
constexpr int kDefaultGpusPerPcieSwitch = 4;

struct Node {
    std::string name;
    std::string deviceType; // catalog name
    int gpus = 1;
    double intraBandwidth = 0; // bytes/s between two GPUs of this node; 0 = device type's default
    double nicBandwidth = 0;   // bytes/s out of the node
    Communicator communicator = Communicator::GpuRdma;
    double x = 0, y = 0; // canvas position (GUI only; kept in files so layouts survive)
    // Per-GPU context (CUDA context + library workspaces) in bytes when this node's software stack differs
    // from the catalog's figure for its device type; < 0 = the catalog's figure. It replaces that fixed
    // part only: NCCL buffers, gradient buffers and allocator reserve are modelled per plan and added on top.
    // Last, so aggregate initialisers that stop at the canvas position keep their meaning.
    double runtimeOverhead = -1;
    // Marked failed (the GUI's "Mark failed", `"failed": true` in the cluster file): the node stays in the
    // cluster as a state, but planning leaves it out exactly as `--without` does (see withoutFailedNodes).
    bool failed = false;
    // US dollars per GPU-hour when this node's price differs from the catalog's on-demand list price (a
    // reserved/spot price, an own cluster's cost); < 0 = the catalog's price.
    double pricePerGpuHour = -1;
    // PCIe layout (used when the node's link is PCIe); the defaults come from the catalog.
    PcieTopology pcie{};
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
    // CPU-path bandwidths (bytes/s). Defaults: what HetHub measured for its CPU communicator over
    // Ethernet (sec. 4.2.1), 4.7 GB/s inside a node and 2.1 GB/s between nodes.
    double cpuIntraBandwidth = 4.7e9;
    double cpuInterBandwidth = 2.1e9;

    bool operator==(const Cluster&) const = default;

    int gpuCount() const;
    // dense index → node/local. Walks the nodes (O(nodes)): code that visits every GPU uses gpuRefs().
    GpuRef gpu(int index) const;
    // gpu(i) for every GPU, in index order, in one pass.
    std::vector<GpuRef> gpuRefs() const;
    // The node index of every GPU (gpuNodes()[g] == gpu(g).node), in one pass.
    std::vector<int> gpuNodes() const;
    // The node index of each of `gpus`, in O(nodes + gpus · log nodes) rather than O(nodes) per GPU.
    std::vector<int> nodesOf(const std::vector<int>& gpus) const;
    int gpuIndex(int node, int local) const;
    std::string gpuName(int index) const; // "node/local"
    std::optional<int> findGpu(const std::string& name) const;
    std::optional<int> findNode(const std::string& name) const;
    const Node& nodeOf(int gpuIndex) const { return nodes[gpu(gpuIndex).node]; }
    // First dense index of each node (size nodes.size()+1, last = gpuCount()).
    std::vector<int> nodeOffsets() const;

    // The unified communicator's choice for a GPU pair: the CPU path between vendors or when either node
    // has no GPU path, the GPU path otherwise.
    Communicator path(int a, int b) const;
    // The same for two nodes (between their GPUs; a == b: inside the node).
    Communicator nodePath(int nodeA, int nodeB) const;
    // Point-to-point bandwidth (bytes/s) and latency (s) between two GPUs over the path above: the node's
    // intra-node link or the link / NICs between nodes, capped by the CPU-path bandwidth on the CPU path.
    double bandwidth(int a, int b) const;
    double latency(int a, int b) const;
    // The same between a GPU of node `nodeA` and one of node `nodeB` (the same node: inside it).
    double nodeBandwidth(int nodeA, int nodeB) const;
    double nodeLatency(int nodeA, int nodeB) const;
    bool sameNode(int a, int b) const { return gpu(a).node == gpu(b).node; }
    const Link* linkBetween(int nodeA, int nodeB) const;
    // Intra-node bandwidth of a node, resolving 0 to the device type's default.
    double intraBandwidthOf(const Node& n) const;
    // Whether a node's GPUs talk over PCIe (its device's intra-node link is PCIe), so PcieTopology applies.
    bool pcieNode(const Node& n) const;
    // The node's PCIe topology with the defaults resolved (GPUs per switch, P2P).
    PcieTopology pcieTopologyOf(const Node& n) const;

    // Checks names, counts, bandwidths and device types; throws InputError(file, field, reason).
    // `allowEmpty`: a draft cluster without nodes (the canvas and project files allow it; planning does not).
    void validate(const DeviceCatalog& catalog, const std::string& file, bool allowEmpty = false) const;
};

// The cluster minus the named nodes (failed ones) and the links that touch them. Throws
// InputError(file, "node", reason) for a name the cluster does not have.
Cluster withoutNodes(const Cluster& cluster, const std::vector<std::string>& names, const std::string& file);

// The names of the nodes marked failed, in node order.
std::vector<std::string> failedNodeNames(const Cluster& cluster);
// What planning sees: the cluster minus its failed nodes and their links (withoutNodes of the failed names).
Cluster withoutFailedNodes(const Cluster& cluster);

} // namespace hetplan
