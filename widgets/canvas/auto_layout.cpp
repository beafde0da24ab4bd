#include "auto_layout.h"

#include "device_style.h"

#include "core/model/device.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace hetplan {

std::vector<QPointF> autoLayoutPositions(const Cluster& cluster, int columns)
{
    const size_t n = cluster.nodes.size();
    std::vector<QPointF> pos(n);
    if (n == 0)
        return pos;
    if (columns <= 0)
        columns = std::max(3, int(std::ceil(std::sqrt(double(n)))));

    // Group node indices by type, groups in first-appearance order, then sorted by speed.
    std::vector<std::string> types;
    std::map<std::string, std::vector<size_t>> groups;
    int maxGpus = 1;
    for (size_t i = 0; i < n; ++i) {
        const std::string& t = cluster.nodes[i].deviceType;
        if (!groups.count(t))
            types.push_back(t);
        groups[t].push_back(i);
        maxGpus = std::max(maxGpus, cluster.nodes[i].gpus);
    }
    const auto flops = [](const std::string& t) {
        const DeviceType* d = DeviceCatalog::builtin().find(t);
        return d ? d->peakFlops : 0.0;
    };
    std::stable_sort(types.begin(), types.end(), [&](const std::string& a, const std::string& b) {
        const double fa = flops(a), fb = flops(b);
        return fa != fb ? fa > fb : a < b;
    });

    // Room between boxes for link labels.
    const double dx = nodebox::width + 56;
    const double dy = nodebox::height(maxGpus) + 56;
    int row = 0;
    for (const std::string& t : types) {
        const std::vector<size_t>& g = groups[t];
        for (size_t k = 0; k < g.size(); ++k) {
            if (k > 0 && k % size_t(columns) == 0)
                ++row;
            pos[g[k]] = QPointF(double(k % size_t(columns)) * dx, row * dy);
        }
        ++row;
    }
    return pos;
}

} // namespace hetplan
