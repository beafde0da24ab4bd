#include "layer_dp.h"

#include "core/base/errors.h"
#include "core/base/numbers.h"
#include "core/planners/common/bounds.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

namespace hetplan {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kPaperDpMaxEntries = 1 << 26; // 64 Mi entries: 768 MB of table and choices

// All stage times t_s(a, b) of the valid (stage, first, end) triples, stored densely. Stage s can start
// no earlier than layer s and must leave one layer for each later stage.
struct StageTimes {
    int L = 0, k = 0;
    std::vector<double> t; // index (s·(L+1) + a)·(L+1) + b

    explicit StageTimes(const PipelineProblem& p) : L(p.layers), k(p.stages)
    {
        t.assign(size_t(k) * (L + 1) * (L + 1), kInf);
        for (int s = 0; s < k; ++s)
            for (int a = s; a <= L - (k - s); ++a)
                for (int b = a + 1; b <= L - (k - 1 - s); ++b)
                    if (p.allows(s, a, b))
                        t[idx(s, a, b)] = p.stageTime(s, a, b);
    }
    size_t idx(int s, int a, int b) const { return (size_t(s) * (L + 1) + a) * (L + 1) + b; }
    double operator()(int s, int a, int b) const { return t[idx(s, a, b)]; }
};

double cutTime(const PipelineProblem& p, int s, int i)
{
    return s < int(p.cut.size()) && i < int(p.cut[s].size()) ? p.cut[s][i] : 0.0;
}

struct Constrained {
    double sum = kInf; // Σt + Σe of the best split with every stage ≤ m
    std::vector<int> bounds;
};

// What solveBounded reads in its inner loop, flattened once per solveLayerSplit: the stages' prefix
// vectors as raw pointers (stageTime without the shared_ptr and vector hops), the cut rows, and the DP
// tables reused by every pass of the walk. time() is stageTime's arithmetic exactly.
struct BoundedDp {
    const PipelineProblem& p;
    std::vector<const double*> prefix; // stage s: prefix[first[s] .. first[s + 1])
    std::vector<int> first;
    std::vector<std::vector<double>> cutRow; // cutRow[s][a] = cutTime(p, s, a), a in [0, L]
    std::vector<double> f;                   // f[s·(L+1) + b]
    std::vector<int> arg;

    explicit BoundedDp(const PipelineProblem& problem) : p(problem)
    {
        const int L = p.layers, k = p.stages;
        for (int s = 0; s < k; ++s) {
            first.push_back(int(prefix.size()));
            for (const auto& pre : p.stagePrefix[s])
                prefix.push_back(pre->data());
        }
        first.push_back(int(prefix.size()));
        cutRow.assign(std::max(0, k - 1), std::vector<double>(size_t(L) + 1, 0.0));
        for (int s = 0; s + 1 < k; ++s)
            for (int a = 0; a <= L; ++a)
                cutRow[s][a] = cutTime(p, s, a);
        f.resize(size_t(k) * (L + 1));
        arg.resize(f.size());
    }

