#include "collectives.h"

#include "core/model/cluster.h"

#include <algorithm>
#include <limits>
#include <map>

namespace hetplan {

namespace {
// ringHopBandwidths() with the GPUs' nodes already known (node[i] = node of gpus[i]).
std::vector<double> hopBandwidths(const Cluster& cluster, const std::vector<int>& gpus, const std::vector<int>& node)
{
    const size_t n = gpus.size();
    std::vector<double> bw(n, 0.0);
    std::map<int, std::vector<size_t>> pcieHops; // hops inside each PCIe node
    std::map<int, bool> isPcie;
    for (size_t i = 0; i < n; ++i) {
        const int a = node[i], b = node[(i + 1) % n];
        bw[i] = cluster.nodeBandwidth(a, b);
        if (a != b || cluster.nodePath(a, a) == Communicator::CpuEthernet)
            continue;
        auto known = isPcie.find(a);
        if (known == isPcie.end())
            known = isPcie.emplace(a, cluster.pcieNode(cluster.nodes[size_t(a)])).first;
        if (known->second)
            pcieHops[a].push_back(i);
    }
    for (const auto& [a, hopIndex] : pcieHops) {
        const PcieTopology t = cluster.pcieTopologyOf(cluster.nodes[size_t(a)]);
        const int first = cluster.gpuIndex(a, 0); // local index = dense index - first
        std::vector<std::pair<int, int>> locals;
        for (size_t i : hopIndex)
            locals.push_back({gpus[i] - first, gpus[(i + 1) % n] - first});
        const std::vector<double> hopBw = pcieHopBandwidths(locals, bw[hopIndex.front()], t.gpusPerSwitch, t.p2p == 1);
        for (size_t j = 0; j < hopIndex.size(); ++j)
            bw[hopIndex[j]] = hopBw[j];
    }
    return bw;
}
} // namespace

LinkParams groupLink(const Cluster& cluster, const std::vector<int>& gpus)
{
    if (gpus.size() < 2)
        return {std::numeric_limits<double>::infinity(), 0};
    LinkParams l{std::numeric_limits<double>::infinity(), 0};
    const std::vector<int> node = cluster.nodesOf(gpus);
    for (size_t i = 0; i < gpus.size(); ++i)
        l.latency = std::max(l.latency, cluster.nodeLatency(node[i], node[(i + 1) % gpus.size()]));
    for (double bw : hopBandwidths(cluster, gpus, node))
        l.bandwidth = std::min(l.bandwidth, bw);
    return l;
}

std::vector<double> ringHopBandwidths(const Cluster& cluster, const std::vector<int>& gpus)
{
    if (gpus.size() < 2)
        return {};
    return hopBandwidths(cluster, gpus, cluster.nodesOf(gpus));
}

std::vector<double> pcieHopBandwidths(const std::vector<std::pair<int, int>>& hops, double link, int gpusPerSwitch,
                                      bool p2p)
{
    std::vector<double> bw(hops.size(), link);
    if (gpusPerSwitch < 1)
        gpusPerSwitch = kDefaultGpusPerPcieSwitch;
    std::map<int, int> up, down; // staged hops per switch uplink and direction
    std::vector<size_t> staged;
    for (size_t i = 0; i < hops.size(); ++i) {
        const int from = hops[i].first / gpusPerSwitch, to = hops[i].second / gpusPerSwitch;
        if (p2p && from == to)
            continue; // peer-to-peer under one switch: the GPU's own link
        staged.push_back(i);
        ++up[from];
        ++down[to];
    }
    for (size_t i : staged)
        bw[i] = std::min(link / up[hops[i].first / gpusPerSwitch], link / down[hops[i].second / gpusPerSwitch]);
    return bw;
}

std::vector<double> sharedBandwidths(const Cluster& cluster, const std::vector<Flow>& flows)
{
    std::map<int, int> out, in;                // NIC flows per node and direction
    std::map<std::pair<int, int>, int> onLink; // flows per explicit link and direction
    std::vector<int> ends;
    for (const Flow& f : flows)
        ends.insert(ends.end(), {f.src, f.dst});
    const std::vector<int> node = cluster.nodesOf(ends);
    for (size_t i = 0; i < flows.size(); ++i) {
        const int a = node[2 * i], b = node[2 * i + 1];
        if (a == b)
            continue;
        if (cluster.linkBetween(a, b))
            ++onLink[{a, b}];
        else {
            ++out[a];
            ++in[b];
        }
    }
    std::vector<double> bw;
    for (size_t i = 0; i < flows.size(); ++i) {
        const int a = node[2 * i], b = node[2 * i + 1];
        const double alone = cluster.nodeBandwidth(a, b);
        if (a == b)
            bw.push_back(alone);
        else if (const Link* l = cluster.linkBetween(a, b))
            bw.push_back(l->bandwidth / onLink[{a, b}]);
        else {
            // alone = min(NIC a, NIC b) / CPU-path penalty; shared: each NIC divided by its flows.
            const double nicA = cluster.nodes[a].nicBandwidth, nicB = cluster.nodes[b].nicBandwidth;
            const double nicMin = std::min(nicA, nicB);
            const double shared = std::min(nicA / out[a], nicB / in[b]);
            bw.push_back(nicMin > 0 ? alone * shared / nicMin : alone);
        }
    }
    return bw;
}

LinkParams concurrentRingsLink(const Cluster& cluster, const std::vector<std::vector<int>>& rings)
{
    std::vector<Flow> flows;
    for (const std::vector<int>& ring : rings)
        if (ring.size() >= 2)
            for (size_t i = 0; i < ring.size(); ++i)
                flows.push_back({ring[i], ring[(i + 1) % ring.size()]});
    if (flows.empty())
        return {std::numeric_limits<double>::infinity(), 0};
    const std::vector<double> bw = sharedBandwidths(cluster, flows);
    std::vector<int> ends;
    for (const Flow& f : flows)
        ends.insert(ends.end(), {f.src, f.dst});
    const std::vector<int> node = cluster.nodesOf(ends);
    LinkParams l{std::numeric_limits<double>::infinity(), 0};
    for (size_t i = 0; i < flows.size(); ++i) {
        l.bandwidth = std::min(l.bandwidth, bw[i]);
        l.latency = std::max(l.latency, cluster.nodeLatency(node[2 * i], node[2 * i + 1]));
    }
    return l;
}

// Ring all-reduce = reduce-scatter + all-gather: each rank sends 2(n-1)/n of the buffer in 2(n-1) steps.
double ringAllReduce(double bytes, int n, LinkParams link)
{
    if (n <= 1 || bytes <= 0)
        return 0;
    return 2.0 * (n - 1) / n * bytes / link.bandwidth + 2.0 * (n - 1) * link.latency;
}

double ringAllGather(double bytes, int n, LinkParams link)
{
    if (n <= 1 || bytes <= 0)
        return 0;
    return double(n - 1) / n * bytes / link.bandwidth + (n - 1) * link.latency;
}

double ringReduceScatter(double bytes, int n, LinkParams link) { return ringAllGather(bytes, n, link); }

double allToAll(double bytes, int n, LinkParams link)
{
    if (n <= 1 || bytes <= 0)
        return 0;
    return double(n - 1) / n * bytes / link.bandwidth + (n - 1) * link.latency;
}

double pointToPoint(double bytes, LinkParams link)
{
    if (bytes <= 0)
        return 0;
    return link.latency + bytes / link.bandwidth;
}

double broadcast(double bytes, int n, LinkParams link)
{
    if (n <= 1 || bytes <= 0)
        return 0;
    return bytes / link.bandwidth + (n - 1) * link.latency;
}

} // namespace hetplan
