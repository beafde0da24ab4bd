#include "oobleck_templates.h"

#include "core/base/errors.h"

#include <algorithm>

namespace hetplan {

namespace {

struct TemplateLabel {
    double sum = 0, max = 0;
    int parent = -1;
    int gpus = 0, first = 0, end = 0;
};

class TemplateSearch {
public:
    TemplateSearch(const StageCosts& costs, const TemplateGenOptions& o)
        : costs_(costs), o_(o), L_(costs.layers()), kMax_(std::min(costs.layers(), o.maxGpus))
    {}

    TemplateTable run(const Progress* progress)
    {
        allocate(progress);
        arena_.push_back(TemplateLabel{});
        states_[index(L_, 0, 0)].push_back(0);
        for (int v = L_; v >= 1; --v)
            for (int G = 0; G < o_.maxGpus; ++G)
                for (int k = 0; k < kMax_; ++k) {
                    if (progress)
                        progress->checkpoint(); // a state's labels each try O(M · L) stages
                    for (int id : states_[index(v, G, k)])
                        expand(v, G, k, id);
                }
        return table();
    }

private:
    // The states a chunk at a time, polling in between: up to max_states of them, and first touching their
    // memory (page faults) takes most of a second at the limit.
    void allocate(const Progress* progress)
    {
        const size_t states = size_t(L_ + 1) * (o_.maxGpus + 1) * (kMax_ + 1);
        states_.reserve(states);
        while (states_.size() < states) {
            if (progress)
                progress->checkpoint();
            states_.resize(std::min(states, states_.size() + (size_t(1) << 18)));
        }
    }

    size_t index(int u, int G, int k) const { return (size_t(u) * (o_.maxGpus + 1) + G) * (kMax_ + 1) + k; }

    double stageTime(int g, int u, int v, int k) const
    {
        if (o_.ignoreMemory)
            return costs_.fastest(o_.type, g, u, v);
        return costs_.best(o_.type, g, u, v, stageInFlight(costs_.job(), 0, k + 1, costs_.microBatches())).time;
    }

    void expand(int v, int G, int k, int id)
    {
        const TemplateLabel from = arena_[id];
        const int M = o_.gpusPerNode;
        for (int g = 1; g <= (o_.singleGpuStages ? 1 : M) && G + g <= o_.maxGpus; ++g) {
            if (!costs_.hasShape(o_.type, g) || G / M != (G + g - 1) / M)
                continue;
            for (int u = v - 1; u >= 0; --u) {
                const double t = stageTime(g, u, v, k);
                if (t >= kNoStage)
                    break; // more layers need more memory
                insert(index(u, G + g, k + 1), TemplateLabel{from.sum + t, std::max(from.max, t), id, g, u, v});
            }
        }
    }

    void insert(size_t state, const TemplateLabel& l)
    {
        std::vector<int>& list = states_[state];
        for (int id : list)
            if (arena_[id].sum <= l.sum && arena_[id].max <= l.max)
                return;
        std::erase_if(list, [&](int id) { return l.sum <= arena_[id].sum && l.max <= arena_[id].max; });
        arena_.push_back(l);
        list.push_back(int(arena_.size()) - 1);
    }

    TemplateTable table() const
    {
        TemplateTable t;
        t.labels = (long long)arena_.size();
        for (int G = 1; G <= o_.maxGpus; ++G)
            for (int k = 1; k <= kMax_; ++k) {
                int bestId = -1;
                for (int id : states_[index(0, G, k)])
                    if (bestId < 0 || objectiveOf(arena_[id].sum, arena_[id].max, costs_.microBatches()) <
                                          objectiveOf(arena_[bestId].sum, arena_[bestId].max, costs_.microBatches()))
                        bestId = id;
                if (bestId >= 0)
                    t.entries[{G, k}] = rebuild(bestId, G);
            }
        return t;
    }

    PipelineTemplate rebuild(int id, int G) const
    {
        PipelineTemplate p;
        p.gpus = G;
        p.sum = arena_[id].sum;
        p.max = arena_[id].max;
        for (; arena_[id].parent >= 0; id = arena_[id].parent) {
            const TemplateLabel& l = arena_[id];
            p.stages.push_back({l.first, l.end, o_.type, l.gpus, {}, 0});
        }
        const int S = int(p.stages.size());
        for (int s = 0; s < S; ++s) {
            TemplateStage& st = p.stages[s];
            if (o_.ignoreMemory) {
                st.time = costs_.fastest(st.type, st.gpus, st.first, st.end);
                continue;
            }
            const StageChoice c = costs_.best(st.type, st.gpus, st.first, st.end,
                                              stageInFlight(costs_.job(), s, S, costs_.microBatches()));
            st.time = c.time;
            st.shape = c.shape;
        }
        return p;
    }

    const StageCosts& costs_;
    TemplateGenOptions o_;
    int L_, kMax_;
    std::vector<std::vector<int>> states_;
    std::vector<TemplateLabel> arena_;
};

} // namespace

const PipelineTemplate* TemplateTable::at(int gpus, int stages) const
{
    auto it = entries.find({gpus, stages});
    return it == entries.end() ? nullptr : &it->second;
}

const PipelineTemplate* TemplateTable::best(int gpus, int microBatches) const
{
    const PipelineTemplate* b = nullptr;
    for (auto it = entries.lower_bound({gpus, 0}); it != entries.end() && it->first.first == gpus; ++it)
        if (!b || it->second.objective(microBatches) < b->objective(microBatches))
            b = &it->second;
    return b;
}

std::vector<int> TemplateTable::gpuCounts() const
{
    std::vector<int> out;
    for (const auto& [key, t] : entries)
        if (out.empty() || out.back() != key.first)
            out.push_back(key.first);
    return out;
}

double templateStateCount(int layers, int maxGpus)
{
    return double(layers + 1) * double(maxGpus + 1) * double(std::min(layers, maxGpus) + 1);
}

TemplateTable generateTemplates(const StageCosts& costs, const TemplateGenOptions& options, const Progress* progress)
{
    return TemplateSearch(costs, options).run(progress);
}

} // namespace hetplan
