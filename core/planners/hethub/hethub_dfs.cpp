#include "hethub_dfs.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hetplan::hethub {

double LeafPool::bound() const
{
    return int(heap_.size()) < keep_ ? std::numeric_limits<double>::infinity() : heap_.front().seconds;
}

namespace {
bool leafSlower(const ScoredLeaf& a, const ScoredLeaf& b) { return a.seconds < b.seconds; }
} // namespace

void LeafPool::offer(ScoredLeaf leaf)
{
    for (const ScoredLeaf& kept : heap_)
        if (kept.config == leaf.config && kept.layersPerType == leaf.layersPerType)
            return;
    if (int(heap_.size()) < keep_) {
        heap_.push_back(std::move(leaf));
        std::push_heap(heap_.begin(), heap_.end(), leafSlower);
    } else if (leaf.seconds < heap_.front().seconds) {
        std::pop_heap(heap_.begin(), heap_.end(), leafSlower);
        heap_.back() = std::move(leaf);
        std::push_heap(heap_.begin(), heap_.end(), leafSlower);
    }
}

std::vector<ScoredLeaf> LeafPool::sorted() const
{
    std::vector<ScoredLeaf> out = heap_;
    std::sort(out.begin(), out.end(), leafSlower);
    return out;
}

namespace {

class SplitSearch {
public:
    SplitSearch(const Predictor& p, int config, LeafPool& pool, const Progress& progress, bool prune,
                long long leafBudget)
        : p_(p),
          config_(config),
          pool_(pool),
          progress_(progress),
          prune_(prune),
          budgetEnd_(leafBudget > 0 ? pool.leaves + leafBudget : std::numeric_limits<long long>::max()),
          k_(p.typeCount()),
          stages_(p.config().stagesPerType),
          counts_(k_, 0),
          stagesAfter_(k_ + 1, 0),
          roomAfter_(k_ + 1, 0),
          weight_(k_, 0)
    {
        for (int i = k_ - 1; i >= 0; --i) {
            stagesAfter_[i] = stagesAfter_[i + 1] + stages_[i];
            roomAfter_[i] = roomAfter_[i + 1] + (long long)stages_[i] * p.maxStageLayers(i);
        }
        // Speed-proportional share: stages / per-layer time.
        const int D = p_.decoderCount();
        for (int i = 0; i < k_; ++i)
            weight_[i] = stages_[i] / std::max(p_.decoderSeconds(i, D) / D, 1e-30);
        fastestAfter_.assign(k_ + 1, std::numeric_limits<double>::infinity());
        for (int i = k_ - 1; i >= 0; --i)
            fastestAfter_[i] = std::min(fastestAfter_[i + 1], p_.decoderSeconds(i, 1));
    }

    StopReason run()
    {
        if (roomFor(0, p_.decoderCount()) && positionsFit(-1))
            descend(0, p_.decoderCount());
        else
            prunedForMemory(); // the config's stages cannot hold the model in any split
        return stopped_;
    }

private:
    double limit() const { return pool_.bound() / p_.config().microBatches; } // U / M
    int largestStage(int type, int n) const { return (n + stages_[type] - 1) / stages_[type]; }
    bool overBound(int type, int n) const
    {
        return prune_ && p_.decoderSeconds(type, largestStage(type, n)) >= limit();
    }
    // The memory bound: type's largest stage cannot fit (grows with n), or types from.. cannot hold `rest`
    // layers within memory (grows as rest does).
    bool overMemory(int type, int n) const { return prune_ && largestStage(type, n) > p_.maxStageLayers(type); }
    bool roomFor(int from, int rest) const { return !prune_ || roomAfter_[from] >= rest; }

