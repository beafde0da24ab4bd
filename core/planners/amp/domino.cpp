#include "domino.h"

#include "core/planners/common/degrees.h"

#include <algorithm>

namespace hetplan {

std::optional<Placement> randomDominoPlacement(const Cluster& cluster, Degrees d, std::mt19937_64& rng,
                                               bool intraNodeTensor, int attempts)
{
    const int cells = d.tp * d.dp;
    const int columns = int(cluster.nodes.size());
    std::vector<int> offsets = cluster.nodeOffsets();
    int maxHeight = 0;
    for (const Node& n : cluster.nodes)
        maxHeight = std::max(maxHeight, n.gpus);
    std::vector<std::pair<int, int>> shapes; // (h, w)
    for (int h : divisors(cells))
        if (h <= maxHeight && cells / h <= columns && (!intraNodeTensor || h % d.tp == 0))
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
                        const int q = x * h + y; // walk down each column, tp rank fastest
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
} // namespace hetplan
