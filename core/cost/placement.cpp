#include "placement.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace hetplan {

std::vector<int> Placement::stageGpus(int s) const
{
    const size_t per = size_t(degrees.dp) * degrees.tp;
    return {gpus.begin() + s * per, gpus.begin() + (s + 1) * per};
}

std::vector<int> Placement::tensorGroup(int s, int r) const
{
    std::vector<int> g(degrees.tp);
    for (int t = 0; t < degrees.tp; ++t)
        g[t] = at(s, r, t);
    return g;
}

std::vector<int> Placement::dataGroup(int s, int t) const
{
    std::vector<int> g(degrees.dp);
    for (int r = 0; r < degrees.dp; ++r)
        g[r] = at(s, r, t);
    return g;
}

std::vector<int> divisors(int n)
{
    std::vector<int> small, large;
    for (int i = 1; (long long)i * i <= n; ++i)
        if (n % i == 0) {
            small.push_back(i);
            if (i != n / i)
                large.push_back(n / i);
        }
    small.insert(small.end(), large.rbegin(), large.rend());
    return small;
}

std::vector<int> intraNodeTensorDegrees(const Cluster& cluster)
{
    int g = 0;
    for (const Node& n : cluster.nodes)
        g = std::gcd(g, n.gpus);
    return g > 0 ? divisors(g) : std::vector<int>{};
}

std::vector<Degrees> enumerateDegrees(int gpus, int layers, int globalBatch, const std::vector<int>& tps)
{
    std::vector<Degrees> out;
    for (int tp : tps) {
        if (tp < 1 || gpus % tp != 0)
            continue;
        for (int dp : divisors(gpus / tp)) {
            const int pp = gpus / tp / dp;
            if (pp > layers || globalBatch % dp != 0)
                continue;
            out.push_back({pp, dp, tp});
        }
    }
    return out;
}

Placement megatronPlacement(const Cluster& cluster, Degrees d)
{
    Placement p{d, std::vector<int>(size_t(d.pp) * d.dp * d.tp)};
    std::iota(p.gpus.begin(), p.gpus.end(), 0);
    return p;
}

Placement randomPlacement(const Cluster& cluster, Degrees d, std::mt19937_64& rng)
{
    Placement p = megatronPlacement(cluster, d);
    std::shuffle(p.gpus.begin(), p.gpus.end(), rng);
    return p;
}

std::optional<Placement> randomDominoPlacement(const Cluster& cluster, Degrees d, std::mt19937_64& rng, int attempts)
{
    const int cells = d.tp * d.dp;
    const int columns = int(cluster.nodes.size());
    std::vector<int> offsets = cluster.nodeOffsets();
    int maxHeight = 0;
    for (const Node& n : cluster.nodes)
        maxHeight = std::max(maxHeight, n.gpus);
    std::vector<std::pair<int, int>> shapes;   // (h, w)
    for (int h : divisors(cells))
        if (h <= maxHeight && cells / h <= columns)
            shapes.push_back({h, cells / h});
    if (shapes.empty() || cells * d.pp != cluster.gpuCount())
        return std::nullopt;

    for (int attempt = 0; attempt < attempts; ++attempt) {
        std::vector<std::vector<char>> used(columns);
        for (int c = 0; c < columns; ++c)
            used[c].assign(cluster.nodes[c].gpus, 0);
        Placement p{d, std::vector<int>(size_t(cells) * d.pp)};
        bool ok = true;
        for (int s = 0; s < d.pp && ok; ++s) {
            // Anchor: first free cell, column-major.
            int ax = -1, ay = -1;
            for (int c = 0; c < columns && ax < 0; ++c)
                for (int y = 0; y < int(used[c].size()); ++y)
                    if (!used[c][y]) {
                        ax = c, ay = y;
                        break;
                    }
            std::vector<std::pair<int, int>> order = shapes;
            std::shuffle(order.begin(), order.end(), rng);
            ok = false;
            for (auto [h, w] : order) {
                bool fits = ax + w <= columns;
                for (int x = 0; fits && x < w; ++x)
                    for (int y = 0; fits && y < h; ++y)
                        fits = ay + y < int(used[ax + x].size()) && !used[ax + x][ay + y];
                if (!fits)
                    continue;
                for (int x = 0; x < w; ++x)
                    for (int y = 0; y < h; ++y) {
                        used[ax + x][ay + y] = 1;
                        const int q = x * h + y;   // walk down each column, tp rank fastest
                        p.gpus[size_t(s) * cells + q] = offsets[ax + x] + ay + y;
                    }
                ok = true;
                break;
            }
        }
        if (ok)
            return p;
    }
    return std::nullopt;
}

