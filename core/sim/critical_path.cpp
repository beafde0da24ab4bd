#include "critical_path.h"

#include <algorithm>
#include <tuple>

namespace hetplan {

namespace {

// Copies of one piece of work on different GPUs: the same kind, place in the schedule and times. A collective's
// members may belong to different stages and pipelines (a layer segment's all-reduce), so for collectives
// the kind and times alone say it.
using TwinKey = std::tuple<int, int, int, int, double, double>;
TwinKey twinKey(const TimelineEvent& e)
{
    if (isCollective(e.kind))
        return {int(e.kind), -1, -1, -1, e.start, e.end};
    return {int(e.kind), e.pipeline, e.stage, e.microBatch, e.start, e.end};
}

class Walker {
public:
    explicit Walker(const SimResult& r) : events_(r.events), eps_(1e-9 * std::max(r.iterationSeconds, 1e-300))
    {
        for (int i = 0; i < int(events_.size()); ++i) {
            byGpu_[events_[size_t(i)].gpu].push_back(i);
            twins_[twinKey(events_[size_t(i)])].push_back(i);
        }
        for (auto& [gpu, list] : byGpu_)
            std::stable_sort(list.begin(), list.end(), [&](int a, int b) { return end(a) < end(b); });
    }

    int lastEvent() const
    {
        int last = -1;
        for (int i = 0; i < int(events_.size()); ++i)
            if (last < 0 || end(i) > end(last) + eps_)
                last = i;
        return last;
    }

    // The dependency of `i` that finished last (-1 at the start of the iteration).
    int predecessor(int i) const
    {
        int best = sameGpuPredecessor(i, i);
        consider(best, i, events_[size_t(i)].waitedOn);
        if (isCollective(events_[size_t(i)].kind))
            for (int member : twins_.at(twinKey(events_[size_t(i)])))
                if (member != i)
                    consider(best, i, sameGpuPredecessor(member, i));
        return best;
    }

    const std::vector<int>& twins(int i) const { return twins_.at(twinKey(events_[size_t(i)])); }

private:
    double start(int i) const { return events_[size_t(i)].start; }
    double end(int i) const { return events_[size_t(i)].end; }

    // Could `c` have released `i`? It began earlier (so the walk always moves back) and ended by i's start.
    bool precedes(int c, int i) const { return c >= 0 && start(c) < start(i) && end(c) <= start(i) + eps_; }

    // Replaces `best` by `c` if c precedes `i` and ended strictly later (ties keep the earlier choice).
    void consider(int& best, int i, int c) const
    {
        if (precedes(c, i) && (best < 0 || end(c) > end(best) + eps_))
            best = c;
    }

    // The latest-ending event on member's GPU that precedes `i`; among equal ends, the one that began last.
    int sameGpuPredecessor(int member, int i) const
    {
        const std::vector<int>& list = byGpu_.at(events_[size_t(member)].gpu);
        auto it = std::upper_bound(list.begin(), list.end(), start(i) + eps_,
                                   [&](double t, int c) { return t < end(c); });
        int best = -1;
        while (it != list.begin()) {
            const int c = *--it;
            if (best >= 0 && end(c) < end(best) - eps_)
                break;
            if (precedes(c, i) && (best < 0 || start(c) > start(best)))
                best = c;
        }
        return best;
    }

    const std::vector<TimelineEvent>& events_;
    const double eps_;
    std::map<int, std::vector<int>> byGpu_; // event indices per GPU, by end
    std::map<TwinKey, std::vector<int>> twins_;
};

} // namespace

CriticalPath criticalPath(const SimResult& result)
{
    CriticalPath path;
    path.onPath.assign(result.events.size(), 0);
    if (result.events.empty())
        return path;
    const Walker walker(result);
    for (int i = walker.lastEvent(); i >= 0; i = walker.predecessor(i)) // starts strictly decrease: it ends
        path.chain.push_back(i);
    std::reverse(path.chain.begin(), path.chain.end());
    for (int i : path.chain)
        for (int twin : walker.twins(i))
            path.onPath[size_t(twin)] = 1;
    return path;
}

std::map<int, std::vector<IdleGap>> idleGaps(const SimResult& result)
{
    std::map<int, std::vector<std::pair<double, double>>> busy;
    for (const TimelineEvent& e : result.events)
        busy[e.gpu].push_back({e.start, e.end});
    const double T = result.iterationSeconds;
    const double minGap = 1e-6 * T;
    std::map<int, std::vector<IdleGap>> gaps;
    for (auto& [gpu, intervals] : busy) {
        std::sort(intervals.begin(), intervals.end());
        std::vector<IdleGap>& out = gaps[gpu];
        double covered = 0; // everything before this is busy or already a gap
        for (auto [s, e] : intervals) {
            if (std::min(s, T) - covered > minGap)
                out.push_back({covered, std::min(s, T)});
            covered = std::max(covered, e);
        }
        if (T - covered > minGap)
            out.push_back({covered, T});
    }
    return gaps;
}

} // namespace hetplan
