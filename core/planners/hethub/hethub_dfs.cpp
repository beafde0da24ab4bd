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
    SplitSearch(const Predictor& p, int config, LeafPool& pool, const Progress& progress, bool prune)
        : p_(p),
          config_(config),
          pool_(pool),
          progress_(progress),
          prune_(prune),
          k_(p.typeCount()),
          stages_(p.config().stagesPerType),
          counts_(k_, 0),
          stagesAfter_(k_ + 1, 0),
          weight_(k_, 0)
    {
        for (int i = k_ - 1; i >= 0; --i)
            stagesAfter_[i] = stagesAfter_[i + 1] + stages_[i];
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
        descend(0, p_.decoderCount());
        return stopped_;
    }

private:
    double limit() const { return pool_.bound() / p_.config().microBatches; } // U / M
    int largestStage(int type, int n) const { return (n + stages_[type] - 1) / stages_[type]; }
    bool overBound(int type, int n) const
    {
        return prune_ && p_.decoderSeconds(type, largestStage(type, n)) >= limit();
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

    // The fill-and-drain bound T ≥ Σ_s t_s + (M − 1) · max_s t_s with the types after i costed at their
    // fastest single layer: true when type i taking n layers cannot beat the k-th best.
    bool overSumBound(int i, int rest, int n) const
    {
        if (!prune_)
            return false;
        const double after = rest > n ? (rest - n) * fastestAfter_[i + 1] : 0.0; // no ∞ · 0
        const double sum = sum_ + typeSum(i, n) + after;
        const double peak = std::max(max_, p_.decoderSeconds(i, largestStage(i, n)));
        return sum + (p_.config().microBatches - 1) * peak >= pool_.bound();
    }

    void descend(int i, int rest)
    {
        if (stopped_ != StopReason::None)
            return;
        if (i == k_ - 1) {
            if (overBound(i, rest) || overSumBound(i, rest, rest)) {
                ++pool_.pruned;
                return;
            }
            counts_[i] = rest;
            leaf();
            return;
        }
        const int lo = stages_[i], hi = rest - stagesAfter_[i + 1];
        const int start = std::clamp(share(i, rest), lo, hi);
        // Upwards: larger n_i only makes type i's stages slower, so stop at the first over the bound.
        for (int n = start; n <= hi && stopped_ == StopReason::None; ++n) {
            if (overBound(i, n)) {
                ++pool_.pruned;
                break;
            }
            if (coverable(i + 1, rest - n) && !overSumBound(i, rest, n))
                enter(i, rest, n);
            else
                ++pool_.pruned;
        }
        // Downwards: smaller n_i leaves more to the others, so stop at the first they cannot hold.
        for (int n = start - 1; n >= lo && stopped_ == StopReason::None; --n) {
            if (!coverable(i + 1, rest - n)) {
                ++pool_.pruned;
                break;
            }
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
    const int k_;
    const std::vector<int>& stages_;
    std::vector<int> counts_, stagesAfter_;
    std::vector<double> weight_;
    std::vector<double> fastestAfter_; // fastestAfter_[i]: fastest single decoder layer of types i..k-1
    double sum_ = 0, max_ = 0;         // Σ and max of the assigned types' stage times
    StopReason stopped_ = StopReason::None;
};

} // namespace

StopReason searchSplits(const Predictor& predictor, int configIndex, LeafPool& pool, const Progress& progress,
                        bool prune)
{
    return SplitSearch(predictor, configIndex, pool, progress, prune).run();
}

} // namespace hetplan::hethub
