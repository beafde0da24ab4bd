#include "placement.h"

#include <algorithm>
#include <numeric>

namespace hetplan {

std::vector<int> Placement::stageGpus(int s) const
{
    const size_t per = size_t(degrees.dp) * degrees.tp;
    return {gpus.begin() + s * per, gpus.begin() + (s + 1) * per};
}

std::vector<int> Placement::tensorGroup(int s, int r) const
{
    std::vector<int> g(degrees.tp);
    for (int t = 0; t < degrees.tp; ++t)
        g[t] = at(s, r, t);
    return g;
}

std::vector<int> Placement::dataGroup(int s, int t) const
{
    std::vector<int> g(degrees.dp);
    for (int r = 0; r < degrees.dp; ++r)
        g[r] = at(s, r, t);
    return g;
}

Placement megatronPlacement(const Cluster& cluster, Degrees d)
{
    Placement p{d, std::vector<int>(size_t(d.pp) * d.dp * d.tp)};
    std::iota(p.gpus.begin(), p.gpus.end(), 0);
    return p;
}

Placement randomPlacement(const Cluster& cluster, Degrees d, std::mt19937_64& rng, bool intraNodeTensor)
{
    Placement p = megatronPlacement(cluster, d);
    if (!intraNodeTensor) {
        std::shuffle(p.gpus.begin(), p.gpus.end(), rng);
        return p;
    }
    // Megatron's order puts each tp group on tp consecutive GPUs of one node: shuffle which group lands
    // where and the ranks inside each group, never splitting a group.
    const size_t tp = size_t(d.tp);
    std::vector<size_t> groups(p.gpus.size() / tp);
    std::iota(groups.begin(), groups.end(), size_t(0));
    std::shuffle(groups.begin(), groups.end(), rng);
    std::vector<int> gpus;
    gpus.reserve(p.gpus.size());
    for (size_t g : groups) {
        const size_t first = gpus.size();
        gpus.insert(gpus.end(), p.gpus.begin() + g * tp, p.gpus.begin() + (g + 1) * tp);
        std::shuffle(gpus.begin() + first, gpus.end(), rng);
    }
    p.gpus = std::move(gpus);
    return p;
}

Pipeline makePipeline(const Placement& p, int microBatchSize, int microBatches, const std::vector<int>& bounds)
{
    Pipeline pl;
    pl.replicas = p.degrees.dp;
    pl.microBatchSize = microBatchSize;
    pl.microBatches = microBatches;
    for (int s = 0; s < p.degrees.pp; ++s) {
        Stage st;
        st.firstLayer = bounds[s];
        st.endLayer = bounds[s + 1];
        st.gpus = p.stageGpus(s);
        st.tensorParallel = p.degrees.tp;
        st.dataParallel = 1;
        pl.stages.push_back(std::move(st));
    }
    return pl;
}

} // namespace hetplan
