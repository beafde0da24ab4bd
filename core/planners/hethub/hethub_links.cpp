#include "hethub_links.h"

#include "core/model/cluster.h"

#include <algorithm>
#include <limits>

namespace hetplan::hethub {

ChunkLinks::ChunkLinks(const Cluster& cluster, const std::vector<TypeGroup>& groups, const SpaceConfig& config)
    : cluster_(cluster), groups_(groups), config_(config)
{
    offset_.push_back(0);
    for (size_t i = 0; i < groups.size() && i < config.stagesPerType.size(); ++i)
        offset_.push_back(offset_.back() + config.stagesPerType[i]);
    const size_t n = size_t(offset_.back());
    for (size_t a = 0; a < n; ++a) {
        const std::vector<int> g = gpusOf(int(a));
        std::vector<std::vector<int>> rings(size_t(config.tp));
        for (int j = 0; j < config.dp; ++j)
            for (int t = 0; t < config.tp; ++t)
                rings[size_t(t)].push_back(g[size_t(j) * config.tp + t]);
        data_.push_back(concurrentRingsLink(cluster, rings));
    }
}

std::vector<int> ChunkLinks::gpusOf(int a) const
{
    int type = 0;
    while (offset_[size_t(type) + 1] <= a)
        ++type;
    return stageChunk(groups_[size_t(type)], config_, a - offset_[size_t(type)]);
}

std::vector<std::vector<int>> ChunkLinks::pairs(int a, int b) const
{
    const std::vector<int> ga = gpusOf(a), gb = gpusOf(b);
    std::vector<std::vector<int>> out;
    for (size_t i = 0; i < ga.size(); ++i)
        out.push_back({ga[i], gb[i]});
    return out;
}

const LinkParams& ChunkLinks::boundary(int a, int b) const
{
    const auto [it, added] = boundary_.try_emplace((long long)a * (long long)data_.size() + b);
    LinkParams& l = it->second;
    if (!added)
        return l;
    std::vector<Flow> flows;
    for (const std::vector<int>& p : pairs(a, b))
        flows.push_back({p[0], p[1]});
    const std::vector<double> bw = sharedBandwidths(cluster_, flows);
    l = {std::numeric_limits<double>::infinity(), 0};
    for (size_t i = 0; i < flows.size(); ++i) {
        l.bandwidth = std::min(l.bandwidth, bw[i]);
        l.latency = std::max(l.latency, cluster_.latency(flows[i].src, flows[i].dst));
    }
    return l;
}

const LinkParams& ChunkLinks::tied(int a, int b) const
{
    const auto [it, added] = tied_.try_emplace((long long)a * (long long)data_.size() + b);
    if (added)
        it->second = concurrentRingsLink(cluster_, pairs(a, b));
    return it->second;
}

} // namespace hetplan::hethub
