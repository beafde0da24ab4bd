#include "context_expert.h"

#include "core/model/cluster.h"

#include <algorithm>
#include <limits>
#include <map>

namespace hetplan {

RingAttentionSeconds ringAttentionExposed(double chunkBytes, int cp, LinkParams link, double attentionForward,
                                          double attentionBackward)
{
    RingAttentionSeconds out;
    if (cp <= 1 || chunkBytes <= 0)
        return out;
    const double steps = cp - 1;
    out.forward = steps * std::max(0.0, pointToPoint(chunkBytes, link) - attentionForward / cp);
    out.backward = steps * std::max(0.0, pointToPoint(2 * chunkBytes, link) - attentionBackward / cp);
    return out;
}

double expertAllToAllSeconds(double bytesPerRank, int ep, LinkParams link)
{
    return 2 * allToAll(bytesPerRank / 2, ep, link);
}

LinkParams allToAllLink(const Cluster& cluster, const std::vector<std::vector<int>>& groups)
{
    std::vector<Flow> flows;
    size_t n = 0;
    for (const std::vector<int>& g : groups) {
        n = std::max(n, g.size());
        for (int a : g)
            for (int b : g)
                if (a != b)
                    flows.push_back({a, b});
    }
    if (flows.empty())
        return {std::numeric_limits<double>::infinity(), 0};
    const std::vector<double> bw = sharedBandwidths(cluster, flows);
    // sharedBandwidths() shares NICs only; inside a node a GPU's own link (NVLink port, PCIe lane) carries all
    // its flows to local peers at once.
    std::map<int, int> localFlows;
    for (const Flow& f : flows)
        localFlows[f.src] += cluster.sameNode(f.src, f.dst);
    LinkParams l{std::numeric_limits<double>::infinity(), 0};
    for (size_t i = 0; i < flows.size(); ++i) {
        const bool local = cluster.sameNode(flows[i].src, flows[i].dst);
        l.bandwidth = std::min(l.bandwidth, local ? bw[i] / localFlows[flows[i].src] : bw[i]);
        l.latency = std::max(l.latency, cluster.latency(flows[i].src, flows[i].dst));
    }
    l.bandwidth *= double(n - 1);
    return l;
}

} // namespace hetplan