    double time(int s, int a, int b) const
    {
        double t = 0;
        for (int i = first[s]; i < first[s + 1]; ++i)
            t = std::max(t, prefix[i][b] - prefix[i][a]);
        return t;
    }
};

// Smallest Σt + Σe over splits whose stages all take ≤ m: f[s][b] = min_a f[s−1][a] + e_{s−1}(a) + t_s(a,b).
// A stage's time only grows with its layer range (layer times are non-negative), so for each end b the
// scan over starts a runs downwards and stops at the first range slower than m: with a finite m the work
// is O(k·L·w), w the most layers a stage can hold under m, instead of O(k·L²). Ties keep the smallest a.
Constrained solveBounded(BoundedDp& dp, double m, long long& evals)
{
    const PipelineProblem& p = dp.p;
    const int L = p.layers, k = p.stages;
    const size_t row = size_t(L) + 1;
    std::fill(dp.f.begin(), dp.f.end(), kInf);
    std::fill(dp.arg.begin(), dp.arg.end(), -1);
    double* f = dp.f.data();
    int* arg = dp.arg.data();
    const bool masked = p.restricted();
    for (int b = 1; b <= L - (k - 1); ++b) {
        const double t = dp.time(0, 0, b);
        if (t > m)
            break;
        if (p.allows(0, 0, b))
            f[b] = t;
    }
    for (int s = 1; s < k; ++s) {
        const double* prev = f + (s - 1) * row;
        double* cur = f + s * row;
        int* curArg = arg + s * row;
        const double* cut = dp.cutRow[s - 1].data();
        for (int b = s + 1; b <= L - (k - 1 - s); ++b) {
            // One pass is O(k·L·w): polled every 64 ends, as a thousand-layer model takes seconds per pass.
            // A stopped pass finds no split; the walk keeps what earlier passes found.
            if ((b & 63) == 0 && p.stop && p.stop())
                return {};
            for (int a = b - 1; a >= s; --a) {
                ++evals;
                const double t = dp.time(s, a, b);
                if (t > m)
                    break;
                if (prev[a] == kInf || (masked && !p.allows(s, a, b)))
                    continue;
                const double v = prev[a] + cut[a] + t;
                if (v <= cur[b]) {
                    cur[b] = v;
                    curArg[b] = a;
                }
            }
        }
    }
    Constrained c;
    if (f[(k - 1) * row + L] == kInf)
        return c;
    c.sum = f[(k - 1) * row + L];
    c.bounds.assign(k + 1, 0);
    c.bounds[k] = L;
    for (int s = k - 1; s >= 1; --s)
        c.bounds[s] = arg[s * row + c.bounds[s + 1]];
    return c;
}

double maxStage(const PipelineProblem& p, const std::vector<int>& b)
{
    double m = 0;
    for (int s = 0; s < p.stages; ++s)
        m = std::max(m, p.stageTime(s, b[s], b[s + 1]));
    return m;
}

bool solvable(const PipelineProblem& p) { return p.stages >= 1 && p.layers >= p.stages; }

} // namespace

double PipelineProblem::stageTime(int s, int a, int b) const
{
    double t = 0;
    for (const auto& pre : stagePrefix[s])
        t = std::max(t, (*pre)[b] - (*pre)[a]);
    return t;
}

PipelineProblem PipelineProblem::fromLayerTimes(const std::vector<std::vector<double>>& perStage,
                                                std::vector<std::vector<double>> cut, int gas)
{
    PipelineProblem p;
    p.stages = int(perStage.size());
    p.layers = perStage.empty() ? 0 : int(perStage[0].size());
    p.gas = gas;
    for (const auto& times : perStage) {
        auto pre = std::make_shared<std::vector<double>>(times.size() + 1, 0.0);
        for (size_t l = 0; l < times.size(); ++l)
            (*pre)[l + 1] = (*pre)[l] + times[l];
        p.stagePrefix.push_back({pre});
    }
    p.cut = std::move(cut);
    return p;
}

double pipelineCost(const PipelineProblem& p, const std::vector<int>& b)
{
    double maxT = 0, sum = 0;
    for (int s = 0; s < p.stages; ++s) {
        const double t = p.stageTime(s, b[s], b[s + 1]);
        maxT = std::max(maxT, t);
        sum += t;
        if (s + 1 < p.stages)
            sum += cutTime(p, s, b[s + 1]);
    }
    return (p.gas - 1) * maxT + sum;
}

