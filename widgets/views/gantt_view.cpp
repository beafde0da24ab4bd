#include "gantt_view.h"

#include "gantt_plottable.h"
#include "legend_swatch.h"
#include "row_ticker.h"
#include "view_util.h"
#include "widgets/common/palette.h"

#include <qcustomplot.h>

#include <algorithm>
#include <map>

namespace hetplan {

namespace {
// Row geometry in value-axis units (the value axis is reversed, rows run downwards).
constexpr double kComputeHeight = 1.0;
constexpr double kTrackGap = 0.04;
constexpr double kCommHeight = 0.42;
constexpr double kGpuGap = 0.22;
constexpr double kStageGap = 0.34;
constexpr double kBandPad = 0.12;

constexpr int kColours = 10;   // Tableau 10 cycle for micro-batches
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
    s[kSend] = {palette::tint(comm, 0.6), palette::communicationPattern(), palette::shade(comm, 0.2), palette::shade(comm, 0.3),
                Qt::black};
    s[kCollective] = {palette::tint(coll, 0.55), palette::collectivePattern(), coll, palette::shade(coll, 0.3), Qt::black};
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
} // namespace

GanttView::GanttView(QWidget* parent)
    : PlotView(tr("Run a planner to see the timeline of one training iteration."), parent)
{
}

void GanttView::clear()
{
    gantt_ = nullptr;
    events_.clear();
    rowGpu_.clear();
    gpuText_.clear();
    stageText_.clear();
    stageBase_.clear();
    span_ = 0;
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
    const Cluster& cluster = plan.cluster;
    const int gpus = cluster.gpuCount();
    const auto types = viewutil::deviceTypes(cluster);
    gpuText_.resize(gpus);
    for (int g = 0; g < gpus; ++g)
        gpuText_[g] = QString::fromStdString(cluster.gpuName(g)) + QStringLiteral(" (") +
                      viewutil::shortDevice(cluster.nodeOf(g).deviceType, types) + QLatin1Char(')');

    // Row order: pipelines, stages, the stage's GPUs (replica-major); ZeRO: its GPU order. GPUs with events
    // that no part of the plan names (e.g. SPMD) follow in index order.
    struct Group {
        std::vector<int> gpus;
        std::vector<QString> labels;
    };
    std::vector<Group> groups;
    std::vector<char> placed(gpus, 0);
    const bool manyPipelines = plan.pipelines.size() > 1;
    for (size_t p = 0; p < plan.pipelines.size(); ++p) {
        const Pipeline& pl = plan.pipelines[p];
        stageBase_.push_back(int(stageText_.size()));
        for (size_t s = 0; s < pl.stages.size(); ++s) {
            const Stage& st = pl.stages[s];
            stageText_.push_back(tr("stage %1 · layers [%2,%3)").arg(s).arg(st.firstLayer).arg(st.endLayer));
            Group g;
            const int perReplica = std::max(1, st.tensorParallel * st.dataParallel);
            for (size_t i = 0; i < st.gpus.size(); ++i) {
                const int gpu = st.gpus[i];
                if (gpu < 0 || gpu >= gpus || placed[gpu])
                    continue;
                placed[gpu] = 1;
                QString label = QStringLiteral("s%1").arg(s);
                if (pl.replicas > 1)
                    label += QStringLiteral(" r%1").arg(int(i) / perReplica);
                if (manyPipelines)
                    label = QStringLiteral("P%1 ").arg(p) + label;
                g.gpus.push_back(gpu);
                g.labels.push_back(label + QStringLiteral(" · ") + gpuText_[gpu]);
            }
            if (!g.gpus.empty())
                groups.push_back(std::move(g));
        }
    }
    if (plan.zero) {
        Group g;
        for (const ZeroGpu& z : plan.zero->gpus) {
            if (z.gpu < 0 || z.gpu >= gpus || placed[z.gpu])
                continue;
            placed[z.gpu] = 1;
            g.gpus.push_back(z.gpu);
            g.labels.push_back(gpuText_[z.gpu] + QStringLiteral(" · mbs %1").arg(z.microBatchSize));
        }
        if (!g.gpus.empty())
            groups.push_back(std::move(g));
    }
    {
        Group rest;
        std::vector<char> hasEvents(gpus, 0);
        for (const TimelineEvent& e : events_)
            if (e.gpu >= 0 && e.gpu < gpus)
                hasEvents[e.gpu] = 1;
        for (int g = 0; g < gpus; ++g)
            if (hasEvents[g] && !placed[g]) {
                placed[g] = 1;
                rest.gpus.push_back(g);
                rest.labels.push_back(gpuText_[g]);
            }
        if (!rest.gpus.empty())
            groups.push_back(std::move(rest));
    }

    // Geometry: rows 2k (compute) and 2k+1 (communication) belong to GPU rowGpu_[k].
    std::vector<GanttRow> rows;
    std::vector<GanttBand> bands;
    std::vector<std::pair<double, QString>> ticks;
    std::vector<int> computeRow(gpus, -1);
    double y = 0;
    for (size_t gi = 0; gi < groups.size(); ++gi) {
        if (gi > 0)
            y += kStageGap;
        const double top = y;
        for (size_t k = 0; k < groups[gi].gpus.size(); ++k) {
            if (k > 0)
                y += kGpuGap;
            const int gpu = groups[gi].gpus[k];
            computeRow[gpu] = int(rows.size());
            rowGpu_.push_back(gpu);
            rows.push_back({y, kComputeHeight});
            ticks.emplace_back(y + kComputeHeight / 2, groups[gi].labels[k]);
            rows.push_back({y + kComputeHeight + kTrackGap, kCommHeight});
            y += kComputeHeight + kTrackGap + kCommHeight;
        }
        bands.push_back({top - kBandPad, y + kBandPad, gi % 2 == 0 ? palette::bandA() : QColor(0xE9, 0xED, 0xF2)});
    }
    const double valueEnd = y;

    double end = result.iterationSeconds;
    for (const TimelineEvent& e : events_)
        end = std::max(end, e.end);
    const viewutil::TimeUnit unit = viewutil::timeUnitFor(end);
    unitScale_ = unit.scale;
    unitName_ = unit.name;
    span_ = end * unitScale_;

    std::vector<GanttBox> boxes;
    boxes.reserve(events_.size());
    for (size_t i = 0; i < events_.size(); ++i) {
        const TimelineEvent& e = events_[i];
        if (e.gpu < 0 || e.gpu >= gpus || computeRow[e.gpu] < 0)
            continue;
        const bool comm = isCommunication(e.kind);
        GanttBox b;
        b.start = e.start * unitScale_;
        b.end = e.end * unitScale_;
        b.row = computeRow[e.gpu] + (comm ? 1 : 0);
        b.style = styleOf(e);
        b.label = comm ? -1 : e.microBatch;
        b.event = int(i);
        boxes.push_back(b);
    }

    QCustomPlot* p = newPlot();
    QCPAxis* x = p->xAxis;
    QCPAxis* yAxis = p->yAxis;
    gantt_ = new GanttPlottable(x, yAxis);
    gantt_->setRows(std::move(rows), std::move(bands));
    gantt_->setStyles(makeStyles());
    gantt_->setBoxes(std::move(boxes));
    gantt_->removeFromLegend();

    x->setLabel(tr("time (%1)").arg(unitName_));
    x->setRange(0, span_ * 1.01);
    x->grid()->setVisible(false);   // the plottable draws it over its stage bands

    auto ticker = QSharedPointer<RowTicker>::create(yAxis);
    ticker->setTicks(ticks);
    yAxis->setTicker(ticker);
    yAxis->setRangeReversed(true);
    yAxis->setRange(-kStageGap, valueEnd + kStageGap);
    yAxis->grid()->setVisible(false);
    yAxis->setSubTicks(false);
    yAxis->setTickLength(0, 3);
    QFont tickFont = p->font();
    tickFont.setPointSizeF(8);
    yAxis->setTickLabelFont(tickFont);

    p->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    p->axisRect()->setRangeDrag(Qt::Horizontal);
    p->axisRect()->setRangeZoom(Qt::Horizontal);
    p->axisRect()->setRangeZoomAxes(x, nullptr);
    p->axisRect()->setRangeDragAxes(x, nullptr);
    connect(x, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, &GanttView::clampRange);

    // End of the iteration: a dashed marker with its length.
    auto* endLine = new QCPItemStraightLine(p);
    endLine->point1->setCoords(result.iterationSeconds * unitScale_, 0);
    endLine->point2->setCoords(result.iterationSeconds * unitScale_, 1);
    endLine->setPen(QPen(QColor(60, 60, 60), 1, Qt::DashLine));
    endLine->setClipToAxisRect(true);

    // Legend: what the tints, hatches and greys mean.
    bool hasRecompute = false, hasCollective = false, hasSend = false, hasOptimizer = false;
    for (const TimelineEvent& e : events_) {
        hasRecompute |= e.kind == EventKind::Recompute;
        hasOptimizer |= e.kind == EventKind::Optimizer;
        hasSend |= e.kind == EventKind::SendActivation || e.kind == EventKind::SendGradient;
        hasCollective |= isCommunication(e.kind) && e.kind != EventKind::SendActivation && e.kind != EventKind::SendGradient;
    }
    const auto styles = makeStyles();
    auto* colours = new LegendSwatch(x, yAxis, tr("colour = micro-batch"), {});
    colours->setStripes({palette::microBatchColor(0), palette::microBatchColor(1), palette::microBatchColor(2),
                         palette::microBatchColor(3), palette::microBatchColor(4)});
    new LegendSwatch(x, yAxis, tr("forward (light)"), styles[0].fill);
    new LegendSwatch(x, yAxis, tr("backward (dark)"), styles[1].fill);
    if (hasRecompute)
        new LegendSwatch(x, yAxis, tr("recompute"), styles[2].fill, styles[2].hatch, styles[2].hatchColour);
    if (hasOptimizer)
        new LegendSwatch(x, yAxis, tr("optimizer"), styles[kOptimizer].fill);
    if (hasSend)
        new LegendSwatch(x, yAxis, tr("p2p send"), styles[kSend].fill, styles[kSend].hatch, styles[kSend].hatchColour);
    if (hasCollective)
        new LegendSwatch(x, yAxis, tr("collective"), styles[kCollective].fill,
                         styles[kCollective].hatch, styles[kCollective].hatchColour);
    p->legend->setVisible(true);
    p->legend->setIconSize(24, 12);
    placeLegendInRow(p->legend, 0, 7);

    QString kindText = plan.zero ? tr("ZeRO-%1").arg(plan.zero->stage)
                                 : (plan.pipelines.empty() ? QString()
                                 : plan.pipelines[0].stages.size() == 1 ? tr("1 stage")
                                                                        : tr("%1 stages").arg(plan.pipelines[0].stages.size()));
    addTitle(tr("Timeline of one iteration — %1").arg(QString::fromStdString(plan.planner.empty() ? "plan" : plan.planner)),
             tr("%1 on %2 · %3 · %4 (simulated)%5")
                 .arg(QString::fromStdString(plan.model.name), QString::fromStdString(plan.cluster.name), kindText,
                      viewutil::formatDuration(result.iterationSeconds),
                      result.feasible ? QString() : tr(" · does not fit memory")));

    // Lay out once so the row labels are thinned for the real axis height before the first paint.
    p->plotLayout()->update(QCPLayoutElement::upPreparation);
    p->plotLayout()->update(QCPLayoutElement::upMargins);
    p->plotLayout()->update(QCPLayoutElement::upLayout);
    setHasContent(true);
}

void GanttView::clampRange(const QCPRange& range)
{
    if (!gantt_ || span_ <= 0)
        return;
    const double lo = -0.02 * span_, hi = span_ * 1.03;
    const double minSize = std::max(span_ * 1e-6, 1e-9);
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
    plot()->xAxis->setRange(0, span_ * 1.01);
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
    const TimelineEvent& e = events_[box->event];
    QString head = QString::fromStdString(toString(e.kind));
    if (e.microBatch >= 0)
        head += tr(" · micro-batch %1").arg(e.microBatch);
    QStringList lines{QStringLiteral("<b>%1</b>").arg(head)};
    const int flat = e.pipeline >= 0 && e.pipeline < int(stageBase_.size()) ? stageBase_[e.pipeline] + e.stage : -1;
    if (flat >= 0 && flat < int(stageText_.size())) {
        QString where = stageText_[flat];
        if (stageBase_.size() > 1)
            where = tr("pipeline %1 · ").arg(e.pipeline) + where;
        where += tr(" · replica %1").arg(e.replica);
        lines << where;
    }
    if (e.gpu >= 0 && e.gpu < int(gpuText_.size()))
        lines << tr("GPU %1").arg(gpuText_[e.gpu]);
    lines << tr("start %1 · duration %2").arg(viewutil::formatDuration(e.start), viewutil::formatDuration(e.end - e.start));
    return lines.join(QStringLiteral("<br>"));
}

} // namespace hetplan
