#include "hethub_space.h"

#include "core/planners/common/degrees.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <set>
#include <string>

namespace hetplan::hethub {

std::vector<TypeGroup> typeGroups(const Cluster& cluster)
{
    std::vector<TypeGroup> groups;
    const std::vector<int> offsets = cluster.nodeOffsets();
    for (size_t n = 0; n < cluster.nodes.size(); ++n) {
        const std::string& device = cluster.nodes[n].deviceType;
        auto it = std::find_if(groups.begin(), groups.end(), [&](const TypeGroup& g) { return g.device == device; });
        if (it == groups.end()) {
            groups.push_back({device, {}});
            it = groups.end() - 1;
        }
        for (int gpu = offsets[n]; gpu < offsets[n + 1]; ++gpu)
            it->gpus.push_back(gpu);
    }
    return groups;
}

DecoderRange decoderRange(const ModelSpec& model)
{
    DecoderRange r{0, model.layerCount()};
    while (r.first < r.end && model.layers[r.first].kind == LayerKind::Embedding)
        ++r.first;
    while (r.end > r.first && model.layers[r.end - 1].kind == LayerKind::Head)
        --r.end;
    return r;
}

int SpaceConfig::stageCount() const { return std::accumulate(stagesPerType.begin(), stagesPerType.end(), 0); }

std::vector<SpaceConfig> enumerateConfigs(const Cluster& cluster, const ModelSpec& model,
                                          const std::vector<TypeGroup>& groups, int globalBatch, int maxMicroBatch)
{
    std::vector<SpaceConfig> out;
    const int decoders = decoderRange(model).count();
    for (int tp : allowedTensorDegrees(model, cluster)) {
        int common = 0; // gcd of the per-type counts of tp groups
        for (const TypeGroup& g : groups)
            common = std::gcd(common, int(g.gpus.size()) / tp);
        for (int dp : divisors(common)) {
            if (globalBatch % dp != 0)
                continue;
            SpaceConfig c;
            c.dp = dp;
            c.tp = tp;
            for (const TypeGroup& g : groups)
                c.stagesPerType.push_back(int(g.gpus.size()) / (dp * tp));
            if (c.stageCount() > decoders)
                continue;
            for (int mbs : divisors(globalBatch / dp)) {
                if (mbs > maxMicroBatch)
                    break;
                c.microBatchSize = mbs;
                c.microBatches = globalBatch / (dp * mbs);
                out.push_back(c);
            }
        }
    }
    return out;
}

std::string dataParallelWarning(const Cluster& cluster, const ModelSpec& model, const std::vector<TypeGroup>& groups,
                                int globalBatch)
{
    std::set<int> allowed; // dp > 1 some tp allows with at least one decoder layer per stage
    const int decoders = decoderRange(model).count();
    for (int tp : allowedTensorDegrees(model, cluster)) {
        int common = 0, gpus = 0;
        for (const TypeGroup& g : groups) {
            common = std::gcd(common, int(g.gpus.size()) / tp);
            gpus += int(g.gpus.size());
        }
        for (int dp : divisors(common))
            if (dp > 1 && gpus / (dp * tp) <= decoders)
                allowed.insert(dp);
    }
    if (allowed.empty() || globalBatch <= 0)
        return {};
    std::string list;
    for (int dp : allowed) {
        if (globalBatch % dp == 0)
            return {};
        list += (list.empty() ? "" : ", ") + std::to_string(dp);
    }
    return "global batch " + std::to_string(globalBatch) + " has no divisor ≤ " + std::to_string(*allowed.rbegin()) +
           " among the data-parallel degrees the GPU counts allow (" + list +
           "): data parallelism off (dp = 1); a global batch divisible by one of them enables it";
}

std::vector<int> stageChunk(const TypeGroup& g, const SpaceConfig& c, int k)
{
    const size_t per = size_t(c.dp) * c.tp;
    return {g.gpus.begin() + k * per, g.gpus.begin() + (k + 1) * per};
}

LinkParams tensorLink(const Cluster& cluster, const TypeGroup& g, int tp)
{
    LinkParams worst{std::numeric_limits<double>::infinity(), 0};
    for (size_t i = 0; i + tp <= g.gpus.size() && tp > 1; i += tp) {
        const LinkParams l = groupLink(cluster, {g.gpus.begin() + i, g.gpus.begin() + i + tp});
        worst.bandwidth = std::min(worst.bandwidth, l.bandwidth);
        worst.latency = std::max(worst.latency, l.latency);
    }
    return worst;
}

} // namespace hetplan::hethub
