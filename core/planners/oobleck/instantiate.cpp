#include "instantiate.h"

#include <algorithm>

namespace hetplan {

std::vector<int> splitMicroBatches(const std::vector<const PipelineTemplate*>& pipelines, int microBatches)
{
    std::vector<int> b(pipelines.size(), 1);
    auto finish = [&](size_t j, int count) { return pipelines[j]->sum + (count - 1) * pipelines[j]->max; };
    for (int left = microBatches - int(pipelines.size()); left > 0; --left) {
        size_t pick = 0;
        for (size_t j = 1; j < pipelines.size(); ++j)
            if (finish(j, b[j] + 1) < finish(pick, b[pick] + 1))
                pick = j;
        ++b[pick];
    }
    return b;
}

namespace {
Instantiation withPipelines(const std::map<int, const PipelineTemplate*>& bestByNodes, int nodes, int p,
                            int microBatches)
{
    Instantiation inst;
    std::vector<const PipelineTemplate*> templates;
    for (int j = 0; j < p; ++j) {
        const int n = nodes / p + (j < nodes % p ? 1 : 0);
        auto it = bestByNodes.find(n);
        if (it == bestByNodes.end())
            return {};
        inst.pipelines.push_back({n, it->second, 0, 0});
        templates.push_back(it->second);
    }
    const std::vector<int> b = splitMicroBatches(templates, microBatches);
    inst.seconds = 0;
    for (size_t j = 0; j < b.size(); ++j) {
        inst.pipelines[j].microBatches = b[j];
        inst.pipelines[j].seconds = inst.pipelines[j].tmpl->objective(b[j]);
        inst.seconds = std::max(inst.seconds, inst.pipelines[j].seconds);
    }
    return inst;
}
} // namespace

Instantiation instantiate(const std::map<int, const PipelineTemplate*>& bestByNodes, int nodes, int microBatches)
{
    Instantiation best;
    for (int p = 1; p <= std::min(nodes, microBatches); ++p) {
        Instantiation inst = withPipelines(bestByNodes, nodes, p, microBatches);
        if (!inst.pipelines.empty() && inst.seconds < best.seconds)
            best = std::move(inst);
    }
    return best;
}

namespace {
// One replica's stage GPUs: stages fill the nodes in order, `offset` GPUs into the first.
std::vector<std::vector<int>> replicaGpus(const PipelineTemplate& t, const Cluster& cluster,
                                          const std::vector<int>& nodeIds, size_t firstNode)
{
    const std::vector<int> offsets = cluster.nodeOffsets();
    std::vector<std::vector<int>> out;
    size_t node = firstNode;
    int used = 0;
    for (const TemplateStage& s : t.stages) {
        if (used == cluster.nodes[nodeIds[node]].gpus) {
            ++node;
            used = 0;
        }
        std::vector<int> gpus;
        for (int g = 0; g < s.gpus; ++g)
            gpus.push_back(offsets[nodeIds[node]] + used++);
        out.push_back(gpus);
    }
    return out;
}
} // namespace

std::vector<Pipeline> placeInstances(const Instantiation& inst, const Cluster& cluster, const std::vector<int>& nodeIds,
                                     int microBatchSize)
{
    std::vector<Pipeline> out;
    std::vector<const PipelineInstance*> keys; // the instance each Pipeline in `out` stands for
    size_t node = 0;
    for (const PipelineInstance& pi : inst.pipelines) {
        size_t at = 0;
        while (at < keys.size() && !(keys[at]->tmpl == pi.tmpl && keys[at]->microBatches == pi.microBatches))
            ++at;
        if (at == keys.size()) {
            Pipeline p;
            p.replicas = 0;
            p.microBatchSize = microBatchSize;
            p.microBatches = pi.microBatches;
            for (const TemplateStage& s : pi.tmpl->stages)
                p.stages.push_back({s.first, s.end, {}, s.shape.tp, s.shape.dp});
            out.push_back(p);
            keys.push_back(&pi);
        }
        const auto gpus = replicaGpus(*pi.tmpl, cluster, nodeIds, node);
        for (size_t s = 0; s < gpus.size(); ++s)
            out[at].stages[s].gpus.insert(out[at].stages[s].gpus.end(), gpus[s].begin(), gpus[s].end());
        ++out[at].replicas;
        node += pi.nodes;
    }
    return out;
}

} // namespace hetplan
