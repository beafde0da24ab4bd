#include "exact_pipeline.h"

#include "core/base/errors.h"

#include <algorithm>

namespace hetplan {

namespace {

struct Label {
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
        prepareBound();
    }

    ExactResult run(const Progress* progress)
    {
        ExactResult r;
        r.states = (long long)states_.size();
        arena_.push_back(Label{});
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

    // Lower bound on what layers [0, u) still add, in reference work W (one GPU of type 0): a stage of g
    // GPUs of type i needs at least W_stage * rho_ig / g seconds, rho_ig = min over layers of
    // g * t_ig(l) / t_ref(l). So the prefix's max >= W / sum_i(rem_i * sigma_i) with sigma_i = max_g 1/rho_ig,
    // and its sum >= W / max_ig(g / rho_ig).
    void prepareBound()
    {
        work_.assign(L_ + 1, 0.0);
        std::vector<double> ref(L_);
        for (int l = 0; l < L_; ++l) {
            ref[l] = costs_.fastest(0, 1, l, l + 1);
            work_[l + 1] = work_[l] + ref[l];
        }
        sigma_.assign(cap_.size(), 0.0);
        for (int i = 0; i < int(cap_.size()); ++i)
            for (int g = 1; g <= costs_.maxGpus(i); ++g) {
                if (!costs_.hasShape(i, g))
                    continue;
                double rho = kNoStage;
                for (int l = 0; l < L_; ++l)
                    if (ref[l] > 0)
                        rho = std::min(rho, g * costs_.fastest(i, g, l, l + 1) / ref[l]);
                if (rho <= 0)
                    rho = 1e-12;
                sigma_[i] = std::max(sigma_[i], 1.0 / rho);
                gamma_ = std::max(gamma_, g / rho);
            }
    }

    double bound(const Label& l, int u, int y) const
    {
        if (u == 0)
            return objectiveOf(l.sum, l.max, costs_.microBatches());
        double capacity = 0;
        for (int i = 0; i < int(cap_.size()); ++i)
            capacity += (cap_[i] - count(y, i)) * sigma_[i];
        if (capacity <= 0)
            return kNoStage;
        return objectiveOf(l.sum + work_[u] / gamma_, std::max(l.max, work_[u] / capacity), costs_.microBatches());
    }

    void expand(int v, int y, int id)
    {
        const Label from = arena_[id];
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
                    Label l{from.sum + c.time, std::max(from.max, c.time), from.k + 1, id, i, g, u, v};
                    const int to = y + g * stride_[i];
                    if (objectiveOf(l.sum, l.max, costs_.microBatches()) >= best_)
                        break; // more layers only take longer
                    if (bound(l, u, to) >= best_)
                        continue; // the layers still ahead cannot be done fast enough
                    insert(u, to, l, objectiveOf(l.sum, l.max, costs_.microBatches()));
                }
            }
    }

    void insert(int u, int y, const Label& l, double objective)
    {
        std::vector<int>& list = states_[index(u, y)];
        for (int id : list) {
            const Label& o = arena_[id];
            if (o.sum <= l.sum && o.max <= l.max && o.k <= l.k)
                return;
        }
        std::erase_if(list, [&](int id) {
            const Label& o = arena_[id];
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
            const Label& l = arena_[id];
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
    std::vector<Label> arena_;
    std::vector<double> work_, sigma_;
    double gamma_ = 0;
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