std::vector<int> randomBounds(int layers, int stages, std::mt19937_64& rng)
{
    std::vector<int> cuts(std::max(0, layers - 1));
    std::iota(cuts.begin(), cuts.end(), 1);
    std::shuffle(cuts.begin(), cuts.end(), rng);
    std::vector<int> b(cuts.begin(), cuts.begin() + (stages - 1));
    std::sort(b.begin(), b.end());
    b.insert(b.begin(), 0);
    b.push_back(layers);
    return b;
}

std::vector<int> uniformBounds(int layers, int stages)
{
    std::vector<int> b(stages + 1, 0);
    const int base = layers / stages, extra = layers % stages;
    for (int s = 0; s < stages; ++s)
        b[s + 1] = b[s] + base + (s >= stages - extra ? 1 : 0);
    return b;
}

std::vector<int> balancedBounds(const std::vector<double>& weights, int stages)
{
    // Min-max contiguous partition by DP over (stage, end): O(k·L²), fine for model sizes.
    const int L = int(weights.size());
    std::vector<double> pre(L + 1, 0);
    for (int i = 0; i < L; ++i)
        pre[i + 1] = pre[i] + weights[i];
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<std::vector<double>> f(stages, std::vector<double>(L + 1, inf));
    std::vector<std::vector<int>> arg(stages, std::vector<int>(L + 1, 0));
    for (int b = 1; b <= L; ++b)
        f[0][b] = pre[b];
    for (int s = 1; s < stages; ++s)
        for (int b = s + 1; b <= L; ++b)
            for (int a = s; a < b; ++a) {
                const double v = std::max(f[s - 1][a], pre[b] - pre[a]);
                if (v <= f[s][b]) {
                    f[s][b] = v;
                    arg[s][b] = a;
                }
            }
    std::vector<int> bounds(stages + 1, 0);
    bounds[stages] = L;
    for (int s = stages - 1; s >= 1; --s)
        bounds[s] = arg[s][bounds[s + 1]];
    return bounds;
}

Pipeline makePipeline(const Placement& p, int microBatchSize, int microBatches, const std::vector<int>& bounds)
{
    Pipeline pl;
    pl.replicas = p.degrees.dp;
    pl.microBatchSize = microBatchSize;
    pl.microBatches = microBatches;
    for (int s = 0; s < p.degrees.pp; ++s) {
        Stage st;
        st.firstLayer = bounds[s];
        st.endLayer = bounds[s + 1];
        st.gpus = p.stageGpus(s);
        st.tensorParallel = p.degrees.tp;
        st.dataParallel = 1;
        pl.stages.push_back(std::move(st));
    }
    return pl;
}

Plan strategyPlan(const Strategy& s, const Cluster& cluster, const ModelSpec& model, const Job& job)
{
    Plan plan;
    plan.cluster = cluster;
    plan.model = model;
    plan.job = job;
    plan.pipelines.push_back(makePipeline(s.placement, s.microBatchSize, s.microBatches, s.bounds));
    plan.plannerEstimate = s.plannerCost;
    return plan;
}

Candidate strategyCandidate(const Strategy& s)
{
    Candidate c;
    c.pp = s.placement.degrees.pp;
    c.dp = s.placement.degrees.dp;
    c.tp = s.placement.degrees.tp;
    c.microBatchSize = s.microBatchSize;
    for (size_t i = 0; i + 1 < s.bounds.size(); ++i)
        c.layersPerStage.push_back(s.bounds[i + 1] - s.bounds[i]);
    c.plannerCost = s.plannerCost;
    return c;
}

Plan pickBySimulation(const std::vector<Strategy>& strategies, const Cluster& cluster, const ModelSpec& model,
                      const Job& job, const std::function<void(Plan&)>& score,
                      const std::function<void()>& checkpoint, std::vector<Candidate>& candidates)
{
    candidates.clear();
    Plan best;
    bool have = false;
    for (const Strategy& s : strategies) {
        if (checkpoint)
            checkpoint();
        Plan plan = strategyPlan(s, cluster, model, job);
        score(plan);
        Candidate c = strategyCandidate(s);
        c.simulatedCost = plan.estimate.iterationSeconds;
        candidates.push_back(c);
        const bool better = !have || (plan.estimate.feasible && !best.estimate.feasible) ||
                            (plan.estimate.feasible == best.estimate.feasible &&
                             plan.estimate.iterationSeconds < best.estimate.iterationSeconds);
        if (better) {
            best = std::move(plan);
            have = true;
        }
    }
    return best;
}

std::vector<int> evenSplit(int layers, int stages) { return uniformBounds(layers, stages); }

Pipeline megatronPipeline(int dp, int tp, const std::vector<int>& bounds, int microBatchSize, int microBatches)
{
    const Degrees d{int(bounds.size()) - 1, dp, tp};
    Placement p{d, std::vector<int>(size_t(d.pp) * d.dp * d.tp)};
    std::iota(p.gpus.begin(), p.gpus.end(), 0);
    return makePipeline(p, microBatchSize, microBatches, bounds);
}

} // namespace hetplan
