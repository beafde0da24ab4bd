#include "gantt_view.h"

#include "widgets/models/current_plan.h"
#include "gantt_plottable.h"
#include "gantt_styles.h"
#include "legend_swatch.h"
#include "row_ticker.h"
#include "view_util.h"
#include "widgets/common/palette.h"

#include <qcustomplot.h>

#include <QMenu>
#include <QMouseEvent>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QTimer>
#include <QToolBar>
#include <QWheelEvent>

#include <algorithm>

namespace hetplan {

namespace {
using namespace ganttstyle;

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
        boxes.push_back({bar.start, bar.end, bar.track, styleOf(e), isCommunication(e.kind) ? -1 : e.microBatch,
                         bar.event, bar.critical, e.chunk});
    }
    return boxes;
}

// The chain's jumps between tracks, from the middle of one track to the middle of the other.
std::vector<GanttLink> linksOf(const GanttLayout& layout, const std::vector<GanttRow>& tracks)
{
    std::vector<GanttLink> links;
    const auto middle = [&](int t) { return tracks[size_t(t)].top + tracks[size_t(t)].height / 2; };
    for (const GanttLinkLayout& l : layout.criticalLinks)
        if (size_t(std::max(l.fromTrack, l.toTrack)) < tracks.size())
            links.push_back({l.from, middle(l.fromTrack), l.to, middle(l.toTrack)});
    return links;
}

std::vector<GanttBox> gapBoxesOf(const GanttLayout& layout)
{
    std::vector<GanttBox> gaps;
    gaps.reserve(layout.gaps.size());
    for (const GanttGapLayout& g : layout.gaps)
        gaps.push_back({g.start, g.end, g.track, 0, -1, -1, false});
    return gaps;
}

// What the tints, hatches and greys mean (only the kinds that occur).
void addLegend(QCPAxis* x, QCPAxis* y, const GanttLegendNeeds& needs, bool idle, bool critical, int chunks)
{
    const auto styles = ganttstyle::styles();
    const auto swatch = [&](const QString& name, int style) {
        const GanttStyle& s = styles[size_t(style)];
        new LegendSwatch(x, y, name, s.fill, s.hatch, s.hatchColour);
    };
    // SPMD compute is drawn per op group, not per micro-batch: no micro-batch colours to explain.
    if (needs.microBatches) {
        auto* colours = new LegendSwatch(x, y, GanttView::tr("colour = micro-batch (10 colours, then again; "
                                                            "the number tells)"), {});
        colours->setStripes({palette::microBatchColor(0), palette::microBatchColor(1), palette::microBatchColor(2),
                             palette::microBatchColor(3), palette::microBatchColor(4)});
    }
    new LegendSwatch(x, y, needs.microBatches ? GanttView::tr("forward (light)") : GanttView::tr("forward"),
                     styles[0].fill);
    swatch(needs.microBatches ? GanttView::tr("backward (dark, hatched)") : GanttView::tr("backward (hatched)"), 1);
    if (chunks > 1) // interleaved 1F1B: GanttPlottable::drawBox marks chunk c with c bars
        new LegendSwatch(x, y, GanttView::tr("model chunk c: c bars along the bottom (chunk 0 none)"), styles[0].fill,
                         Qt::HorPattern, styles[0].outline);
    if (needs.recompute)
        swatch(GanttView::tr("recompute"), 2);
    if (needs.optimizer)
        new LegendSwatch(x, y, GanttView::tr("optimizer"), styles[kOptimizer].fill);
    if (needs.send)
        swatch(GanttView::tr("p2p send (thin row under its GPU)"), kSend);
    if (needs.collective)
        swatch(GanttView::tr("collective"), kCollective);
    if (idle) {
        const GanttStyle s = idleStyle();
        new LegendSwatch(x, y, GanttView::tr("idle"), s.fill, s.hatch, s.hatchColour);
    }
    if (critical) {
        auto* path = new LegendSwatch(x, y, GanttView::tr("critical path"), Qt::white);
        path->setOutline(QPen(QColor(15, 15, 15), 2.5));
    }
}
// "gpt2 on lab · 3 stages · 1.24 s (simulated)"; parts that are empty are left out, a long kind goes on a line
// of its own.
QString subtitleOf(const Plan& plan, const QString& kind, const SimResult& result)
{
    const bool ownLine = kind.size() > 40; // interleaving with context or expert parallelism, say
    QStringList parts{GanttView::tr("%1 on %2")
                          .arg(QString::fromStdString(plan.model.name), QString::fromStdString(plan.cluster.name))};
    if (!kind.isEmpty() && !ownLine)
        parts << kind;
    parts << GanttView::tr("%1 (simulated)").arg(viewutil::formatDuration(result.iterationSeconds));
    if (!result.feasible)
        parts << GanttView::tr("does not fit memory");
    const QString text = parts.join(QStringLiteral(" · "));
    return ownLine ? text + QLatin1Char('\n') + kind : text;
}
} // namespace

