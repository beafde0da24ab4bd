#pragma once
// AMP's pipeline layer assignment (sec. 3.5, eq. 5-8): split L layers into k contiguous, non-empty
// stages minimising the pipeline time
//     T_pp = (gas − 1)·max_s t_s + Σ_{s<k−1} e_s + Σ_s t_s                                   (eq. 5)
// where t_s is the time of stage s on the GPUs that stage lands on (stages may be different device
// types, so t_s depends on s, not only on the layers) and e_s the p2p time across the cut after stage s.
#include <functional>
#include <limits>
#include <memory>
#include <vector>

namespace hetplan {

struct PipelineProblem {
    int layers = 0; // L
    int stages = 0; // k
    int gas = 1;    // micro-batches per iteration
    // Per stage, one or more prefix-sum vectors (size L+1) of per-layer times; the stage's time for
    // layers [a, b) is the largest (prefix[b] − prefix[a]) among them — the slowest of the replicas'
    // devices that stage runs on.
    std::vector<std::vector<std::shared_ptr<const std::vector<double>>>> stagePrefix;
    // cut[s][i] (s < k−1, 0 < i < L): time of the p2p between stage s and s+1 when stage s+1 starts at
    // layer i.
    std::vector<std::vector<double>> cut;
    // Optional: allowed[(s·(L+1) + a)·(L+1) + b] = 0 forbids stage s to hold layers [a, b) (e.g. it would
    // not fit GPU memory). Empty = everything allowed.
    std::vector<char> allowed;
    // Optional, the same as a mask of a form memory gives, in O(k·L) instead of O(k·L²) bytes: stage s may
    // hold [a, b) only if b ≤ lastEnd[s][a]. Empty = no limit.
    std::vector<std::vector<int>> lastEnd;
    // Optional: polled between and inside the passes of solveLayerSplit's threshold walk (each finished
    // pass yields a valid split that improves on the last; a stopped one yields none) and by the paper's
    // DP; when it returns true the walk returns the best split so far.
    std::function<bool()> stop;
    // Optional (solveLayerSplit only): the walk returns as soon as it holds a split cheaper than this,
    // with LayerSplit::belowGoal set (the memory repair only needs to know that the unconstrained optimum
    // beats every split that fits).
    double goal = -std::numeric_limits<double>::infinity();

    double stageTime(int s, int a, int b) const;
    bool allows(int s, int a, int b) const
    {
        return (allowed.empty() || allowed[(size_t(s) * (layers + 1) + a) * (layers + 1) + b]) &&
               (lastEnd.empty() || b <= lastEnd[size_t(s)][size_t(a)]);
    }
    bool restricted() const { return !allowed.empty() || !lastEnd.empty(); }
    // A problem with one per-layer time vector per stage (tests, simple callers).
    static PipelineProblem fromLayerTimes(const std::vector<std::vector<double>>& perStageLayerTimes,
                                          std::vector<std::vector<double>> cut, int gas);
};

struct LayerSplit {
    std::vector<int> bounds;   // k+1 entries, 0 = b_0 < b_1 < … < b_k = L; empty if no split exists
    double cost = 0;           // eq. 5 of that split
    long long evaluations = 0; // inner-loop steps taken (for complexity reports)
    bool belowGoal = false;    // solveLayerSplit returned early with a split cheaper than the goal
};

// Eq. 5 for a given split.
double pipelineCost(const PipelineProblem& p, const std::vector<int>& bounds);

// The paper's dynamic program, eq. 6-8: dp[i][j][m] is the best eq.-6 cost of the first i layers in j
// stages with tolerance m, m ranging over 0 and every possible stage time; the answer is dp[L][k][0].
// O(k·L²·|M|) time with |M| = O(k·L²) stage-time values, so O(k²·L⁴) here since stages differ.
LayerSplit solveLayerSplitAmp(const PipelineProblem& p);

// The same optimum, faster. For a bound m on the largest stage time, a plain O(k·L²) DP gives the
// smallest Σt + Σe among splits whose stages all take ≤ m (call it S(m); non-increasing in m). The answer
// is min over m of (gas−1)·m + S(m). We walk m downwards over the stage-time values: solve at m, take
// the split's actual maximum m' ≤ m (every threshold in [m', m] has the same S), and continue just below
// m'. Each step lands on a new point of the (max stage, Σ) Pareto front, so the number of O(k·L²) DPs is
// the size of that front (usually a handful) instead of |M|; the walk stops when no split fits or when
// the lower bound (gas−1)·m_lb + S(m) cannot beat the best found. Worst case O(k²·L⁴), typically O(k·L²).
LayerSplit solveLayerSplit(const PipelineProblem& p);

// Whether some split puts each stage s on layers [a, b) with b ≤ lastEnd[s][a] (k rows of L+1 entries;
// lastEnd[s][a] ≤ a: stage s cannot start at a). The ranges a stage may hold from a given first layer
// form a prefix, as memory does (AmpCostModel::memoryLimits). O(k·L).
bool hasSplitWithinLimits(const std::vector<std::vector<int>>& lastEnd, int layers);

// All three solvers honour PipelineProblem::allowed and lastEnd.
// Exhaustive search over all C(L−1, k−1) splits (tests only; exponential).
LayerSplit solveLayerSplitBruteForce(const PipelineProblem& p);

} // namespace hetplan