LayerSplit solveLayerSplitAmp(const PipelineProblem& p)
{
    LayerSplit out;
    if (!solvable(p))
        return out;
    const int L = p.layers, k = p.stages;
    const double g = p.gas - 1;
    const StageTimes tm(p);

    // The tolerance domain M: 0 and every stage time, sorted. max(t, m) over M is again in M, and its
    // index is max(index(t), index(m)) because M is sorted.
    std::vector<double> M{0.0};
    for (double v : tm.t)
        if (v != kInf)
            M.push_back(v);
    std::sort(M.begin(), M.end());
    M.erase(std::unique(M.begin(), M.end()), M.end());
    const int nm = int(M.size());
    auto index = [&](double v) { return int(std::lower_bound(M.begin(), M.end(), v) - M.begin()); };
    std::vector<int> ti(tm.t.size(), -1);
    for (size_t x = 0; x < tm.t.size(); ++x)
        if (tm.t[x] != kInf)
            ti[x] = index(tm.t[x]);

    // dp[j][i][m] (j = stages used − 1) and the chosen last cut.
    auto at = [&](int j, int i, int m) { return (size_t(j) * (L + 1) + i) * nm + m; };
    // The table is stages × layers × tolerances, the tolerances up to one per layer range: a long model
    // would need gigabytes. Refused before allocating, naming the fast DP that gives the same split.
    const double entries = double(k) * (L + 1) * nm;
    if (entries > kPaperDpMaxEntries)
        throw InputError("--option", "dp",
                         "the paper's layer DP would need " + messageNumber(entries) + " table entries for " +
                             std::to_string(L) + " layers and " + std::to_string(k) + " stages (at most " +
                             messageNumber(kPaperDpMaxEntries) + "); dp=fast finds the same split");
    std::vector<double> dp(size_t(k) * (L + 1) * nm, kInf);
    std::vector<int> choice(dp.size(), -1);
    for (int i = 1; i <= L - (k - 1); ++i) { // eq. 7: one stage holds layers [0, i)
        const double t1 = tm(0, 0, i);
        if (t1 == kInf)
            continue;
        for (int m = 0; m < nm; ++m)
            dp[at(0, i, m)] = g * std::max(0.0, t1 - M[m]) + t1;
    }
    for (int j = 1; j < k; ++j) // eq. 8: last stage j holds [i', i)
        for (int i = j + 1; i <= L - (k - 1 - j); ++i) {
            if (p.stop && p.stop())
                return out; // stopped: no split
            for (int m = 0; m < nm; ++m) {
                double best = kInf;
                int arg = -1;
                for (int ip = j; ip < i; ++ip) {
                    ++out.evaluations;
                    const size_t x = tm.idx(j, ip, i);
                    const double t2 = tm.t[x];
                    if (t2 == kInf)
                        continue;
                    const double prev = dp[at(j - 1, ip, std::max(ti[x], m))];
                    if (prev == kInf)
                        continue;
                    const double v = prev + g * std::max(0.0, t2 - M[m]) + t2 + cutTime(p, j - 1, ip);
                    if (v < best) {
                        best = v;
                        arg = ip;
                    }
                }
                dp[at(j, i, m)] = best;
                choice[at(j, i, m)] = arg;
            }
        }

    if (dp[at(k - 1, L, 0)] == kInf)
        return out; // every split uses a forbidden stage
    // Follow the choices back from dp[L][k][0]; the tolerance passed down is max(t2, m).
    out.bounds.assign(k + 1, 0);
    out.bounds[k] = L;
    int m = 0;
    for (int j = k - 1; j >= 1; --j) {
        const int i = out.bounds[j + 1];
        const int ip = choice[at(j, i, m)];
        out.bounds[j] = ip;
        m = std::max(ti[tm.idx(j, ip, i)], m);
    }
    out.cost = pipelineCost(p, out.bounds);
    return out;
}

namespace {

// Σ over layers of the fastest time any stage gives that layer: no split's Σt is smaller.
double sumLowerBound(const PipelineProblem& p)
{
    double lb = 0;
    for (int l = 0; l < p.layers; ++l) {
        double lo = kInf;
        for (const auto& pres : p.stagePrefix)
            for (const auto& pre : pres)
                lo = std::min(lo, (*pre)[l + 1] - (*pre)[l]);
        lb += lo;
    }
    return lb;
}

// The even split, when every stage may hold its share: a first upper bound on the optimum.
std::vector<int> evenBounds(const PipelineProblem& p)
{
    std::vector<int> b = uniformBounds(p.layers, p.stages);
    for (int s = 0; s < p.stages; ++s)
        if (!p.allows(s, b[s], b[s + 1]))
            return {};
    return b;
}

// Whether some split (ignoring `allowed`) keeps every stage ≤ m. A stage's time grows with its range,
// so from a first layer a it can end anywhere in (a, e(a)], e non-decreasing in a (two pointers), and the
// reachable ends of each stage are a union of intervals: O(k·L).
bool splitWithin(const BoundedDp& dp, double m)
{
    const int L = dp.p.layers, k = dp.p.stages;
    std::vector<char> reach(size_t(L) + 1, 0);
    std::vector<int> open(size_t(L) + 2);
    reach[0] = 1;
    for (int s = 0; s < k; ++s) {
        std::fill(open.begin(), open.end(), 0);
        const int lastEnd = L - (k - 1 - s);
        int e = 0;
        for (int a = s; a < lastEnd; ++a) {
            e = std::max(e, a);
            while (e < lastEnd && dp.time(s, a, e + 1) <= m)
                ++e;
            if (reach[a] && e > a) {
                ++open[a + 1];
                --open[e + 1];
            }
        }
        int covering = 0;
        for (int b = 0; b <= L; ++b)
            reach[b] = (covering += open[b]) > 0;
    }
    return reach[L];
}

// A lower bound on every split's largest stage: bisection keeps `lo` a threshold no split fits under
// (or 0). Tighter than the mean of the per-layer minima when stages run on devices of different speed.
double largestStageLowerBound(const BoundedDp& dp)
{
    double hi = 0;
    for (int s = 0; s < dp.p.stages; ++s)
        hi = std::max(hi, dp.time(s, 0, dp.p.layers)); // no stage of any split is slower
    double lo = 0;
    for (int i = 0; i < 40 && hi - lo > 1e-9 * hi; ++i) {
        if (dp.p.stop && dp.p.stop()) // each step is O(k·L); `lo` is a bound at any step
            break;
        const double mid = lo + (hi - lo) / 2;
        (splitWithin(dp, mid) ? hi : lo) = mid;
    }
    return lo;
}

} // namespace