GanttView::GanttView(QWidget* parent)
    : PlotView(tr("Run a planner to see the timeline of one training iteration."), parent)
{
    setViewName(tr("gantt"));
    toolBar()->addSeparator();
    QAction* taller = toolBar()->addAction(tr("Taller rows"), this, &GanttView::zoomRowsIn);
    taller->setToolTip(tr("Zoom the rows in (Ctrl+wheel)"));
    QAction* shorter = toolBar()->addAction(tr("Shorter rows"), this, &GanttView::zoomRowsOut);
    shorter->setToolTip(tr("Zoom the rows out (Ctrl+wheel)"));
    everyReplica_ = toolBar()->addAction(tr("Every replica"));
    everyReplica_->setCheckable(true);
    everyReplica_->setToolTip(tr("Draw identical replicas one by one instead of once with “× N”"));
    connect(everyReplica_, &QAction::toggled, this, [this](bool on) {
        GanttLayoutOptions o = options_;
        o.mergeIdentical = !on;
        if (on) { // every replica means every row: nothing stays collapsed or drawn once
            o.collapsed.clear();
            o.separated.clear();
        }
        setLayoutOptions(o);
    });
    criticalPath_ = toolBar()->addAction(tr("Critical path"));
    criticalPath_->setCheckable(true);
    criticalPath_->setToolTip(tr("Outline the chain of events that sets the iteration time and dim the rest"));
    connect(criticalPath_, &QAction::toggled, this, &GanttView::setCriticalPathShown);
}

void GanttView::showCurrent(const CurrentPlan& current)
{
    if (current.plan() && current.simulation())
        setPlan(*current.plan(), *current.simulation());
    else
        clear();
}

void GanttView::clear()
{
    gantt_ = nullptr;
    hasPlan_ = false;
    plan_ = {};
    result_ = {};
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
    plan_ = plan;
    result_ = result;
    hasPlan_ = true;
    // A new plan starts with its groups expanded (the keys of the last one mean nothing here).
    options_.collapsed.clear();
    options_.separated.clear();
    setExportBaseName(QStringLiteral("%1-%2-gantt").arg(QString::fromStdString(plan.cluster.name),
                                                         QString::fromStdString(plan.model.name)));
    rebuild();
}

void GanttView::setCriticalPathShown(bool on)
{
    GanttLayoutOptions o = options_;
    o.criticalPath = on;
    setLayoutOptions(o);
}

void GanttView::setLayoutOptions(const GanttLayoutOptions& options)
{
    options_ = options;
    const QSignalBlocker quiet(everyReplica_), quietToo(criticalPath_);
    everyReplica_->setChecked(!options_.mergeIdentical);
    criticalPath_->setChecked(options_.criticalPath);
    if (hasPlan_)
        rebuild();
}

namespace {
template <class Set>
void setMember(Set& set, const QString& key, bool member)
{
    if (member)
        set.insert(key);
    else
        set.erase(key);
}
} // namespace

void GanttView::setGroupCollapsed(const QString& key, bool collapsed)
{
    GanttLayoutOptions o = options_;
    setMember(o.collapsed, key, collapsed);
    setLayoutOptions(o);
}

void GanttView::setGroupSeparated(const QString& key, bool separated)
{
    GanttLayoutOptions o = options_;
    setMember(o.separated, key, separated);
    if (separated) // asked to see the replicas: a collapsed group would still show one row
        setMember(o.collapsed, key, false);
    setLayoutOptions(o);
}

