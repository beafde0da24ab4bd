#include "stage_map_layout.h"

#include "view_util.h"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace hetplan {

namespace {

// The texts are the stage map view's own (one translation context).
QString stageMapText(const char* s) { return QCoreApplication::translate("StageMapView", s); }

// What the plan has one GPU do.
struct Role {
    int colourKey = -1;
    QStringList lines;
    QString detail;
};

QStringList parallelism(const Pipeline& pl, const Stage& st, int i)
{
    // Alone a part is written out; several share a narrow cell in the Gantt rows' short forms
    // ("r3 · tp0/2"), whole in the cell's tooltip.
    const int replica = i / std::max(1, st.tensorParallel * st.dataParallel);
    const int parts = (pl.replicas > 1) + (st.tensorParallel > 1) + (st.dataParallel > 1);
    const bool brief = parts > 1;
    QStringList par;
    if (pl.replicas > 1)
        par << (brief ? QStringLiteral("r%1").arg(replica) : stageMapText("replica %1").arg(replica));
    if (st.tensorParallel > 1)
        par << (brief ? QStringLiteral("tp%1/%2") : stageMapText("tp %1/%2"))
                   .arg(i % st.tensorParallel)
                   .arg(st.tensorParallel);
    if (st.dataParallel > 1)
        par << (brief ? QStringLiteral("dp%1") : stageMapText("dp %1")).arg(st.dataParallel);
    return par;
}

// Colour key = the stage's index, flattened over the pipelines.
void pipelineRoles(const Plan& plan, std::vector<Role>& roles, std::vector<StageMapLegendEntry>& legend)
{
    const bool manyPipelines = plan.pipelines.size() > 1;
    int flat = 0;
    for (size_t p = 0; p < plan.pipelines.size(); ++p) {
        const Pipeline& pl = plan.pipelines[p];
        for (size_t s = 0; s < pl.stages.size(); ++s, ++flat) {
            const Stage& st = pl.stages[s];
            // Interleaved stages list their chunks' layers ("[4,7) + [16,19)").
            const QString range = QString::fromStdString(pl.stageLayersText(plan.model, int(s)));
            const QString stageName =
                (manyPipelines ? QStringLiteral("P%1 ").arg(p) : QString()) + stageMapText("stage %1").arg(s);
            legend.push_back({stageName + QLatin1Char(' ') + range, flat});
            for (size_t i = 0; i < st.gpus.size(); ++i) {
                const int g = st.gpus[i];
                if (g < 0 || g >= int(roles.size()))
                    continue;
                Role& r = roles[g];
                r.colourKey = flat;
                r.lines = {stageName, stageMapText("layers %1").arg(range)};
                if (const QStringList par = parallelism(pl, st, int(i)); !par.isEmpty())
                    r.lines << par.join(QStringLiteral(" · "));
                r.detail = stageMapText("%1, layers %2 (%3 layers), micro-batch %4 × %5")
                               .arg(stageName, range)
                               .arg(st.layerCount())
                               .arg(pl.microBatchSize)
                               .arg(pl.microBatches);
            }
        }
    }
}

Role zeroRole(const ZeroPlan& zero, const ZeroGpu& z, int colourKey)
{
    Role r;
    r.colourKey = colourKey;
    r.lines = {z.accumulationSteps == 1
                   ? stageMapText("mbs %1 × 1 step").arg(z.microBatchSize)
                   : stageMapText("mbs %1 × %2 steps").arg(z.microBatchSize).arg(z.accumulationSteps),
               stageMapText("%1 samples").arg(z.samples())};
    if (z.lastMicroBatchSize != z.microBatchSize && z.accumulationSteps > 0)
        r.lines << stageMapText("last %1").arg(z.lastMicroBatchSize);
    r.detail = stageMapText("ZeRO-%1: micro-batch %2, %3 steps (last %4), %5 samples")
                   .arg(zero.stage)
                   .arg(z.microBatchSize)
                   .arg(z.accumulationSteps)
                   .arg(z.lastMicroBatchSize)
                   .arg(z.samples());
    return r;
}

// Colour key = the micro-batch size's rank among the plan's sizes (smallest first).
void zeroRoles(const ZeroPlan& zero, std::vector<Role>& roles, std::vector<StageMapLegendEntry>& legend)
{
    std::set<int> sizes;
    for (const ZeroGpu& z : zero.gpus)
        sizes.insert(z.microBatchSize);
    std::map<int, int> colourOf;
    for (int mbs : sizes) {
        const int k = int(colourOf.size());
        colourOf[mbs] = k;
        legend.push_back({stageMapText("micro-batch %1").arg(mbs), k});
    }
    for (const ZeroGpu& z : zero.gpus)
        if (z.gpu >= 0 && z.gpu < int(roles.size()))
            roles[z.gpu] = zeroRole(zero, z, colourOf[z.microBatchSize]);
}

// SPMD (HAP): every GPU runs the program; colour = its mean sharding ratio across segments (rank among the
// plan's distinct means, smallest first); the text gives the mean and range over segments.
void spmdRoles(const SpmdPlan& sp, std::vector<Role>& roles, std::vector<StageMapLegendEntry>& legend)
{
    if (sp.shardingRatios.empty())
        return;
    std::vector<double> mean(roles.size(), 0), lo(roles.size(), 1), hi(roles.size(), 0);
    for (const auto& row : sp.shardingRatios)
        for (size_t g = 0; g < roles.size() && g < row.size(); ++g) {
            mean[g] += row[g] / double(sp.shardingRatios.size());
            lo[g] = std::min(lo[g], row[g]);
            hi[g] = std::max(hi[g], row[g]);
        }
    std::map<long long, int> colourOf; // mean in units of 0.01 %
    for (double m : mean)
        colourOf.emplace(std::llround(m * 1e4), 0);
    int k = 0;
    for (auto& [key, colour] : colourOf) {
        colour = k++;
        legend.push_back({stageMapText("ratio %1 %").arg(double(key) / 100, 0, 'f', 2), colour});
    }
    for (size_t g = 0; g < roles.size(); ++g) {
        Role& r = roles[g];
        r.colourKey = colourOf[std::llround(mean[g] * 1e4)];
        r.lines = {stageMapText("ratio %1 %").arg(100 * mean[g], 0, 'f', 2)};
        if (hi[g] - lo[g] > 1e-9)
            r.lines << stageMapText("%1–%2 %").arg(100 * lo[g], 0, 'f', 1).arg(100 * hi[g], 0, 'f', 1);
        r.detail = stageMapText("SPMD: mean sharding ratio %1 % over %2 segments (%3 % to %4 %)")
                       .arg(100 * mean[g], 0, 'f', 3)
                       .arg(sp.shardingRatios.size())
                       .arg(100 * lo[g], 0, 'f', 3)
                       .arg(100 * hi[g], 0, 'f', 3);
    }
}

void addMemory(StageMapCell& c, const SimResult& result, double capacity)
{
    auto peak = result.peakMemoryBytes.find(c.gpu);
    if (c.colourKey < 0 || peak == result.peakMemoryBytes.end())
        return;
    c.used = peak->second;
    c.capacity = capacity;
    c.memoryText = capacity > 0
                       ? QStringLiteral("%1/%2 GiB").arg(viewutil::formatGiB(c.used), viewutil::formatGiB(capacity, 0))
                       : QStringLiteral("%1 GiB").arg(viewutil::formatGiB(c.used));
}

StageMapCell cellFor(const Cluster& cluster, int g, const Role& role, const SimResult& result,
                     const std::vector<std::string>& types)
{
    const GpuRef ref = cluster.gpu(g);
    const Node& node = cluster.nodes[ref.node];
    StageMapCell c;
    c.gpu = g;
    c.row = ref.node;
    c.column = ref.local;
    c.colourKey = role.colourKey;
    const bool used = role.colourKey >= 0;
    c.lines = used ? role.lines : QStringList{stageMapText("unused")};
    c.lines << viewutil::shortDevice(node.deviceType, types);
    const DeviceType* dev = DeviceCatalog::builtin().find(node.deviceType);
    const double capacity = dev ? dev->memoryBytes : 0;
    addMemory(c, result, capacity);
    QStringList tip{QStringLiteral("<b>%1</b> (%2)")
                        .arg(QString::fromStdString(cluster.gpuName(g)), QString::fromStdString(node.deviceType))};
    tip << (used ? role.detail : stageMapText("not used by this plan"));
    if (c.used >= 0)
        tip << stageMapText("peak memory %1 GiB of %2 GiB%3")
                   .arg(viewutil::formatGiB(c.used, 2), viewutil::formatGiB(capacity, 1),
                        c.overCapacity() ? stageMapText(" — over capacity") : QString());
    c.toolTip = tip.join(QStringLiteral("<br>"));
    return c;
}

void axisLabels(const Cluster& cluster, const std::vector<std::string>& types, StageMapLayout& layout)
{
    for (const Node& n : cluster.nodes)
        layout.columns = std::max(layout.columns, n.gpus);
    layout.rows = int(cluster.nodes.size());
    for (int c = 0; c < layout.columns; ++c)
        layout.columnLabels.push_back(stageMapText("GPU %1").arg(c));
    for (const Node& n : cluster.nodes)
        layout.rowLabels.push_back(viewutil::withDevice(n.name, n.deviceType, types));
}

// "0–7, 9, 12–15": local GPU indices as ranges.
QString rangesText(const std::vector<int>& sorted)
{
    QStringList parts;
    for (size_t i = 0; i < sorted.size();) {
        size_t j = i;
        while (j + 1 < sorted.size() && sorted[j + 1] == sorted[j] + 1)
            ++j;
        parts << (j == i ? QString::number(sorted[i]) : QStringLiteral("%1–%2").arg(sorted[i]).arg(sorted[j]));
        i = j + 1;
    }
    return parts.join(QStringLiteral(", "));
}

QString tileToolTip(const Node& node, const std::vector<int>& cellIndices, const std::vector<StageMapCell>& cells)
{
    QStringList tip{stageMapText("<b>%1</b> (%2) · %3 GPUs")
                        .arg(QString::fromStdString(node.name), QString::fromStdString(node.deviceType))
                        .arg(node.gpus)};
    // What the plan puts on which local GPUs, by role (the cell's first line), in order of first use.
    std::vector<std::pair<QString, std::vector<int>>> roles;
    double peak = -1, capacity = 0;
    for (int i : cellIndices) {
        const StageMapCell& c = cells[size_t(i)];
        const QString role = c.colourKey < 0 ? stageMapText("unused") : c.lines.value(0);
        auto it = std::find_if(roles.begin(), roles.end(), [&](const auto& r) { return r.first == role; });
        if (it == roles.end())
            roles.push_back({role, {c.column}});
        else
            it->second.push_back(c.column);
        peak = std::max(peak, c.used);
        capacity = std::max(capacity, c.capacity);
    }
    for (const auto& [role, gpus] : roles)
        tip << stageMapText("%1: GPU %2").arg(role, rangesText(gpus));
    if (peak >= 0)
        tip << stageMapText("highest peak memory %1 GiB of %2 GiB")
                   .arg(viewutil::formatGiB(peak, 2), viewutil::formatGiB(capacity, 1));
    return tip.join(QStringLiteral("<br>"));
}

// Tiles in a grid about 1.6 times as wide as high (the shape of a plot area), GPU squares near-square.
void tileByNode(const Cluster& cluster, const std::vector<std::string>& types, StageMapLayout& layout)
{
    layout.mixedDevices = types.size() > 1;
    const int nodes = int(cluster.nodes.size());
    layout.byNode = true;
    layout.tileColumns = std::max(1, int(std::ceil(std::sqrt(nodes * 1.6))));
    layout.tileRows = (nodes + layout.tileColumns - 1) / layout.tileColumns;
    const int most = std::max(1, layout.columns);
    layout.innerColumns = int(std::ceil(std::sqrt(double(most))));
    layout.innerRows = (most + layout.innerColumns - 1) / layout.innerColumns;
    std::vector<std::vector<int>> cellsOfNode(static_cast<size_t>(nodes));
    for (size_t i = 0; i < layout.cells.size(); ++i)
        cellsOfNode[size_t(layout.cells[i].row)].push_back(int(i));
    for (int n = 0; n < nodes; ++n) {
        StageMapNodeTile t;
        t.node = n;
        t.row = n / layout.tileColumns;
        t.column = n % layout.tileColumns;
        t.label = QString::fromStdString(cluster.nodes[size_t(n)].name);
        t.device = viewutil::shortDevice(cluster.nodes[size_t(n)].deviceType, types);
        t.cells = cellsOfNode[size_t(n)];
        t.toolTip = tileToolTip(cluster.nodes[size_t(n)], t.cells, layout.cells);
        layout.tiles.push_back(std::move(t));
    }
}

} // namespace

