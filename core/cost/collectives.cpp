#include "collectives.h"

#include "core/model/cluster.h"

#include <algorithm>
#include <limits>
#include <map>

namespace hetplan {

LinkParams groupLink(const Cluster& cluster, const std::vector<int>& gpus)
{
    if (gpus.size() < 2)
        return {std::numeric_limits<double>::infinity(), 0};
    LinkParams l{std::numeric_limits<double>::infinity(), 0};
    const std::vector<int> node = cluster.nodesOf(gpus);
    for (size_t i = 0; i < gpus.size(); ++i) {
        const int a = node[i], b = node[(i + 1) % gpus.size()];
        l.bandwidth = std::min(l.bandwidth, cluster.nodeBandwidth(a, b));
        l.latency = std::max(l.latency, cluster.nodeLatency(a, b));
    }
    return l;
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