// Lays the rows out again with the current options, keeping the time range and the row zoom.
void GanttView::rebuild()
{
    const bool keepRange = gantt_ != nullptr;
    const QCPRange timeRange = keepRange ? plot()->xAxis->range() : QCPRange();
    const double zoom = keepRange ? rowZoom() : 1.0;
    gantt_ = nullptr;
    layout_ = layoutGantt(plan_, result_, options_);

    QCustomPlot* p = newPlot();
    gantt_ = new GanttPlottable(p->xAxis, p->yAxis);
    std::vector<GanttRow> tracks;
    std::vector<GanttBand> bands;
    placeTracks(layout_, tracks, bands);
    gantt_->setLinks(linksOf(layout_, tracks));
    gantt_->setRows(std::move(tracks), std::move(bands));
    gantt_->setStyles(ganttstyle::styles());
    gantt_->setBoxes(boxesOf(layout_, result_.events));
    gantt_->setGaps(gapBoxesOf(layout_), idleStyle());
    gantt_->setHighlight(options_.criticalPath);
    gantt_->removeFromLegend();
    setUpAxes(p);
    setUpInteraction(p);

    // End of the iteration: a dashed marker with its length.
    auto* endLine = new QCPItemStraightLine(p);
    endLine->point1->setCoords(result_.iterationSeconds * layout_.timeScale, 0);
    endLine->point2->setCoords(result_.iterationSeconds * layout_.timeScale, 1);
    endLine->setPen(QPen(QColor(60, 60, 60), 1, Qt::DashLine));
    endLine->setClipToAxisRect(true);

    addLegend(p->xAxis, p->yAxis, layout_.legend, !layout_.gaps.empty(), options_.criticalPath, layout_.virtualStages);
    p->legend->setVisible(true);
    p->legend->setIconSize(24, 12);
    placeLegendInRow(p->legend, 0, 7);
    addTitle(tr("Timeline of one iteration — %1")
                 .arg(QString::fromStdString(plan_.planner.empty() ? "plan" : plan_.planner)),
             subtitleOf(plan_, layout_.kind, result_));
    if (keepRange)
        p->xAxis->setRange(timeRange);
    setRowZoom(zoom);

    // Lay out once so the row labels are thinned for the real axis height before the first paint.
    p->plotLayout()->update(QCPLayoutElement::upPreparation);
    p->plotLayout()->update(QCPLayoutElement::upMargins);
    p->plotLayout()->update(QCPLayoutElement::upLayout);
    keepRowsReadable();
    setHasContent(true);
    syncRowScroll();
}

void GanttView::keepRowsReadable()
{
    // Hundreds of rows in one view are stripes: zoom the rows so each keeps about 12 pixels and let the
    // scroll bar reach the rest (only for a view on screen, whose height is real).
    using namespace ganttgeom;
    const double height = plot()->axisRect()->height();
    if (!isVisible() || height < 100)
        return;
    const double rowPixels = (computeHeight + trackGap + commHeight + gpuGap) * height / fullValueSize();
    if (rowPixels < 8)
        setRowZoom(12 / rowPixels);
}

QScrollBar* GanttView::rowScrollBar() const { return rowScroll_; }

void GanttView::syncRowScroll()
{
    QScrollBar* bar = rowScroll_;
    if (!bar || !gantt_)
        return;
    const double lo = -ganttgeom::groupGap, full = fullValueSize();
    const QCPRange r = plot()->yAxis->range();
    const double k = 10000.0 / full; // scroll bar steps per axis unit
    const QSignalBlocker quiet(bar);
    bar->setRange(0, int(std::lround((full - r.size()) * k)));
    bar->setPageStep(int(std::lround(r.size() * k)));
    bar->setSingleStep(std::max(1, int(k * (ganttgeom::computeHeight + ganttgeom::commHeight + ganttgeom::gpuGap))));
    bar->setValue(int(std::lround((r.lower - lo) * k)));
    const QRect a = plot()->axisRect()->rect();
    const int w = bar->sizeHint().width();
    bar->setGeometry(plot()->width() - w, a.top(), w, a.height());
    bar->setVisible(r.size() < full * 0.999); // only while the rows are zoomed in
}

// Time runs along x, the rows down y, labelled by their GPUs.
void GanttView::setUpAxes(QCustomPlot* p)
{
    QCPAxis* x = p->xAxis;
    QCPAxis* y = p->yAxis;
    x->setLabel(tr("time (%1)").arg(layout_.timeUnit));
    x->setRange(0, axisSpan() * 1.01);
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
    // What the row labels' short forms mean, where the rows are stages ("P1 s0 r2 × 4 · node-0/3 (A100)").
    if (!layout_.stageText.empty()) {
        const bool pipelines = !layout_.stageBase.empty() && layout_.stageBase.size() > 1;
        y->setLabel((pipelines ? tr("P pipeline · ") : QString()) +
                    tr("s stage · r replica · × N: N identical replicas drawn once"));
    }
    QFont labelFont = p->font();
    labelFont.setPointSizeF(8);
    y->setLabelFont(labelFont);
    y->setLabelColor(QColor(90, 90, 90));
    // The ticker thins labels for the axis height it last saw; the first layout at a new size comes after
    // the ticks were made, so draw once more with the height the rows really have.
    const QWeakPointer<RowTicker> weak = ticker;
    connect(p, &QCustomPlot::afterLayout, p, [p, weak] {
        const auto t = weak.toStrongRef();
        if (t && std::abs(t->pixelsUsed() - p->axisRect()->height()) > 0.5)
            p->replot(QCustomPlot::rpQueuedReplot);
    });
}