    // The position bound. Position s of S has min(S − s, M) micro-batches in flight; some stage must take
    // each position, so for every v the stages tolerating ≥ v in flight must be at least as many as the
    // positions needing v (Hall's condition for this nested structure). Types 0..i hold counts_; the types
    // after i are counted at one layer per stage, the most tolerant they can be. False when no order of
    // the stages fits, so no leaf below does.
    bool positionsFit(int i) const
    {
        if (!prune_)
            return true;
        const int S = stagesAfter_[0], V = std::min(S, p_.config().microBatches);
        std::vector<int>& atLeast = scratch_; // atLeast[v]: stages tolerating exactly v, then ≥ v
        atLeast.assign(size_t(V) + 2, 0);
        auto add = [&](int type, int layers, int stages) {
            atLeast[size_t(std::min(V, p_.inFlightTolerance(type, layers)))] += stages;
        };
        for (int j = 0; j < k_; ++j) {
            if (j > i) {
                add(j, 1, stages_[j]);
                continue;
            }
            const int p = stages_[j], q = counts_[j] / p, r = counts_[j] % p;
            if (r > 0)
                add(j, q + 1, r);
            add(j, q, p - r);
        }
        for (int v = V; v >= 1; --v) {
            atLeast[size_t(v)] += atLeast[size_t(v) + 1];
            if (atLeast[size_t(v)] < S - v + 1) // positions needing ≥ v: s ≤ S − v
                return false;
        }
        return true;
    }

    // Whether types from..k-1 can hold `rest` layers with every stage below the bound.
    bool coverable(int from, int rest) const
    {
        if (!prune_ || !std::isfinite(limit()))
            return true;
        long long capacity = 0;
        for (int j = from; j < k_; ++j) {
            // Largest per-stage count strictly below the bound (decoder[] is nondecreasing).
            int lo = 0, hi = p_.decoderCount();
            while (lo < hi) {
                const int mid = (lo + hi + 1) / 2;
                if (p_.decoderSeconds(j, mid) < limit())
                    lo = mid;
                else
                    hi = mid - 1;
            }
            capacity += (long long)stages_[j] * lo;
        }
        return capacity >= rest;
    }

    int share(int i, int rest) const
    {
        double total = 0;
        for (int j = i; j < k_; ++j)
            total += weight_[j];
        return int(std::lround(rest * weight_[i] / total));
    }

    // Σ of type i's stage times (decoder part) when it holds n layers.
    double typeSum(int i, int n) const
    {
        const int p = stages_[i], q = n / p, r = n % p;
        // Only r stages hold q + 1 layers; with r = 0, q + 1 can be one past the table (ASan found the read).
        const double longer = r > 0 ? p_.decoderSeconds(i, q + 1) : 0.0;
        return r * longer + (p - r) * p_.decoderSeconds(i, q);
    }

    // The fill-and-drain bound T ≥ max(Σ_s t_s, M · max_s t_s) with the types after i costed at their
    // fastest single layer: true when type i taking n layers cannot beat the k-th best.
    bool overSumBound(int i, int rest, int n) const
    {
        if (!prune_)
            return false;
        const double after = rest > n ? (rest - n) * fastestAfter_[i + 1] : 0.0; // no ∞ · 0
        const double sum = sum_ + typeSum(i, n) + after;
        const double peak = std::max(max_, p_.decoderSeconds(i, largestStage(i, n)));
        return std::max(sum, p_.config().microBatches * peak) >= pool_.bound();
    }

    void prunedForMemory()
    {
        ++pool_.pruned;
        ++pool_.prunedMemory;
    }
    // Polls the stop every 1024 calls: on a long model most subtrees end in a memory or position cut, so
    // the search can run for minutes without reaching a leaf (where it also polls).
    bool done()
    {
        if (stopped_ == StopReason::None && (++visits_ & 1023) == 0)
            stopped_ = progress_.stopReason();
        return stopped_ != StopReason::None || pool_.leaves >= budgetEnd_;
    }

    // Whether type i holding n (counts_[i]) breaks a memory bound; counted as a memory prune when it does.
    bool memoryCuts(int i, int n)
    {
        if (!overMemory(i, n) && positionsFit(i))
            return false;
        prunedForMemory();
        return true;
    }

