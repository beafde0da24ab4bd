#include "stage_map_view.h"

#include "widgets/models/current_plan.h"
#include "cell_grid_plottable.h"
#include "legend_swatch.h"
#include "node_tile_plottable.h"
#include "row_ticker.h"
#include "widgets/common/palette.h"

#include <qcustomplot.h>

namespace hetplan {

namespace {

QColor keyColour(const StageMapLayout& layout, int key)
{
    if (key < 0)
        return palette::unusedGpu();
    return layout.zero ? palette::okabeIto(key) : palette::stageColor(key);
}

std::vector<GridCell> gridCells(const StageMapLayout& layout)
{
    std::vector<GridCell> cells;
    cells.reserve(layout.cells.size());
    for (const StageMapCell& c : layout.cells)
        cells.push_back({c.row, c.column, keyColour(layout, c.colourKey), c.lines, c.used, c.capacity, c.memoryText,
                         c.colourKey < 0, c.toolTip});
    return cells;
}

// Labels at the middle of each cell; no grid lines, ticks or axis lines (the cells are the grid).
void setUpAxes(QCPAxis* x, QCPAxis* y, const StageMapLayout& layout)
{
    const auto labelled = [](QCPAxis* axis, const std::vector<QString>& labels) {
        std::vector<std::pair<double, QString>> ticks;
        for (size_t i = 0; i < labels.size(); ++i)
            ticks.emplace_back(i + 0.5, labels[i]);
        auto ticker = QSharedPointer<RowTicker>::create(axis);
        ticker->setTicks(ticks);
        axis->setTicker(ticker);
        axis->setRange(0, double(labels.size()));
    };
    labelled(x, layout.columnLabels);
    x->setLabel(StageMapView::tr("local GPU index"));
    labelled(y, layout.rowLabels);
    y->setRangeReversed(true);
    y->setLabel(StageMapView::tr("node"));
    for (QCPAxis* a : {x, y}) {
        a->grid()->setVisible(false);
        a->setSubTicks(false);
        a->setTickLength(0, 0);
        a->setBasePen(Qt::NoPen);
        a->setTickPen(Qt::NoPen);
    }
}

// Tiles carry their own labels; the axes only frame them.
void setUpTileAxes(QCPAxis* x, QCPAxis* y, const StageMapLayout& layout)
{
    x->setRange(0, layout.tileColumns);
    y->setRange(0, layout.tileRows);
    y->setRangeReversed(true);
    x->setLabel(StageMapView::tr("nodes (%1 GPUs each at most); hover for names and roles").arg(layout.columns));
    for (QCPAxis* a : {x, y}) {
        a->grid()->setVisible(false);
        a->setTicks(false);
        a->setTickLabels(false);
        a->setBasePen(Qt::NoPen);
    }
}

std::vector<QColor> cellColours(const StageMapLayout& layout)
{
    std::vector<QColor> out;
    out.reserve(layout.cells.size());
    for (const StageMapCell& c : layout.cells)
        out.push_back(keyColour(layout, c.colourKey));
    return out;
}

void addLegend(QCPAxis* x, QCPAxis* y, const StageMapLayout& layout)
{
    for (const StageMapLegendEntry& e : layout.legend)
        new LegendSwatch(x, y, e.name, keyColour(layout, e.colourKey));
    if (layout.anyUnused)
        new LegendSwatch(x, y, StageMapView::tr("unused GPU"), palette::unusedGpu());
    if (!layout.byNode) // tiles have no memory bars; their tooltips give the peaks
        new LegendSwatch(x, y, StageMapView::tr("peak memory / capacity"), palette::memoryOk());
    if (layout.overCapacity > 0)
        new LegendSwatch(x, y, StageMapView::tr("over capacity"), palette::overCapacity());
}

} // namespace

StageMapView::StageMapView(QWidget* parent)
    : PlotView(tr("Run a planner to see which GPUs hold which pipeline stage."), parent)
{
    setViewName(tr("stage map"));
}

void StageMapView::showCurrent(const CurrentPlan& current)
{
    if (current.plan() && current.simulation())
        setPlan(*current.plan(), *current.simulation());
    else
        clear();
}

void StageMapView::clear()
{
    grid_ = nullptr;
    tiles_ = nullptr;
    layout_ = {};
    PlotView::clear();
}

int StageMapView::cellCount() const { return grid_ || tiles_ ? int(layout_.cells.size()) : 0; }

QString StageMapView::cellText(int gpu) const
{
    if ((!grid_ && !tiles_) || gpu < 0 || gpu >= int(layout_.cells.size()))
        return {};
    return layout_.cells[size_t(gpu)].toolTip;
}

void StageMapView::setPlan(const Plan& plan, const SimResult& result)
{
    clear();
    if (plan.cluster.gpuCount() == 0)
        return;
    layout_ = layoutStageMap(plan, result);

    setExportBaseName(QStringLiteral("%1-%2-stagemap").arg(QString::fromStdString(plan.cluster.name),
                                                            QString::fromStdString(plan.model.name)));
    QCustomPlot* p = newPlot();
    if (layout_.byNode) {
        tiles_ = new NodeTilePlottable(p->xAxis, p->yAxis);
        tiles_->removeFromLegend();
        tiles_->setLayout(&layout_, cellColours(layout_));
        setUpTileAxes(p->xAxis, p->yAxis, layout_);
    } else {
        grid_ = new CellGridPlottable(p->xAxis, p->yAxis);
        grid_->removeFromLegend();
        grid_->setCells(gridCells(layout_), layout_.rows, layout_.columns);
        setUpAxes(p->xAxis, p->yAxis, layout_);
    }
    addLegend(p->xAxis, p->yAxis, layout_);
    p->legend->setVisible(true);
    placeLegendInRow(p->legend, 0, 6);
    addTitle(tr("GPU assignment — %1").arg(QString::fromStdString(plan.planner.empty() ? "plan" : plan.planner)),
             tr("%1 on %2 · %3%4")
                 .arg(QString::fromStdString(plan.model.name), QString::fromStdString(plan.cluster.name),
                      layout_.colourMeaning,
                      layout_.overCapacity > 0 ? tr(" · %1 GPU(s) over memory").arg(layout_.overCapacity) : QString()));
    p->plotLayout()->update(QCPLayoutElement::upPreparation);
    p->plotLayout()->update(QCPLayoutElement::upMargins);
    p->plotLayout()->update(QCPLayoutElement::upLayout);
    setHasContent(true);
}

QString StageMapView::toolTipAt(const QPointF& pos) const
{
    if (!plot()->axisRect()->rect().contains(pos.toPoint()))
        return {};
    if (tiles_)
        return tiles_->toolTipAt(plot()->xAxis->pixelToCoord(pos.x()), plot()->yAxis->pixelToCoord(pos.y()));
    if (!grid_)
        return {};
    const GridCell* c = grid_->cellAt(plot()->xAxis->pixelToCoord(pos.x()), plot()->yAxis->pixelToCoord(pos.y()));
    return c ? c->toolTip : QString();
}

} // namespace hetplan
