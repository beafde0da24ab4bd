#include "folding.h"

#include "core/cost/collectives.h"

#include <algorithm>
#include <cmath>

namespace hetplan {

Folding foldPlain(const StageCosts& costs, const std::vector<TypeGroup>& groups)
{
    Folding f;
    f.mode = "plain";
    for (int i = 0; i < costs.typeCount(); ++i) {
        f.modelSeconds.push_back(costs.modelTime(i));
        if (f.modelSeconds[i] > f.modelSeconds[f.weakest])
            f.weakest = i;
    }
    for (int i = 0; i < costs.typeCount(); ++i) {
        f.d.push_back(std::max(1, int(std::lround(f.modelSeconds[f.weakest] / f.modelSeconds[i]))));
        f.virtualGpus += groups[i].gpus * f.d[i];
    }
    f.gpusPerNode = groups[f.weakest].maxNodeGpus;
    return f;
}

double FoldingComm::p(int d) const
{
    const int M = gpusPerNode;
    const int whole = d / M, left = d - whole * M;
    const double gpus = whole * M + left;
    const double cAcross = whole * across;
    const double cIn = layers * left / gpus * inNode[left] + layers * whole * M / gpus * inNode[M];
    return weakSeconds / d + cAcross + cIn;
}

FoldingComm foldingComm(const StageCosts& costs, const std::vector<TypeGroup>& groups, const Cluster& cluster,
                        const ModelSpec& model, const Job& job, int weakest)
{
    FoldingComm c;
    c.layers = model.layerCount();
    c.gpusPerNode = groups[weakest].maxNodeGpus;
    c.weakSeconds = costs.modelTime(weakest);
    const Node& node = cluster.nodes[groups[weakest].nodes.front()];
    const LinkParams intra{cluster.intraBandwidthOf(node), cluster.intraLatency};
    const LinkParams nic{node.nicBandwidth, cluster.interLatency};
    c.inNode.assign(c.gpusPerNode + 1, 0.0);
    for (const LayerSpec& l : model.layers) {
        const double bytes = l.params * job.bytesPerValue();
        for (int d = 2; d <= c.gpusPerNode; ++d)
            c.inNode[d] += intra.bandwidth > 0 ? ringAllReduce(bytes, d, intra) / c.layers : 0.0;
        if (nic.bandwidth > 0)
            c.across += ringAllReduce(bytes, 2, nic) / c.layers;
    }
    return c;
}

Folding foldWithComm(const StageCosts& costs, const std::vector<TypeGroup>& groups, const Cluster& cluster,
                     const ModelSpec& model, const Job& job)
{
    Folding f = foldPlain(costs, groups);
    f.mode = "comm";
    const FoldingComm comm = foldingComm(costs, groups, cluster, model, job, f.weakest);
    f.virtualGpus = 0;
    for (int i = 0; i < costs.typeCount(); ++i) {
        int best = 1;
        for (int d = 1; d <= f.d[i]; ++d)
            if (std::abs(comm.p(d) - f.modelSeconds[i]) < std::abs(comm.p(best) - f.modelSeconds[i]))
                best = d;
        f.d[i] = best;
        f.virtualGpus += groups[i].gpus * f.d[i];
    }
    return f;
}

} // namespace hetplan
