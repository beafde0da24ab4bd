#include "cluster.h"

#include "core/base/errors.h"
#include "core/base/names.h"
#include "core/base/physical_ranges.h"
#include "core/base/quote.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace hetplan {

int Cluster::gpuCount() const
{
    int n = 0;
    for (const Node& node : nodes)
        n += node.gpus;
    return n;
}

std::vector<int> Cluster::nodeOffsets() const
{
    std::vector<int> off(nodes.size() + 1, 0);
    for (size_t i = 0; i < nodes.size(); ++i)
        off[i + 1] = off[i] + nodes[i].gpus;
    return off;
}

GpuRef Cluster::gpu(int index) const
{
    int rest = index;
    for (size_t n = 0; n < nodes.size(); ++n) {
        if (rest < nodes[n].gpus)
            return {int(n), rest};
        rest -= nodes[n].gpus;
    }
    throw std::out_of_range("GPU index " + std::to_string(index) + " out of range");
}

std::vector<GpuRef> Cluster::gpuRefs() const
{
    std::vector<GpuRef> refs;
    for (size_t n = 0; n < nodes.size(); ++n)
        for (int l = 0; l < nodes[n].gpus; ++l)
            refs.push_back({int(n), l});
    return refs;
}

std::vector<int> Cluster::gpuNodes() const
{
    std::vector<int> out;
    for (size_t n = 0; n < nodes.size(); ++n)
        out.insert(out.end(), size_t(std::max(0, nodes[n].gpus)), int(n));
    return out;
}

std::vector<int> Cluster::nodesOf(const std::vector<int>& gpus) const
{
    const std::vector<int> off = nodeOffsets();
    std::vector<int> out;
    out.reserve(gpus.size());
    for (int g : gpus) {
        if (g < 0 || g >= off.back())
            throw std::out_of_range("GPU index " + std::to_string(g) + " out of range");
        // The last node whose first GPU is at or before g (nodes without GPUs are skipped by upper_bound).
        out.push_back(int(std::upper_bound(off.begin(), off.end(), g) - off.begin()) - 1);
    }
    return out;
}

int Cluster::gpuIndex(int node, int local) const
{
    int idx = 0;
    for (int n = 0; n < node; ++n)
        idx += nodes[n].gpus;
    return idx + local;
}

std::string Cluster::gpuName(int index) const
{
    GpuRef r = gpu(index);
    return nodes[r.node].name + "/" + std::to_string(r.local);
}

std::optional<int> Cluster::findNode(const std::string& name) const
{
    for (size_t i = 0; i < nodes.size(); ++i)
        if (nodes[i].name == name)
            return int(i);
    return std::nullopt;
}

std::optional<int> Cluster::findGpu(const std::string& name) const
{
    auto slash = name.rfind('/');
    if (slash == std::string::npos)
        return std::nullopt;
    auto node = findNode(name.substr(0, slash));
    if (!node)
        return std::nullopt;
    const std::string idx = name.substr(slash + 1);
    if (idx.empty() || !std::all_of(idx.begin(), idx.end(), ::isdigit) || idx.size() > 6)
        return std::nullopt;
    int local = std::stoi(idx);
    if (local >= nodes[*node].gpus)
        return std::nullopt;
    return gpuIndex(*node, local);
}

const Link* Cluster::linkBetween(int nodeA, int nodeB) const
{
    const std::string& a = nodes[nodeA].name;
    const std::string& b = nodes[nodeB].name;
    for (const Link& l : links)
        if ((l.a == a && l.b == b) || (l.a == b && l.b == a))
            return &l;
    return nullptr;
}

double Cluster::intraBandwidthOf(const Node& n) const
{
    if (n.intraBandwidth > 0)
        return n.intraBandwidth;
    if (const DeviceType* d = DeviceCatalog::builtin().find(n.deviceType); d && d->intraNodeBandwidth > 0)
        return d->intraNodeBandwidth;
    return 16e9; // PCIe 3.0 x16, the lowest common denominator
}

bool Cluster::pcieNode(const Node& n) const
{
    const DeviceType* d = DeviceCatalog::builtin().find(n.deviceType);
    return d && d->intraNodeLink.rfind("PCIe", 0) == 0;
}

PcieTopology Cluster::pcieTopologyOf(const Node& n) const
{
    PcieTopology t = n.pcie;
    if (t.gpusPerSwitch <= 0)
        t.gpusPerSwitch = kDefaultGpusPerPcieSwitch;
    if (t.p2p < 0) {
        const DeviceType* d = DeviceCatalog::builtin().find(n.deviceType);
        t.p2p = !d || d->pcieP2p ? 1 : 0;
    }
    return t;
}

Communicator Cluster::nodePath(int nodeA, int nodeB) const
{
    const Node& na = nodes[nodeA];
    const Node& nb = nodes[nodeB];
    if (na.communicator == Communicator::CpuEthernet || nb.communicator == Communicator::CpuEthernet)
        return Communicator::CpuEthernet;
    if (na.deviceType == nb.deviceType)
        return Communicator::GpuRdma;
    const DeviceType* da = DeviceCatalog::builtin().find(na.deviceType);
    const DeviceType* db = DeviceCatalog::builtin().find(nb.deviceType);
    const bool sameVendor = da && db && da->vendor == db->vendor;
    return sameVendor ? Communicator::GpuRdma : Communicator::CpuEthernet;
}

Communicator Cluster::path(int a, int b) const { return nodePath(gpu(a).node, gpu(b).node); }

double Cluster::bandwidth(int a, int b) const { return nodeBandwidth(gpu(a).node, gpu(b).node); }

double Cluster::latency(int a, int b) const { return nodeLatency(gpu(a).node, gpu(b).node); }

