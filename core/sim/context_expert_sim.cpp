#include "context_expert_sim.h"

#include "core/cost/context_expert.h"

#include <algorithm>

namespace hetplan::simdetail {

namespace {

// The context-parallel rings of group g: cp consecutive data-parallel ranks, one ring per tensor-parallel rank.
std::vector<std::vector<int>> contextRings(const Group& g, int cp)
{
    std::vector<std::vector<int>> rings;
    for (int k = 0; k + cp <= g.dp; k += cp)
        for (int t = 0; t < g.tp; ++t) {
            std::vector<int> ring;
            for (int c = 0; c < cp; ++c)
                ring.push_back(g.gpus[size_t(k + c) * g.tp + t]);
            rings.push_back(std::move(ring));
        }
    return rings;
}

// The expert-parallel groups of g's stage over all replicas (they run at once): ep consecutive data-parallel
// ranks (replica × dp + rank), one group per tensor-parallel rank.
std::vector<std::vector<int>> expertGroups(const Plan& plan, const Group& g, int ep)
{
    const Pipeline& pl = plan.pipelines[g.pipeline];
    const Stage& st = pl.stages[g.stage];
    const int ranks = pl.replicas * st.dataParallel, tp = st.tensorParallel;
    std::vector<std::vector<int>> groups;
    for (int base = 0; base + ep <= ranks; base += ep)
        for (int t = 0; t < tp; ++t) {
            std::vector<int> group;
            for (int e = 0; e < ep; ++e)
                group.push_back(st.gpus[size_t(base + e) * tp + t]);
            groups.push_back(std::move(group));
        }
    return groups;
}

bool anyLayer(const ModelSpec& m, int first, int end, bool (*pred)(const LayerSpec&))
{
    return std::any_of(m.layers.begin() + first, m.layers.begin() + end, pred);
}

} // namespace

ChunkExtra contextExpertSeconds(const Plan& plan, const CostModel& costs, const Group& g, int first, int end,
                                double mb)
{
    const Pipeline& pl = plan.pipelines[g.pipeline];
    const Job& job = plan.job;
    const int cp = pl.contextParallel, ep = pl.expertParallel;
    const double cf = job.moeCapacityFactor;
    const ModelSpec& m = plan.model;
    const bool rings = cp > 1 && anyLayer(m, first, end, [](const LayerSpec& l) { return l.kvBytes > 0; });
    const bool moe = anyLayer(m, first, end, [](const LayerSpec& l) { return l.expertAllToAllBytes > 0; });
    ChunkExtra out;
    if (!rings && !(moe && (ep > 1 || cf > 0)))
        return out;
    const LinkParams ringLink = rings ? concurrentRingsLink(plan.cluster, contextRings(g, cp)) : LinkParams{};
    const LinkParams a2aLink = moe && ep > 1 ? allToAllLink(plan.cluster, expertGroups(plan, g, ep)) : LinkParams{};
    const double scale = job.activationScale();
    for (int l = first; l < end; ++l) {
        const LayerSpec& spec = m.layers[l];
        const int tp = spec.tensorParallel ? g.tp : 1;
        if (rings && spec.kvBytes > 0) {
            // A rank's chunk: its share of the sequence for its samples, its tp rank's heads.
            const LayerTiming t = costs.layer(l, g.device, g.tp, mb);
            const double core = costs.attentionCoreShare(l, g.device, g.tp, mb);
            const RingAttentionSeconds r = ringAttentionExposed(spec.kvBytes * scale * mb / tp, cp, ringLink,
                                                                core * t.forward, core * t.backward);
            out.forward += r.forward;
            out.backward += r.backward;
        }
        if (spec.expertAllToAllBytes <= 0)
            continue;
        const double padded = cf > 0 ? cf : 1.0;
        if (ep > 1) {
            // Megatron runs MoE under tensor parallelism with sequence parallelism: each tp rank dispatches 1/tp.
            const double a2a = expertAllToAllSeconds(spec.expertAllToAllBytes * scale * mb * padded / tp, ep, a2aLink);
            out.forward += a2a;
            out.backward += a2a;
        }
        if (cf > 0 && spec.expertFlops > 0 && spec.forwardFlops > 0) {
            const LayerTiming t = costs.layer(l, g.device, g.tp, mb);
            const double share = std::min(1.0, spec.expertFlops / spec.forwardFlops);
            out.forward += (cf - 1) * share * t.forward;
            out.backward += (cf - 1) * share * t.backward;
        }
    }
    return out;
}

double expertParamsPerRank(const ModelSpec& model, int first, int end, int tp)
{
    return perTensorRank(model, first, end, tp, &LayerSpec::expertParams);
}

double optimizerParams(double params, double expertParams, int ep, bool sharded)
{
    if (ep <= 1)
        return params;
    return params - expertParams + (sharded ? expertParams : expertParams / ep);
}

} // namespace hetplan::simdetail
