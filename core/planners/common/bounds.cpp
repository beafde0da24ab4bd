#include "bounds.h"

#include "core/model/model.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace hetplan {

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

std::vector<int> blockBounds(const ModelSpec& model, int stages)
{
    std::vector<int> blocks; // layer index of each block
    for (int l = 0; l < model.layerCount(); ++l)
        if (model.layers[l].kind == LayerKind::Transformer || model.layers[l].kind == LayerKind::MoE)
            blocks.push_back(l);
    if (int(blocks.size()) < stages)
        return uniformBounds(model.layerCount(), stages);
    const std::vector<int> perStage = uniformBounds(int(blocks.size()), stages); // bounds in block numbers
    std::vector<int> b(stages + 1, 0);
    for (int s = 1; s < stages; ++s)
        b[s] = blocks[perStage[s]];
    b[stages] = model.layerCount();
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
} // namespace hetplan
