#include "degrees.h"

#include "core/model/frameworks.h"

#include <algorithm>
#include <numeric>

namespace hetplan {

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

std::vector<int> allowedTensorDegrees(const ModelSpec& model, const Cluster& cluster, bool crossNode)
{
    int largestNode = 0;
    for (const Node& n : cluster.nodes)
        largestNode = std::max(largestNode, n.gpus);
    std::vector<int> out;
    for (int tp : crossNode ? divisors(cluster.gpuCount()) : intraNodeTensorDegrees(cluster))
        if (tp <= largestNode && tensorParallelProblem(model, tp).empty())
            out.push_back(tp);
    return out;
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
} // namespace hetplan
