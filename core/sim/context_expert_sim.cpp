#include "context_expert_sim.h"

#include "core/cost/context_expert.h"

#include <algorithm>

namespace hetplan::simdetail {

namespace {

// Groups of `size` consecutive data-parallel ranks of g's stage, counted over all its replicas (replica × dp +
// rank), one per tensor-parallel rank: the context-parallel rings (cp divides dp, so a ring stays inside its
// replica) or the expert-parallel groups. All replicas' groups run at once and share the NICs.
std::vector<std::vector<int>> stageGroups(const Plan& plan, const Group& g, int size)
{
    const Pipeline& pl = plan.pipelines[g.pipeline];
    const Stage& st = pl.stages[g.stage];
    const int ranks = pl.replicas * st.dataParallel, tp = st.tensorParallel;
    std::vector<std::vector<int>> groups;
    for (int base = 0; base + size <= ranks; base += size)
        for (int t = 0; t < tp; ++t) {
            std::vector<int> group;
            for (int e = 0; e < size; ++e)
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
    const LinkParams ringLink = rings ? concurrentRingsLink(plan.cluster, stageGroups(plan, g, cp)) : LinkParams{};
    const LinkParams a2aLink = moe && ep > 1 ? allToAllLink(plan.cluster, stageGroups(plan, g, ep)) : LinkParams{};
    // Recomputation reruns the forward's communication in the backward: all of it when full, the attention
    // core's ring when selective.
    const bool rerunRing = job.recompute || job.selectiveRecompute, rerunAllToAll = job.recompute;
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
            out.forwardComm.ring += r.forward;
            out.backwardComm.ring += r.backward + (rerunRing ? r.forward : 0);
        }
        if (spec.expertAllToAllBytes <= 0)
            continue;
        const double padded = cf > 0 ? cf : 1.0;
        if (ep > 1) {
            // Megatron runs MoE under tensor parallelism with sequence parallelism: each tp rank dispatches 1/tp.
            const double a2a = expertAllToAllSeconds(spec.expertAllToAllBytes * scale * mb * padded / tp, ep, a2aLink);
            out.forwardComm.allToAll += a2a;
            out.backwardComm.allToAll += a2a * (rerunAllToAll ? 2 : 1);
        }
        if (cf > 0 && spec.expertFlops > 0 && spec.forwardFlops > 0) {
            const LayerTiming t = costs.layer(l, g.device, g.tp, mb);
            const double share = std::min(1.0, spec.expertFlops / spec.forwardFlops);
            out.forwardCompute += (cf - 1) * share * t.forward;
            out.backwardCompute += (cf - 1) * share * t.backward;
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
