#include "stage_map_view.h"

#include "cell_grid_plottable.h"
#include "legend_swatch.h"
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

void addLegend(QCPAxis* x, QCPAxis* y, const StageMapLayout& layout)
{
    for (const StageMapLegendEntry& e : layout.legend)
        new LegendSwatch(x, y, e.name, keyColour(layout, e.colourKey));
    if (layout.anyUnused)
        new LegendSwatch(x, y, StageMapView::tr("unused GPU"), palette::unusedGpu());
    new LegendSwatch(x, y, StageMapView::tr("peak memory / capacity"), palette::memoryOk());
    if (layout.overCapacity > 0)
        new LegendSwatch(x, y, StageMapView::tr("over capacity"), palette::overCapacity());
}

} // namespace

StageMapView::StageMapView(QWidget* parent)
    : PlotView(tr("Run a planner to see which GPUs hold which pipeline stage."), parent)
{}

void StageMapView::clear()
{
    grid_ = nullptr;
    layout_ = {};
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
    if (plan.cluster.gpuCount() == 0)
        return;
    layout_ = layoutStageMap(plan, result);

    QCustomPlot* p = newPlot();
    grid_ = new CellGridPlottable(p->xAxis, p->yAxis);
    grid_->removeFromLegend();
    grid_->setCells(gridCells(layout_), layout_.rows, layout_.columns);
    setUpAxes(p->xAxis, p->yAxis, layout_);
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
    if (!grid_ || !plot()->axisRect()->rect().contains(pos.toPoint()))
        return {};
    const GridCell* c = grid_->cellAt(plot()->xAxis->pixelToCoord(pos.x()), plot()->yAxis->pixelToCoord(pos.y()));
    return c ? c->toolTip : QString();
}

} // namespace hetplan