LayerSplit solveLayerSplit(const PipelineProblem& p)
{
    LayerSplit out;
    if (!solvable(p))
        return out;
    const double g = p.gas - 1;
    const double sumLb = sumLowerBound(p);
    const double mLb = sumLb / p.stages; // no split's largest stage is below the mean of the minima

    // Seed with the even split's cost U. A split whose largest stage exceeds (U − Σ_lb)/g costs more than
    // U, so the walk can start at that threshold instead of +∞ (the first, unbounded pass is the costly one).
    const std::vector<int> even = evenBounds(p);
    const double upper = even.empty() ? kInf : pipelineCost(p, even);
    double m = g > 0 && upper < kInf ? (upper - sumLb) / g * (1 + 1e-12) + 1e-300 : kInf;

    double best = kInf;
    BoundedDp dp(p);
    const double mStar = g > 0 ? largestStageLowerBound(dp) : 0;
    while (true) {
        Constrained c = solveBounded(dp, m, out.evaluations);
        if (c.bounds.empty())
            break;
        const double cost = pipelineCost(p, c.bounds);
        if (cost < best) {
            best = cost;
            out.bounds = c.bounds;
        }
        if (best < p.goal) {
            out.belowGoal = true;
            out.cost = best;
            return out;
        }
        if (g <= 0 || g * mLb + c.sum >= std::min(best, upper) || (p.stop && p.stop()))
            break;
        // Every later split has Σ ≥ c.sum and a largest stage ≥ mStar: once that cannot beat `best` the
        // walk's answer is settled (the margin covers Σ summed in another order by pipelineCost).
        if (g * mStar + c.sum >= best * (1 + 1e-9))
            break;
        // Every threshold in [max stage of this split, m] gives the same S: continue just below that max.
        m = std::nextafter(maxStage(p, c.bounds), -kInf);
    }
    if (!even.empty() && upper < best) {
        best = upper;
        out.bounds = even;
    }
    out.cost = out.bounds.empty() ? 0 : best;
    return out;
}

bool hasSplitWithinLimits(const std::vector<std::vector<int>>& lastEnd, int layers)
{
    // reach[a]: the stages so far can end exactly at layer a. Each stage turns every reachable a into the
    // interval (a, lastEnd[s][a]]; a difference array unions them in O(L).
    std::vector<char> reach(size_t(layers) + 1, 0);
    reach[0] = 1;
    for (const std::vector<int>& limit : lastEnd) {
        std::vector<int> open(size_t(layers) + 2, 0);
        for (int a = 0; a < layers; ++a)
            if (reach[a] && limit[a] > a) {
                ++open[a + 1];
                --open[std::min(limit[a], layers) + 1];
            }
        int covering = 0;
        for (int b = 0; b <= layers; ++b)
            reach[b] = (covering += open[b]) > 0;
    }
    return !lastEnd.empty() && reach[layers];
}

LayerSplit solveLayerSplitBruteForce(const PipelineProblem& p)
{
    LayerSplit out;
    if (!solvable(p))
        return out;
    out.cost = kInf;
    std::vector<int> b(p.stages + 1, 0);
    b[p.stages] = p.layers;
    std::function<void(int)> rec = [&](int s) { // choose b[s] for s = 1 .. k−1
        if (s == p.stages) {
            ++out.evaluations;
            for (int j = 0; j < p.stages; ++j)
                if (!p.allows(j, b[j], b[j + 1]))
                    return;
            const double c = pipelineCost(p, b);
            if (c < out.cost) {
                out.cost = c;
                out.bounds = b;
            }
            return;
        }
        for (int x = b[s - 1] + 1; x <= p.layers - (p.stages - s); ++x) {
            b[s] = x;
            rec(s + 1);
        }
    };
    rec(1);
    if (out.bounds.empty())
        out.cost = 0;
    return out;
}

} // namespace hetplan