// The wheel zooms time, Ctrl+wheel the rows; a drag pans both (the rows only while zoomed in). A double
// click collapses or expands the group under the pointer; a right click offers the group's menu.
void GanttView::setUpInteraction(QCustomPlot* p)
{
    QCPAxis* x = p->xAxis;
    QCPAxis* y = p->yAxis;
    p->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    p->axisRect()->setRangeDrag(Qt::Horizontal | Qt::Vertical);
    p->axisRect()->setRangeDragAxes(x, y);
    p->axisRect()->setRangeZoom(Qt::Horizontal);
    p->axisRect()->setRangeZoomAxes(x, y);
    // QCustomPlot emits mouseWheel before the axis rect zooms: pick the direction for this step.
    connect(p, &QCustomPlot::mouseWheel, this, [p](QWheelEvent* e) {
        if (!(e->modifiers() & Qt::ControlModifier))
            return;
        // This step only: Ctrl+= / Ctrl+- and the next plain wheel zoom time again.
        p->axisRect()->setRangeZoom(Qt::Vertical);
        QTimer::singleShot(0, p, [p] { p->axisRect()->setRangeZoom(Qt::Horizontal); });
    });
    connect(x, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, &GanttView::clampRange);
    connect(y, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, &GanttView::clampValueRange);
    connect(p, &QCustomPlot::mouseDoubleClick, this, [this](QMouseEvent* e) {
        const QString key = groupKeyAt(e->position());
        if (canToggleCollapse(key))
            setGroupCollapsed(key, !options_.collapsed.count(key));
    });
    p->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(p, &QWidget::customContextMenuRequested, this, &GanttView::showGroupMenu);
    // Taller rows leave some out of view: a scroll bar beside the rows reaches them (the plot owns it).
    rowScroll_ = new QScrollBar(Qt::Vertical, p);
    rowScroll_->setObjectName(QStringLiteral("ganttRowScroll"));
    rowScroll_->hide();
    connect(rowScroll_, &QScrollBar::valueChanged, this, [this, p](int value) {
        const double size = p->yAxis->range().size();
        const double lower = -ganttgeom::groupGap + value * fullValueSize() / 10000.0;
        p->yAxis->setRange(lower, lower + size);
        p->replot(QCustomPlot::rpQueuedReplot);
    });
    connect(y, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, &GanttView::syncRowScroll);
    connect(p, &QCustomPlot::afterLayout, this, &GanttView::syncRowScroll);
}

void GanttView::showGroupMenu(const QPoint& pos)
{
    const QString key = groupKeyAt(pos);
    auto group = std::find_if(layout_.groups.begin(), layout_.groups.end(),
                              [&](const GanttGroupLayout& g) { return g.key == key; });
    if (group == layout_.groups.end())
        return;
    QMenu menu(this);
    menu.addSection(group->title);
    const bool collapsed = options_.collapsed.count(key) > 0;
    QAction* collapse = menu.addAction(collapsed ? tr("Expand to all rows") : tr("Collapse to one row"));
    collapse->setEnabled(canToggleCollapse(key));
    QAction* separate = nullptr;
    if (group->canMerge())
        separate = menu.addAction(group->merged ? tr("Show identical replicas one by one")
                                                : tr("Draw identical replicas once"));
    QAction* chosen = menu.exec(plot()->mapToGlobal(pos));
    if (chosen && chosen == collapse)
        setGroupCollapsed(key, !collapsed);
    else if (chosen && chosen == separate)
        setGroupSeparated(key, group->merged);
}

bool GanttView::canToggleCollapse(const QString& key) const
{
    // A group showing one row has nothing to collapse; a collapsed one can always expand.
    for (const GanttGroupLayout& g : layout_.groups)
        if (g.key == key)
            return options_.collapsed.count(key) > 0 || g.rows.size() > 1;
    return false;
}

QString GanttView::groupKeyAt(const QPointF& pixel) const
{
    // Rows answer inside the chart and on their labels; the title, legend and time axis belong to none.
    if (!gantt_ || pixel.y() < plot()->axisRect()->top() || pixel.y() > plot()->axisRect()->bottom())
        return {};
    const double value = plot()->yAxis->pixelToCoord(pixel.y());
    for (const GanttGroupLayout& g : layout_.groups)
        if (value >= g.bandTop && value < g.bandBottom)
            return g.key;
    return {};
}

