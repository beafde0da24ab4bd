#include "stage_map_view.h"

#include "cell_grid_plottable.h"
#include "legend_swatch.h"
#include "row_ticker.h"
#include "view_util.h"
#include "widgets/common/palette.h"

#include <qcustomplot.h>

#include <algorithm>
#include <map>
#include <set>

namespace hetplan {

StageMapView::StageMapView(QWidget* parent)
    : PlotView(tr("Run a planner to see which GPUs hold which pipeline stage."), parent)
{
}

void StageMapView::clear()
{
    grid_ = nullptr;
    overCapacity_ = 0;
    PlotView::clear();
}

int StageMapView::cellCount() const { return grid_ ? int(grid_->cells().size()) : 0; }

QString StageMapView::cellText(int gpu) const
{
    if (!grid_ || gpu < 0 || gpu >= int(grid_->cells().size()))
        return {};
    return grid_->cells()[gpu].toolTip;
}

void StageMapView::setPlan(const Plan& plan, const SimResult& result)
{
    clear();
    const Cluster& cluster = plan.cluster;
    const int gpus = cluster.gpuCount();
    if (gpus == 0)
        return;
    const auto types = viewutil::deviceTypes(cluster);
    const DeviceCatalog& catalog = DeviceCatalog::builtin();

    // What each GPU does: stage (flattened over pipelines) or ZeRO batch.
    struct Role {
        int stage = -1;          // flattened stage index
        QStringList lines;
        QString detail;
        int colourKey = -1;
    };
    std::vector<Role> roles(gpus);
    struct LegendEntry {
        QString name;
        QColor colour;
    };
    std::vector<LegendEntry> legend;
    const bool manyPipelines = plan.pipelines.size() > 1;
    int flat = 0;
    for (size_t p = 0; p < plan.pipelines.size(); ++p) {
        const Pipeline& pl = plan.pipelines[p];
        for (size_t s = 0; s < pl.stages.size(); ++s, ++flat) {
            const Stage& st = pl.stages[s];
            const QString range = QStringLiteral("[%1,%2)").arg(st.firstLayer).arg(st.endLayer);
            const QString stageName = (manyPipelines ? QStringLiteral("P%1 ").arg(p) : QString()) + tr("stage %1").arg(s);
            legend.push_back({stageName + QLatin1Char(' ') + range, palette::stageColor(flat)});
            const int perReplica = std::max(1, st.tensorParallel * st.dataParallel);
            for (size_t i = 0; i < st.gpus.size(); ++i) {
                const int g = st.gpus[i];
                if (g < 0 || g >= gpus)
                    continue;
                Role& r = roles[g];
                r.stage = flat;
                r.colourKey = flat;
                r.lines = {stageName, tr("layers %1").arg(range)};
                QStringList par;
                if (pl.replicas > 1)
                    par << tr("replica %1").arg(int(i) / perReplica);
                if (st.tensorParallel > 1)
                    par << tr("tp %1/%2").arg(int(i) % st.tensorParallel).arg(st.tensorParallel);
                if (st.dataParallel > 1)
                    par << tr("dp %1").arg(st.dataParallel);
                if (!par.isEmpty())
                    r.lines << par.join(QStringLiteral(" · "));
                r.detail = tr("%1, layers %2 (%3 layers), micro-batch %4 × %5")
                               .arg(stageName, range)
                               .arg(st.layerCount())
                               .arg(pl.microBatchSize)
                               .arg(pl.microBatches);
            }
        }
    }
    if (plan.zero) {
        std::set<int> sizes;
        for (const ZeroGpu& z : plan.zero->gpus)
            sizes.insert(z.microBatchSize);
        std::map<int, int> colourOf;
        for (int mbs : sizes) {
            const int k = int(colourOf.size());
            colourOf[mbs] = k;
            legend.push_back({tr("micro-batch %1").arg(mbs), palette::okabeIto(k)});
        }
        for (const ZeroGpu& z : plan.zero->gpus) {
            if (z.gpu < 0 || z.gpu >= gpus)
                continue;
            Role& r = roles[z.gpu];
            r.colourKey = colourOf[z.microBatchSize];
            r.lines = {z.accumulationSteps == 1 ? tr("mbs %1 × 1 step").arg(z.microBatchSize)
                                                : tr("mbs %1 × %2 steps").arg(z.microBatchSize).arg(z.accumulationSteps),
                       tr("%1 samples").arg(z.samples())};
            if (z.lastMicroBatchSize != z.microBatchSize && z.accumulationSteps > 0)
                r.lines << tr("last %1").arg(z.lastMicroBatchSize);
            r.detail = tr("ZeRO-%1: micro-batch %2, %3 steps (last %4), %5 samples")
                           .arg(plan.zero->stage)
                           .arg(z.microBatchSize)
                           .arg(z.accumulationSteps)
                           .arg(z.lastMicroBatchSize)
                           .arg(z.samples());
        }
    }

    int columns = 0;
    for (const Node& n : cluster.nodes)
        columns = std::max(columns, n.gpus);
    std::vector<GridCell> cells;
    cells.reserve(gpus);
    overCapacity_ = 0;
    bool anyUnused = false;
    for (int g = 0; g < gpus; ++g) {
        const GpuRef ref = cluster.gpu(g);
        const Node& node = cluster.nodes[ref.node];
        const Role& role = roles[g];
        GridCell c;
        c.row = ref.node;
        c.column = ref.local;
        const bool used = role.colourKey >= 0;
        anyUnused |= !used;
        c.fill = !used ? palette::unusedGpu()
                       : (plan.zero ? palette::okabeIto(role.colourKey) : palette::stageColor(role.colourKey));
        c.dim = !used;
        c.lines = used ? role.lines : QStringList{tr("unused")};
        c.lines << viewutil::shortDevice(node.deviceType, types);
        const DeviceType* dev = catalog.find(node.deviceType);
        const double capacity = dev ? dev->memoryBytes : 0;
        auto peak = result.peakMemoryBytes.find(g);
        if (used && peak != result.peakMemoryBytes.end()) {
            c.used = peak->second;
            c.capacity = capacity;
            c.memoryText = capacity > 0 ? QStringLiteral("%1/%2 GiB").arg(viewutil::formatGiB(c.used),
                                                                          viewutil::formatGiB(capacity, 0))
                                        : QStringLiteral("%1 GiB").arg(viewutil::formatGiB(c.used));
            if (capacity > 0 && c.used > capacity)
                ++overCapacity_;
        }
        QStringList tip{QStringLiteral("<b>%1</b> (%2)").arg(QString::fromStdString(cluster.gpuName(g)),
                                                           QString::fromStdString(node.deviceType))};
        tip << (used ? role.detail : tr("not used by this plan"));
        if (c.used >= 0)
            tip << tr("peak memory %1 GiB of %2 GiB%3")
                       .arg(viewutil::formatGiB(c.used, 2), viewutil::formatGiB(capacity, 1),
                            capacity > 0 && c.used > capacity ? tr(" — over capacity") : QString());
        c.toolTip = tip.join(QStringLiteral("<br>"));
        cells.push_back(std::move(c));
    }

    QCustomPlot* p = newPlot();
    QCPAxis* x = p->xAxis;
    QCPAxis* y = p->yAxis;
    grid_ = new CellGridPlottable(x, y);
    grid_->removeFromLegend();
    grid_->setCells(std::move(cells), int(cluster.nodes.size()), columns);

    auto xt = QSharedPointer<RowTicker>::create(x);
    std::vector<std::pair<double, QString>> xticks;
    for (int c = 0; c < columns; ++c)
        xticks.emplace_back(c + 0.5, tr("GPU %1").arg(c));
    xt->setTicks(xticks);
    x->setTicker(xt);
    x->setRange(0, columns);
    x->setLabel(tr("local GPU index"));
    auto yt = QSharedPointer<RowTicker>::create(y);
    std::vector<std::pair<double, QString>> yticks;
    for (size_t n = 0; n < cluster.nodes.size(); ++n)
        yticks.emplace_back(n + 0.5, QString::fromStdString(cluster.nodes[n].name) + QStringLiteral(" (") +
                                         viewutil::shortDevice(cluster.nodes[n].deviceType, types) +
                                         QLatin1Char(')'));
    yt->setTicks(yticks);
    y->setTicker(yt);
    y->setRangeReversed(true);
    y->setRange(0, double(cluster.nodes.size()));
    y->setLabel(tr("node"));
    for (QCPAxis* a : {x, y}) {
        a->grid()->setVisible(false);
        a->setSubTicks(false);
        a->setTickLength(0, 0);
        a->setBasePen(Qt::NoPen);
        a->setTickPen(Qt::NoPen);
    }

    for (const LegendEntry& e : legend)
        new LegendSwatch(x, y, e.name, e.colour);
    if (anyUnused)
        new LegendSwatch(x, y, tr("unused GPU"), palette::unusedGpu());
    auto* mem = new LegendSwatch(x, y, tr("peak memory / capacity"), palette::memoryOk());
    Q_UNUSED(mem);
    if (overCapacity_ > 0)
        new LegendSwatch(x, y, tr("over capacity"), palette::overCapacity());
    p->legend->setVisible(true);
    placeLegendInRow(p->legend, 0, 6);

    QString what = plan.zero ? tr("ZeRO-%1, colour = micro-batch size").arg(plan.zero->stage)
                             : tr("colour = pipeline stage");
    addTitle(tr("GPU assignment — %1").arg(QString::fromStdString(plan.planner.empty() ? "plan" : plan.planner)),
             tr("%1 on %2 · %3%4")
                 .arg(QString::fromStdString(plan.model.name), QString::fromStdString(cluster.name), what,
                      overCapacity_ > 0 ? tr(" · %1 GPU(s) over memory").arg(overCapacity_) : QString()));
    p->plotLayout()->update(QCPLayoutElement::upPreparation);
    p->plotLayout()->update(QCPLayoutElement::upMargins);
    p->plotLayout()->update(QCPLayoutElement::upLayout);
    setHasContent(true);
}

QString StageMapView::toolTipAt(const QPointF& pos) const
{
    if (!grid_ || !plot()->axisRect()->rect().contains(pos.toPoint()))
        return {};
    const GridCell* c = grid_->cellAt(plot()->xAxis->pixelToCoord(pos.x()), plot()->yAxis->pixelToCoord(pos.y()));
    return c ? c->toolTip : QString();
}

} // namespace hetplan
