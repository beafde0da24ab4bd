#include "recovery.h"

#include "core/planners/planner.h"

#include <algorithm>
#include <numeric>
#include <optional>

namespace hetplan {

namespace {

// Polls `progress` every 1024 calls: a call is at most a beam's worth of work (microseconds), a poll reads
// the clock.
class StopPoll {
public:
    explicit StopPoll(const Progress* progress) : progress_(progress) {}
    void operator()()
    {
        if (progress_ && (++calls_ & 1023u) == 0)
            progress_->checkpoint();
    }

private:
    const Progress* progress_;
    unsigned calls_ = 0;
};

// One recovered suffix: the virtual stages j .. S-1 as real stages.
struct RecoveryCell {
    std::vector<int> used; // GPUs per type
    double sum = 0, max = 0, cost = 0;
    double rank = 0; // cost plus a lower bound for the virtual stages still in front (PrefixBound)
    int stages = 0;
    int next = -1, nextIndex = -1; // the suffix this one extends: cell and its index there
    TemplateStage stage;
};

// Whether a cell of this rank would enter the beam (it is full and this one is no better than its worst).
bool admits(const std::vector<RecoveryCell>& cells, double rank, int beam)
{
    return int(cells.size()) < beam || rank < cells.back().rank;
}

// Keeps the `beam` best cells (by rank) with distinct (GPUs used, stage count).
void keep(std::vector<RecoveryCell>& cells, RecoveryCell c, int beam)
{
    for (size_t k = 0; k < cells.size(); ++k)
        if (cells[k].stages == c.stages && cells[k].used == c.used) {
            if (c.rank >= cells[k].rank)
                return;
            cells.erase(cells.begin() + k);
            break;
        }
    auto at = std::upper_bound(cells.begin(), cells.end(), c.rank,
                               [](double v, const RecoveryCell& o) { return v < o.rank; });
    cells.insert(at, std::move(c));
    if (int(cells.size()) > beam)
        cells.pop_back();
}

// The prefix capacity (PrefixBound) left after `prev` plus x GPUs of type i.
double capacityLeft(const PrefixBound& bound, const std::vector<int>& available, const RecoveryCell& prev, int i, int x)
{
    double capacity = 0;
    for (int t = 0; t < int(available.size()); ++t)
        capacity += bound.capacity(t, available[t] - prev.used[t] - (t == i ? x : 0));
    return capacity;
}

// Tries every choice (type, x, y) starting at virtual stage j on top of the suffix cells (eq. 6-9).
void relax(std::vector<std::vector<RecoveryCell>>& dp, int j, const StageCosts& costs, const Folding& f,
           const std::vector<int>& available, const std::vector<int>& bounds, const RecoveryOptions& o,
           const PrefixBound& bound, StopPoll& poll)
{
    const int S = int(bounds.size()) - 1;
    for (int i = 0; i < costs.typeCount(); ++i)
        for (int x = 1; x <= std::min(costs.maxGpus(i), available[i]); ++x) {
            if (!costs.hasShape(i, x))
                continue;
            const int share = o.granularity * f.d[i]; // virtual stages one GPU of type i is worth
            const int yFirst = o.paper ? x * share : o.anyMerge ? 1 : (x - 1) * share + 1;
            const int yLast = o.anyMerge ? S - j : x * share;
            for (int y = yFirst; y <= yLast && j + y <= S; ++y)
                for (int p = 0; p < int(dp[j + y].size()); ++p) {
                    poll();
                    const RecoveryCell& prev = dp[j + y][p];
                    if (prev.used[i] + x > available[i])
                        continue; // no more GPUs than the type has
                    const StageChoice c =
                        costs.best(i, x, bounds[j], bounds[j + y],
                                   stageInFlight(costs.job(), 0, prev.stages + 1, costs.microBatches()));
                    if (!c.ok())
                        continue; // would not fit memory
                    const double sum = prev.sum + c.time, max = std::max(prev.max, c.time);
                    const double rank =
                        o.paper ? objectiveOf(sum, max, costs.microBatches())
                                : bound.objective(sum, max, bounds[j], capacityLeft(bound, available, prev, i, x));
                    if (rank >= kNoStage || !admits(dp[j], rank, o.beam))
                        continue;
                    RecoveryCell cell = prev;
                    cell.used[i] += x;
                    cell.sum = sum;
                    cell.max = max;
                    cell.cost = objectiveOf(sum, max, costs.microBatches());
                    cell.rank = rank;
                    cell.stages = prev.stages + 1;
                    cell.next = j + y;
                    cell.nextIndex = p;
                    cell.stage = {bounds[j], bounds[j + y], i, x, c.shape, c.time};
                    keep(dp[j], std::move(cell), o.beam);
                }
        }
}

} // namespace

std::vector<TemplateStage> recoverDp(const StageCosts& costs, const Folding& folding, const std::vector<int>& available,
                                     const std::vector<int>& bounds, const RecoveryOptions& options,
                                     const Progress* progress)
{
    const int S = int(bounds.size()) - 1;
    std::vector<std::vector<RecoveryCell>> dp(S + 1);
    dp[S].push_back(RecoveryCell{});
    dp[S][0].used.assign(costs.typeCount(), 0);
    const PrefixBound bound(costs);
    StopPoll poll(progress);
    for (int j = S - 1; j >= 0; --j)
        relax(dp, j, costs, folding, available, bounds, options, bound, poll); // an empty cell stays infeasible
    std::vector<TemplateStage> out;
    if (dp[0].empty())
        return out;
    for (int j = 0, k = 0; j < S;) {
        const RecoveryCell& c = dp[j][k];
        out.push_back(c.stage);
        j = c.next;
        k = c.nextIndex;
    }
    return out;
}

namespace {

// T of the template with assigned stages at their real times and the others at their virtual times.
double partialObjective(const std::vector<TemplateStage>& real, const std::vector<bool>& assigned,
                        const std::vector<TemplateStage>& virt, int microBatches)
{
    double sum = 0, max = 0;
    for (size_t j = 0; j < virt.size(); ++j) {
        const double t = assigned[j] ? real[j].time : virt[j].time;
        sum += t;
        max = std::max(max, t);
    }
    return objectiveOf(sum, max, microBatches);
}

// Stage j on type i: the fewest GPUs, from ceil(g_j / d_i) up to a node, on which it fits memory.
std::optional<TemplateStage> tryAssign(const StageCosts& costs, const Folding& f, int i, int left,
                                       const std::vector<TemplateStage>& virt, int j)
{
    const int S = int(virt.size());
    for (int x = (virt[j].gpus + f.d[i] - 1) / f.d[i]; x <= std::min(left, costs.maxGpus(i)); ++x) {
        const StageChoice c =
            costs.best(i, x, virt[j].first, virt[j].end, stageInFlight(costs.job(), j, S, costs.microBatches()));
        if (c.ok())
            return TemplateStage{virt[j].first, virt[j].end, i, x, c.shape, c.time};
    }
    return std::nullopt;
}

// The unassigned stage a batch of type-i GPUs goes to: the largest (most virtual GPUs, the paper's "largest
// remaining stages"), ties to the one where it lowers T most (try_assign); -1 if none fits.
int pickStage(const StageCosts& costs, const Folding& f, int i, int left, const std::vector<TemplateStage>& virt,
              std::vector<TemplateStage>& real, const std::vector<bool>& assigned)
{
    int pick = -1;
    double bestT = kNoStage;
    TemplateStage chosen;
    for (int j = 0; j < int(virt.size()); ++j) {
        if (assigned[j])
            continue;
        const std::optional<TemplateStage> t = tryAssign(costs, f, i, left, virt, j);
        if (!t)
            continue;
        const TemplateStage saved = real[j];
        real[j] = *t;
        std::vector<bool> with = assigned;
        with[j] = true;
        const double T = partialObjective(real, with, virt, costs.microBatches());
        real[j] = saved;
        if (pick < 0 || virt[j].gpus > virt[pick].gpus || (virt[j].gpus == virt[pick].gpus && T < bestT)) {
            bestT = T;
            pick = j;
            chosen = *t;
        }
    }
    if (pick >= 0)
        real[pick] = chosen;
    return pick;
}

} // namespace

std::vector<TemplateStage> recoverGreedy(const StageCosts& costs, const Folding& folding,
                                         const std::vector<int>& available,
                                         const std::vector<TemplateStage>& virtualStages)
{
    const int S = int(virtualStages.size());
    std::vector<TemplateStage> real(S);
    std::vector<bool> assigned(S, false);
    std::vector<int> order(costs.typeCount());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return folding.modelSeconds[a] < folding.modelSeconds[b]; });
    for (int i : order) {
        int left = available[i];
        while (left > 0) {
            const int j = pickStage(costs, folding, i, left, virtualStages, real, assigned);
            if (j < 0)
                break;
            assigned[j] = true;
            left -= real[j].gpus;
        }
    }
    if (std::find(assigned.begin(), assigned.end(), false) != assigned.end())
        return {};
    return real;
}

} // namespace hetplan