double GanttView::fullValueSize() const { return layout_.valueEnd + 2 * ganttgeom::groupGap; }

double GanttView::rowZoom() const
{
    if (!gantt_)
        return 1.0;
    return fullValueSize() / plot()->yAxis->range().size();
}

void GanttView::setRowZoom(double factor)
{
    if (!gantt_)
        return;
    const double top = plot()->yAxis->range().lower;
    const double size = fullValueSize() / std::max(1.0, factor);
    plot()->yAxis->setRange(top, top + size); // clampValueRange() keeps it inside the rows
    plot()->replot();
}

namespace {
// `r` resized to at least `minSize` and at most hi - lo, then moved inside [lo, hi]: the axis limits of both
// zoom directions.
QCPRange keptWithin(QCPRange r, double lo, double hi, double minSize)
{
    if (r.size() > hi - lo)
        r = QCPRange(lo, hi);
    if (r.size() < minSize)
        r = QCPRange(r.center() - minSize / 2, r.center() + minSize / 2);
    if (r.lower < lo)
        r = QCPRange(lo, lo + r.size());
    if (r.upper > hi)
        r = QCPRange(hi - r.size(), hi);
    return r;
}
} // namespace

void GanttView::clampValueRange(const QCPRange& range)
{
    if (!gantt_)
        return;
    using namespace ganttgeom;
    const double lo = -groupGap, hi = layout_.valueEnd + groupGap;
    // At most all rows, at least about two rows in view.
    const double minSize = std::min(hi - lo, 2 * (computeHeight + commHeight + gpuGap));
    const QCPRange r = keptWithin(range, lo, hi, minSize);
    if (r != range)
        plot()->yAxis->setRange(r);
}

double GanttView::axisSpan() const { return std::max(layout_.span, minimumSpanSeconds_ * layout_.timeScale); }

void GanttView::setMinimumTimeSpan(double seconds)
{
    minimumSpanSeconds_ = seconds;
    if (gantt_)
        resetZoom();
}

void GanttView::clampRange(const QCPRange& range)
{
    const double span = axisSpan();
    if (!gantt_ || span <= 0)
        return;
    const double lo = -0.02 * span, hi = span * 1.03;
    const double minSize = std::max(span * 1e-6, 1e-9);
    const QCPRange r = keptWithin(range, lo, hi, minSize);
    if (r != range)
        plot()->xAxis->setRange(r); // comes back here with r
    else
        emit timeRangeChanged(range.lower / layout_.timeScale, range.upper / layout_.timeScale);
}

void GanttView::setTimeRangeSeconds(double lower, double upper)
{
    if (!gantt_)
        return;
    plot()->xAxis->setRange(lower * layout_.timeScale, upper * layout_.timeScale);
    plot()->replot(QCustomPlot::rpQueuedReplot);
}

void GanttView::resetZoom()
{
    if (!gantt_)
        return;
    plot()->xAxis->setRange(0, axisSpan() * 1.01);
    plot()->yAxis->setRange(-ganttgeom::groupGap, layout_.valueEnd + ganttgeom::groupGap);
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
    if (!box) {
        const GanttBox* gap = gantt_->gapAt(key, y->pixelToCoord(pos.y()));
        return gap ? idleText(*gap) : QString();
    }
    if (box->event < 0 || box->event >= int(result_.events.size()))
        return {};
    QString text = ganttEventText(layout_, result_.events[size_t(box->event)]);
    const auto rows = layout_.rows();
    if (const size_t row = size_t(box->row / 2); row < rows.size() && rows[row]->copies > 1)
        text += tr("<br><i>drawn once for %1 identical replicas</i>").arg(rows[row]->copies);
    if (box->critical)
        text += tr("<br><b>on the critical path</b>");
    return text;
}

// Like an event's text: what, where, when.
QString GanttView::idleText(const GanttBox& gap) const
{
    const double scale = layout_.timeScale;
    const auto rows = layout_.rows();
    const size_t row = size_t(gap.row / 2);
    QString text = tr("<b>idle</b>");
    if (row < rows.size() && size_t(rows[row]->gpu) < layout_.gpuText.size())
        text += tr("<br>GPU %1").arg(layout_.gpuText[size_t(rows[row]->gpu)]);
    return text + tr("<br>start %1 · duration %2")
                      .arg(viewutil::formatDuration(gap.start / scale),
                           viewutil::formatDuration((gap.end - gap.start) / scale));
}

} // namespace hetplan