    void descend(int i, int rest)
    {
        if (done())
            return;
        if (i == k_ - 1) {
            counts_[i] = rest;
            if (memoryCuts(i, rest))
                return;
            if (overBound(i, rest) || overSumBound(i, rest, rest)) {
                ++pool_.pruned;
                return;
            }
            leaf();
            return;
        }
        const int lo = stages_[i], hi = rest - stagesAfter_[i + 1];
        const int start = std::clamp(share(i, rest), lo, hi);
        // Upwards: larger n_i only makes type i's stages slower and bigger, so stop at the first over a
        // time or memory bound.
        for (int n = start; n <= hi && !done(); ++n) {
            counts_[i] = n;
            if (memoryCuts(i, n))
                break;
            if (overBound(i, n)) {
                ++pool_.pruned;
                break;
            }
            if (!roomFor(i + 1, rest - n))
                prunedForMemory();
            else if (coverable(i + 1, rest - n) && !overSumBound(i, rest, n))
                enter(i, rest, n);
            else
                ++pool_.pruned;
        }
        // Downwards: smaller n_i leaves more to the others, so stop at the first they cannot hold.
        for (int n = start - 1; n >= lo && !done(); --n) {
            if (!roomFor(i + 1, rest - n)) {
                prunedForMemory();
                break;
            }
            if (!coverable(i + 1, rest - n)) {
                ++pool_.pruned;
                break;
            }
            counts_[i] = n;
            if (memoryCuts(i, n))
                continue;
            if (!overBound(i, n) && !overSumBound(i, rest, n))
                enter(i, rest, n);
            else
                ++pool_.pruned;
        }
    }

    void enter(int i, int rest, int n)
    {
        counts_[i] = n;
        const double sum = sum_, max = max_;
        sum_ += typeSum(i, n);
        max_ = std::max(max_, p_.decoderSeconds(i, largestStage(i, n)));
        descend(i + 1, rest - n);
        sum_ = sum;
        max_ = max;
    }

    void leaf()
    {
        if ((++pool_.leaves & 1023) == 0 && progress_.stopReason() != StopReason::None) {
            stopped_ = progress_.stopReason();
            return;
        }
        std::vector<StageSlot> order = p_.descendingOrder(counts_);
        // A cheap memory check first: a stage whose in-flight tolerance is below its position's in-flight
        // count cannot fit (the tolerance is an upper bound), so the leaf is dropped without scoring it.
        const int S = int(order.size()), M = p_.config().microBatches;
        for (int pos = 0; pos < S; ++pos)
            if (p_.inFlightTolerance(order[pos].type, order[pos].layers) < std::min(S - pos, M)) {
                ++pool_.droppedMemory;
                return;
            }
        const LeafScore s = p_.score(order);
        if (!s.fits) {
            ++pool_.droppedMemory;
            return;
        }
        pool_.offer({config_, counts_, std::move(order), s.seconds});
    }

    const Predictor& p_;
    const int config_;
    LeafPool& pool_;
    const Progress& progress_;
    const bool prune_;
    const long long budgetEnd_; // pool_.leaves at which a budgeted search ends
    const int k_;
    const std::vector<int>& stages_;
    std::vector<int> counts_, stagesAfter_;
    mutable std::vector<int> scratch_; // positionsFit's histogram
    std::vector<long long> roomAfter_; // roomAfter_[i]: Σ over types i..k-1 of stages × maxStageLayers
    std::vector<double> weight_;
    std::vector<double> fastestAfter_; // fastestAfter_[i]: fastest single decoder layer of types i..k-1
    double sum_ = 0, max_ = 0;         // Σ and max of the assigned types' stage times
    StopReason stopped_ = StopReason::None;
    unsigned visits_ = 0; // done()'s calls, to poll the clock every 1024
};

} // namespace

StopReason searchSplits(const Predictor& predictor, int configIndex, LeafPool& pool, const Progress& progress,
                        bool prune, long long leafBudget)
{
    return SplitSearch(predictor, configIndex, pool, progress, prune, leafBudget).run();
}

} // namespace hetplan::hethub
