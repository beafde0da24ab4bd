#include "gantt_view.h"

#include "gantt_plottable.h"
#include "legend_swatch.h"
#include "row_ticker.h"
#include "view_util.h"
#include "widgets/common/palette.h"

#include <qcustomplot.h>

#include <algorithm>

namespace hetplan {

namespace {
constexpr int kColours = 10; // Tableau 10 cycle for micro-batches
// Style table layout: 3 per micro-batch colour (forward, backward, recompute), then the neutrals.
enum NeutralStyle { kOptimizer = 3 * kColours, kSend, kCollective, kForwardNoBatch, kBackwardNoBatch, kStyleCount };

std::vector<GanttStyle> makeStyles()
{
    std::vector<GanttStyle> s(kStyleCount);
    for (int c = 0; c < kColours; ++c) {
        const QColor base = palette::microBatchColor(c);
        s[3 * c + 0] = {palette::tint(base, 0.55), Qt::NoBrush, {}, palette::shade(base, 0.25), QColor(30, 30, 30)};
        s[3 * c + 1] = {base, Qt::NoBrush, {}, palette::shade(base, 0.45), palette::textOn(base)};
        s[3 * c + 2] = {palette::tint(base, 0.7), palette::recomputePattern(), palette::shade(base, 0.3),
                        palette::shade(base, 0.3), QColor(30, 30, 30)};
    }
    const QColor comm = palette::communication(), coll = palette::collective();
    s[kOptimizer] = {palette::optimizer(), Qt::NoBrush, {}, QColor(20, 20, 20), Qt::white};
    s[kSend] = {palette::tint(comm, 0.6), palette::communicationPattern(), palette::shade(comm, 0.2),
                palette::shade(comm, 0.3), Qt::black};
    s[kCollective] = {palette::tint(coll, 0.55), palette::collectivePattern(), coll, palette::shade(coll, 0.3),
                      Qt::black};
    s[kForwardNoBatch] = {palette::tint(comm, 0.5), Qt::NoBrush, {}, palette::shade(comm, 0.3), Qt::black};
    s[kBackwardNoBatch] = {palette::shade(comm, 0.2), Qt::NoBrush, {}, palette::shade(comm, 0.5), Qt::white};
    return s;
}

int styleOf(const TimelineEvent& e)
{
    const int c = e.microBatch >= 0 ? e.microBatch % kColours : -1;
    switch (e.kind) {
    case EventKind::Forward: return c >= 0 ? 3 * c : kForwardNoBatch;
    case EventKind::Backward: return c >= 0 ? 3 * c + 1 : kBackwardNoBatch;
    case EventKind::Recompute: return c >= 0 ? 3 * c + 2 : kForwardNoBatch;
    case EventKind::Optimizer: return kOptimizer;
    case EventKind::SendActivation:
    case EventKind::SendGradient: return kSend;
    default: return kCollective;
    }
}

// Two tracks per row (compute, then communication) and one band per group, alternating colours.
void placeTracks(const GanttLayout& layout, std::vector<GanttRow>& tracks, std::vector<GanttBand>& bands)
{
    for (size_t gi = 0; gi < layout.groups.size(); ++gi) {
        const GanttGroupLayout& g = layout.groups[gi];
        for (const GanttRowLayout& r : g.rows) {
            tracks.push_back({r.top, ganttgeom::computeHeight});
            tracks.push_back({r.commTop(), ganttgeom::commHeight});
        }
        bands.push_back({g.bandTop, g.bandBottom, gi % 2 == 0 ? palette::bandA() : QColor(0xE9, 0xED, 0xF2)});
    }
}

std::vector<GanttBox> boxesOf(const GanttLayout& layout, const std::vector<TimelineEvent>& events)
{
    std::vector<GanttBox> boxes;
    boxes.reserve(layout.bars.size());
    for (const GanttBarLayout& bar : layout.bars) {
        const TimelineEvent& e = events[size_t(bar.event)];
        boxes.push_back(
            {bar.start, bar.end, bar.track, styleOf(e), isCommunication(e.kind) ? -1 : e.microBatch, bar.event});
    }
    return boxes;
}

// What the tints, hatches and greys mean (only the kinds that occur).
void addLegend(QCPAxis* x, QCPAxis* y, const GanttLegendNeeds& needs)
{
    const auto styles = makeStyles();
    const auto swatch = [&](const QString& name, int style) {
        const GanttStyle& s = styles[size_t(style)];
        new LegendSwatch(x, y, name, s.fill, s.hatch, s.hatchColour);
    };
    // SPMD compute is drawn per op group, not per micro-batch: no micro-batch colours to explain.
    if (needs.microBatches) {
        auto* colours = new LegendSwatch(x, y, GanttView::tr("colour = micro-batch"), {});
        colours->setStripes({palette::microBatchColor(0), palette::microBatchColor(1), palette::microBatchColor(2),
                             palette::microBatchColor(3), palette::microBatchColor(4)});
    }
    new LegendSwatch(x, y, needs.microBatches ? GanttView::tr("forward (light)") : GanttView::tr("forward"),
                     styles[0].fill);
    new LegendSwatch(x, y, needs.microBatches ? GanttView::tr("backward (dark)") : GanttView::tr("backward"),
                     styles[1].fill);
    if (needs.recompute)
        swatch(GanttView::tr("recompute"), 2);
    if (needs.optimizer)
        new LegendSwatch(x, y, GanttView::tr("optimizer"), styles[kOptimizer].fill);
    if (needs.send)
        swatch(GanttView::tr("p2p send"), kSend);
    if (needs.collective)
        swatch(GanttView::tr("collective"), kCollective);
}
// "gpt2 on lab · 3 stages · 1.24 s (simulated)"; parts that are empty are left out.
QString subtitleOf(const Plan& plan, const QString& kind, const SimResult& result)
{
    QStringList parts{GanttView::tr("%1 on %2")
                          .arg(QString::fromStdString(plan.model.name), QString::fromStdString(plan.cluster.name))};
    if (!kind.isEmpty())
        parts << kind;
    parts << GanttView::tr("%1 (simulated)").arg(viewutil::formatDuration(result.iterationSeconds));
    if (!result.feasible)
        parts << GanttView::tr("does not fit memory");
    return parts.join(QStringLiteral(" · "));
}
} // namespace

GanttView::GanttView(QWidget* parent)
    : PlotView(tr("Run a planner to see the timeline of one training iteration."), parent)
{}

void GanttView::clear()
{
    gantt_ = nullptr;
    events_.clear();
    layout_ = {};
    PlotView::clear();
}

size_t GanttView::eventCount() const { return gantt_ ? gantt_->boxCount() : 0; }
size_t GanttView::lastPaintedBoxes() const { return gantt_ ? gantt_->lastPainted() : 0; }

void GanttView::setPlan(const Plan& plan, const SimResult& result)
{
    clear();
    if (result.events.empty()) {
        setPlaceholderText(tr("This simulation has no timeline to draw (it was run without events)."));
        return;
    }
    setPlaceholderText(tr("Run a planner to see the timeline of one training iteration."));
    events_ = result.events;
    layout_ = layoutGantt(plan, result);

    QCustomPlot* p = newPlot();
    gantt_ = new GanttPlottable(p->xAxis, p->yAxis);
    std::vector<GanttRow> tracks;
    std::vector<GanttBand> bands;
    placeTracks(layout_, tracks, bands);
    gantt_->setRows(std::move(tracks), std::move(bands));
    gantt_->setStyles(makeStyles());
    gantt_->setBoxes(boxesOf(layout_, events_));
    gantt_->removeFromLegend();
    setUpAxes(p);

    // End of the iteration: a dashed marker with its length.
    auto* endLine = new QCPItemStraightLine(p);
    endLine->point1->setCoords(result.iterationSeconds * layout_.timeScale, 0);
    endLine->point2->setCoords(result.iterationSeconds * layout_.timeScale, 1);
    endLine->setPen(QPen(QColor(60, 60, 60), 1, Qt::DashLine));
    endLine->setClipToAxisRect(true);

    addLegend(p->xAxis, p->yAxis, layout_.legend);
    p->legend->setVisible(true);
    p->legend->setIconSize(24, 12);
    placeLegendInRow(p->legend, 0, 7);
    addTitle(
        tr("Timeline of one iteration — %1").arg(QString::fromStdString(plan.planner.empty() ? "plan" : plan.planner)),
        subtitleOf(plan, layout_.kind, result));

    // Lay out once so the row labels are thinned for the real axis height before the first paint.
    p->plotLayout()->update(QCPLayoutElement::upPreparation);
    p->plotLayout()->update(QCPLayoutElement::upMargins);
    p->plotLayout()->update(QCPLayoutElement::upLayout);
    setHasContent(true);
}

// Time runs along x (zoom and pan along it only); the rows down y, labelled by their GPUs.
void GanttView::setUpAxes(QCustomPlot* p)
{
    QCPAxis* x = p->xAxis;
    QCPAxis* y = p->yAxis;
    x->setLabel(tr("time (%1)").arg(layout_.timeUnit));
    x->setRange(0, layout_.span * 1.01);
    x->grid()->setVisible(false); // the plottable draws it over its stage bands

    std::vector<std::pair<double, QString>> ticks;
    for (const GanttRowLayout* r : layout_.rows())
        ticks.emplace_back(r->top + ganttgeom::computeHeight / 2, r->label);
    auto ticker = QSharedPointer<RowTicker>::create(y);
    ticker->setTicks(ticks);
    y->setTicker(ticker);
    y->setRangeReversed(true);
    y->setRange(-ganttgeom::groupGap, layout_.valueEnd + ganttgeom::groupGap);
    y->grid()->setVisible(false);
    y->setSubTicks(false);
    y->setTickLength(0, 3);
    QFont tickFont = p->font();
    tickFont.setPointSizeF(8);
    y->setTickLabelFont(tickFont);

    p->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    p->axisRect()->setRangeDrag(Qt::Horizontal);
    p->axisRect()->setRangeZoom(Qt::Horizontal);
    p->axisRect()->setRangeZoomAxes(x, nullptr);
    p->axisRect()->setRangeDragAxes(x, nullptr);
    connect(x, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, &GanttView::clampRange);
}

void GanttView::clampRange(const QCPRange& range)
{
    const double span = layout_.span;
    if (!gantt_ || span <= 0)
        return;
    const double lo = -0.02 * span, hi = span * 1.03;
    const double minSize = std::max(span * 1e-6, 1e-9);
    QCPRange r = range;
    if (r.size() > hi - lo)
        r = QCPRange(lo, hi);
    if (r.size() < minSize)
        r = QCPRange(r.center() - minSize / 2, r.center() + minSize / 2);
    if (r.lower < lo)
        r = QCPRange(lo, lo + r.size());
    if (r.upper > hi)
        r = QCPRange(hi - r.size(), hi);
    if (r != range)
        plot()->xAxis->setRange(r);
}

void GanttView::resetZoom()
{
    if (!gantt_)
        return;
    plot()->xAxis->setRange(0, layout_.span * 1.01);
    plot()->replot();
}

QString GanttView::toolTipAt(const QPointF& pos) const
{
    if (!gantt_)
        return {};
    QCPAxis* x = plot()->xAxis;
    QCPAxis* y = plot()->yAxis;
    if (!plot()->axisRect()->rect().contains(pos.toPoint()))
        return {};
    const double key = x->pixelToCoord(pos.x());
    const double tolerance = std::abs(x->pixelToCoord(pos.x() + 2) - key);
    const GanttBox* box = gantt_->boxAt(key, y->pixelToCoord(pos.y()), tolerance);
    if (!box || box->event < 0 || box->event >= int(events_.size()))
        return {};
    return ganttEventText(layout_, events_[size_t(box->event)]);
}

} // namespace hetplan
