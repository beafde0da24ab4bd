#include "collectives.h"

#include "core/model/cluster.h"

#include <algorithm>
#include <limits>

namespace hetplan {

LinkParams groupLink(const Cluster& cluster, const std::vector<int>& gpus)
{
    if (gpus.size() < 2)
        return {std::numeric_limits<double>::infinity(), 0};
    LinkParams l{std::numeric_limits<double>::infinity(), 0};
    for (size_t i = 0; i < gpus.size(); ++i) {
        int a = gpus[i], b = gpus[(i + 1) % gpus.size()];
        l.bandwidth = std::min(l.bandwidth, cluster.bandwidth(a, b));
        l.latency = std::max(l.latency, cluster.latency(a, b));
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