QRectF StageMapLayout::tileRect(const StageMapNodeTile& t) const
{
    using namespace tilegeom;
    return QRectF(t.column + inset, t.row + inset, 1 - 2 * inset, 1 - 2 * inset);
}

QRectF StageMapLayout::gpuRect(const StageMapNodeTile& t, int slot) const
{
    using namespace tilegeom;
    const QRectF tile = tileRect(t);
    const double slotW = tile.width() / std::max(1, innerColumns);
    const double slotH = (tile.height() - header) / std::max(1, innerRows);
    const int r = slot / std::max(1, innerColumns), c = slot % std::max(1, innerColumns);
    return QRectF(tile.left() + c * slotW + gap * slotW / 2, tile.top() + header + r * slotH + gap * slotH / 2,
                  slotW * (1 - gap), slotH * (1 - gap));
}

StageMapLayout layoutStageMap(const Plan& plan, const SimResult& result, int nodeTilesFrom)
{
    StageMapLayout layout;
    const Cluster& cluster = plan.cluster;
    const auto types = viewutil::deviceTypes(cluster);
    std::vector<Role> roles(size_t(cluster.gpuCount()));
    pipelineRoles(plan, roles, layout.legend);
    if (plan.zero)
        zeroRoles(*plan.zero, roles, layout.legend);
    if (plan.kind() == PlanKind::Spmd)
        spmdRoles(*plan.spmd, roles, layout.legend);
    layout.zero = plan.zero.has_value();
    for (int g = 0; g < int(roles.size()); ++g) {
        layout.cells.push_back(cellFor(cluster, g, roles[g], result, types));
        layout.anyUnused |= roles[g].colourKey < 0;
        layout.overCapacity += layout.cells.back().overCapacity() ? 1 : 0;
    }
    axisLabels(cluster, types, layout);
    if (cluster.gpuCount() >= nodeTilesFrom)
        tileByNode(cluster, types, layout);
    layout.colourMeaning = plan.zero ? stageMapText("ZeRO-%1, colour = micro-batch size").arg(plan.zero->stage)
                           : plan.kind() == PlanKind::Spmd ? stageMapText("SPMD, colour = sharding ratio")
                                                           : stageMapText("colour = pipeline stage");
    return layout;
}

} // namespace hetplan
