#include "exact_pipeline.h"

#include "core/base/errors.h"

#include <algorithm>

namespace hetplan {

namespace {

struct ExactLabel {
    double sum = 0, max = 0;
    int k = 0;       // stages in the suffix
    int parent = -1; // arena index of the suffix this label extends
    int type = 0, gpus = 0, first = 0, end = 0;
};

class ExactSearch {
public:
    // `wholeNodes`: only stages of a whole node's GPUs (the quick first pass that seeds the bound).
    ExactSearch(const StageCosts& costs, const std::vector<int>& available, const Job& job, bool wholeNodes,
                double bestKnown)
        : costs_(costs), job_(job), cap_(available), L_(costs.layers()), wholeNodes_(wholeNodes), best_(bestKnown)
    {
        stride_.assign(cap_.size() + 1, 1);
        for (size_t i = 0; i < cap_.size(); ++i)
            stride_[i + 1] = stride_[i] * (cap_[i] + 1);
        ny_ = stride_.back();
        states_.assign(size_t(L_ + 1) * ny_, {});
    }

    ExactResult run(const Progress* progress)
    {
        ExactResult r;
        r.states = (long long)states_.size();
        arena_.push_back(ExactLabel{});
        states_[index(L_, 0)].push_back(0);
        for (int v = L_; v >= 1; --v)
            for (int y = 0; y < ny_; ++y) {
                if (progress && progress->stopReason() != StopReason::None) {
                    r.stopped = progress->stopReason();
                    return finish(r);
                }
                for (int id : states_[index(v, y)])
                    expand(v, y, id);
            }
        return finish(r);
    }

private:
    size_t index(int u, int y) const { return size_t(u) * ny_ + y; }
    int count(int y, int i) const { return (y / stride_[i]) % (cap_[i] + 1); }

    // The prefix bound (stage_costs.h) for a label whose prefix [0, u) has the GPUs y leaves.
    double bound(const ExactLabel& l, int u, int y) const
    {
        double capacity = 0;
        for (int i = 0; i < int(cap_.size()); ++i)
            capacity += bound_.capacity(i, cap_[i] - count(y, i));
        return bound_.objective(l.sum, l.max, u, capacity);
    }

    void expand(int v, int y, int id)
    {
        const ExactLabel from = arena_[id];
        if (bound(from, v, y) >= best_)
            return;
        const int inFlight = stageInFlight(job_, 0, from.k + 1, costs_.microBatches());
        for (int i = 0; i < int(cap_.size()); ++i)
            for (int g = 1; g <= std::min(costs_.maxGpus(i), cap_[i] - count(y, i)); ++g) {
                if (!costs_.hasShape(i, g) || (wholeNodes_ && g != costs_.maxGpus(i)))
                    continue;
                for (int u = v - 1; u >= 0; --u) {
                    const StageChoice c = costs_.best(i, g, u, v, inFlight);
                    if (!c.ok())
                        break; // more layers need more memory
                    ExactLabel l{from.sum + c.time, std::max(from.max, c.time), from.k + 1, id, i, g, u, v};
                    const int to = y + g * stride_[i];
                    if (objectiveOf(l.sum, l.max, costs_.microBatches()) >= best_)
                        break; // more layers only take longer
                    if (bound(l, u, to) >= best_)
                        continue; // the layers still ahead cannot be done fast enough
                    insert(u, to, l, objectiveOf(l.sum, l.max, costs_.microBatches()));
                }
            }
    }

    void insert(int u, int y, const ExactLabel& l, double objective)
    {
        std::vector<int>& list = states_[index(u, y)];
        for (int id : list) {
            const ExactLabel& o = arena_[id];
            if (o.sum <= l.sum && o.max <= l.max && o.k <= l.k)
                return;
        }
        std::erase_if(list, [&](int id) {
            const ExactLabel& o = arena_[id];
            return l.sum <= o.sum && l.max <= o.max && l.k <= o.k;
        });
        arena_.push_back(l);
        list.push_back(int(arena_.size()) - 1);
        if (u == 0 && objective < best_) {
            best_ = objective;
            bestId_ = int(arena_.size()) - 1;
        }
    }

    ExactResult finish(ExactResult r) const
    {
        r.labels = (long long)arena_.size();
        if (bestId_ < 0)
            return r;
        r.objective = best_;
        for (int id = bestId_; arena_[id].parent >= 0; id = arena_[id].parent) {
            const ExactLabel& l = arena_[id];
            r.stages.push_back({l.first, l.end, l.type, l.gpus, {}, 0});
        }
        return r;
    }

    const StageCosts& costs_;
    const Job& job_;
    std::vector<int> cap_;
    int L_;
    bool wholeNodes_ = false;
    std::vector<int> stride_;
    int ny_ = 1;
    std::vector<std::vector<int>> states_;
    std::vector<ExactLabel> arena_;
    PrefixBound bound_{costs_};
    double best_;
    int bestId_ = -1;
};

} // namespace

double exactStateCount(int layers, const std::vector<int>& available)
{
    double n = layers + 1;
    for (int c : available)
        n *= c + 1;
    return n;
}

ExactResult exactPipeline(const StageCosts& costs, const std::vector<int>& available, const Job& job,
                          const Progress* progress)
{
    // A first pass over whole-node stages only gives a feasible pipeline quickly; its T bounds the full
    // search, which then returns only strictly better pipelines (or none: the first pass's is optimal).
    ExactResult seed = ExactSearch(costs, available, job, true, kNoStage).run(progress);
    ExactResult r = ExactSearch(costs, available, job, false, seed.objective).run(progress);
    r.labels += seed.labels;
    if (r.stages.empty() && !seed.stages.empty()) {
        r.stages = seed.stages;
        r.objective = seed.objective;
    }
    if (!r.stages.empty() && !refreshStages(r.stages, costs, job))
        throw std::logic_error("exact pipeline: a stage of the optimum no longer fits"); // cannot happen
    return r;
}

} // namespace hetplan