double Cluster::nodeBandwidth(int nodeA, int nodeB) const
{
    const bool cpu = nodePath(nodeA, nodeB) == Communicator::CpuEthernet;
    if (nodeA == nodeB) {
        const double bw = intraBandwidthOf(nodes[nodeA]);
        return cpu ? std::min(bw, cpuIntraBandwidth) : bw;
    }
    const Link* l = linkBetween(nodeA, nodeB);
    const double bw = l ? l->bandwidth : std::min(nodes[nodeA].nicBandwidth, nodes[nodeB].nicBandwidth);
    return cpu ? std::min(bw, cpuInterBandwidth) : bw;
}

double Cluster::nodeLatency(int nodeA, int nodeB) const
{
    if (nodeA == nodeB)
        return intraLatency;
    if (const Link* l = linkBetween(nodeA, nodeB))
        return l->latency;
    return interLatency;
}

void Cluster::validate(const DeviceCatalog& catalog, const std::string& file, bool allowEmpty) const
{
    if (name.empty())
        throw InputError(file, "name", "must not be empty");
    if (nodes.empty() && !allowEmpty)
        throw InputError(file, "nodes", "a cluster needs at least one node");
    std::set<std::string> names;
    for (size_t i = 0; i < nodes.size(); ++i) {
        const Node& n = nodes[i];
        const std::string f = "nodes[" + std::to_string(i) + "]";
        // Node names become host names in hostfiles, launch scripts and rank tables.
        if (const std::string why = plainNameProblem(n.name); !why.empty())
            throw InputError(file, f + ".name", why);
        if (!names.insert(n.name).second)
            throw InputError(file, f + ".name", "duplicate node name " + quotedInput(n.name));
        const DeviceType* device = catalog.find(n.deviceType);
        if (!device)
            throw InputError(file, f + ".device", "unknown device type " + quotedInput(n.deviceType));
        // < 0 means "the catalog's figure"; an explicit one must leave room for training.
        if (std::isnan(n.runtimeOverhead) || n.runtimeOverhead >= device->memoryBytes)
            throw InputError(file, f + ".runtime_overhead", "must be less than the device memory");
        // < 0 means "the catalog's price"; an explicit one is a real amount of money.
        if (!(n.pricePerGpuHour < 0))
            checkRange(ranges::kPricePerGpuHour, n.pricePerGpuHour, file, f + ".price_per_gpu_hour");
        if (n.gpus <= 0)
            throw InputError(file, f + ".gpus", "must be at least 1 (got " + std::to_string(n.gpus) + ")");
        if (n.gpus > 1024)
            throw InputError(file, f + ".gpus", "implausibly many GPUs in one node");
        if (n.intraBandwidth != 0) // 0: the device's usual link
            checkRange(ranges::kBandwidth, n.intraBandwidth, file, f + ".intra_bandwidth");
        checkRange(ranges::kBandwidth, n.nicBandwidth, file, f + ".nic_bandwidth");
        if (n.pcie.gpusPerSwitch < 0 || n.pcie.gpusPerSwitch > 1024)
            throw InputError(file, f + ".pcie_topology.gpus_per_switch", "must be between 1 and 1024");
        if (n.pcie.p2p > 1)
            throw InputError(file, f + ".pcie_topology.p2p", "must be true or false");
    }
    // One link per pair of nodes, in either direction: with two, which bandwidth applies would depend on
    // their order in the file.
    std::map<std::pair<std::string, std::string>, size_t> pairs;
    for (size_t i = 0; i < links.size(); ++i) {
        const Link& l = links[i];
        const std::string f = "links[" + std::to_string(i) + "]";
        if (!names.count(l.a))
            throw InputError(file, f + ".a", "unknown node " + quotedInput(l.a));
        if (!names.count(l.b))
            throw InputError(file, f + ".b", "unknown node " + quotedInput(l.b));
        if (l.a == l.b)
            throw InputError(file, f + ".b", "a link joins two different nodes");
        const auto pair = std::minmax(l.a, l.b);
        if (const auto [at, added] = pairs.emplace(std::pair(pair.first, pair.second), i); !added)
            throw InputError(file, f,
                             "duplicate link between " + quotedInput(l.a) + " and " + quotedInput(l.b) + " (links[" +
                                 std::to_string(at->second) + "] already joins them)");
        checkRange(ranges::kBandwidth, l.bandwidth, file, f + ".bandwidth");
        checkRange(ranges::kLatency, l.latency, file, f + ".latency");
    }
    checkRange(ranges::kLatency, intraLatency, file, "intra_latency");
    checkRange(ranges::kLatency, interLatency, file, "inter_latency");
    checkRange(ranges::kBandwidth, cpuIntraBandwidth, file, "cpu_intra_bandwidth");
    checkRange(ranges::kBandwidth, cpuInterBandwidth, file, "cpu_inter_bandwidth");
}

Cluster withoutNodes(const Cluster& cluster, const std::vector<std::string>& names, const std::string& file)
{
    Cluster c = cluster;
    for (const std::string& name : names) {
        if (!cluster.findNode(name))
            throw InputError(file, "node", "no node named '" + name + "' in cluster '" + cluster.name + "'");
        std::erase_if(c.nodes, [&](const Node& n) { return n.name == name; });
        std::erase_if(c.links, [&](const Link& l) { return l.a == name || l.b == name; });
    }
    return c;
}

std::vector<std::string> failedNodeNames(const Cluster& cluster)
{
    std::vector<std::string> names;
    for (const Node& n : cluster.nodes)
        if (n.failed)
            names.push_back(n.name);
    return names;
}

Cluster withoutFailedNodes(const Cluster& cluster)
{
    return withoutNodes(cluster, failedNodeNames(cluster), "cluster");
}

} // namespace hetplan
