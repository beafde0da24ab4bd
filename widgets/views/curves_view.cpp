#include "curves_view.h"

#include "details/planner_display.h"

#include "widgets/models/current_plan.h"
#include "legend_swatch.h"
#include "widgets/canvas/device_style.h"
#include "view_util.h"
#include "widgets/common/palette.h"


#include <qcustomplot.h>

#include <QJsonArray>

#include <algorithm>
#include <cmath>
#include <memory>

namespace hetplan {

CurvesView::CurvesView(QWidget* parent)
    : PlotView(tr("Run a planner to see throughput against micro-batch size for each GPU type."), parent)
{
    setViewName(tr("batch→speed curves"));
}

void CurvesView::showCurrent(const CurrentPlan& current)
{
    // Without a plan: the current cluster's speed under the current model.
    if (current.cluster() && current.costs())
        setData(*current.cluster(), *current.costs(), current.plan());
    else
        clear();
}

void CurvesView::clear()
{
    curves_.clear();
    markers_ = 0;
    profiledPoints_ = 0;
    outOfMemoryMarks_ = 0;
    plannerCurves_ = false;
    PlotView::clear();
}

namespace {
// Sizes shown for a device type that has no measured profile: the analytic model at powers of two.
const std::vector<int> kDefaultSizes{1, 2, 4, 8, 16, 32, 64};

QString sourceText(const CurvesView::Curve& c)
{
    return c.measured ? CurvesView::tr("measured") : CurvesView::tr("analytic");
}

// Samples/s of the whole model on one GPU of `type` (tp 1) at micro-batch `b`, as the planners price it;
// 0 when the cost model has no finite time for it.
double throughputAt(const CostModel& costs, const std::string& type, int layers, double b)
{
    const LayerTiming t = costs.range(0, layers, type, 1, b);
    const double step = t.forward + t.backward;
    return step > 0 && std::isfinite(step) ? b / step : 0.0;
}

// The cost model between the curve's first and last size, evenly in log(b) so it is smooth on the log axis.
void sampleLine(const CostModel& costs, int layers, CurvesView::Curve& c)
{
    if (c.sizes.size() < 2)
        return;
    const int n = 240;
    const double a = std::log(c.sizes.front()), z = std::log(c.sizes.back());
    for (int k = 0; k <= n; ++k) {
        const double b = std::exp(a + (z - a) * k / n);
        if (const double v = throughputAt(costs, c.device, layers, b); v > 0) {
            c.lineSizes.push_back(b);
            c.lineSamplesPerSecond.push_back(v);
        }
    }
}

// Throughput of the whole model on one GPU of `type` (tp 1) at its profiled micro-batch sizes (the
// default sizes when it has none), and the cost model's line between them. No points when the type is
// neither in the catalog nor measured.
CurvesView::Curve throughputCurve(const CostModel& costs, const std::string& type, int layers)
{
    CurvesView::Curve c;
    c.device = type;
    c.measured = costs.isMeasured(type, 1);
    std::vector<int> sizes;
    if (c.measured)
        sizes = costs.measured().microBatches(type, 1);
    if (sizes.empty())
        sizes = kDefaultSizes;
    try {
        for (int b : sizes)
            if (const double v = b > 0 ? throughputAt(costs, type, layers, b) : 0.0; v > 0) {
                c.sizes.push_back(b);
                c.samplesPerSecond.push_back(v);
            }
        sampleLine(costs, layers, c);
    } catch (const std::exception&) {
        c = CurvesView::Curve{type, c.measured, {}, {}, {}, {}}; // nothing to draw for it
    }
    return c;
}

QCPGraph* addScatterGraph(QCustomPlot* p, const QCPScatterStyle& style)
{
    auto* g = p->addGraph(p->xAxis, p->yAxis);
    g->removeFromLegend();
    g->setLineStyle(QCPGraph::lsNone);
    g->setScatterStyle(style);
    return g;
}

// A ZeRO plan's micro-batch on its device's curve: a diamond labelled with the GPUs that use it.
void addZeroMarker(QCustomPlot* p, const QColor& colour, int microBatch, double value, int gpus)
{
    auto* mark = addScatterGraph(p, QCPScatterStyle(QCPScatterStyle::ssDiamond, QPen(Qt::black, 1.2), colour, 13));
    mark->addData(microBatch, value);
    auto* label = new QCPItemText(p);
    label->position->setCoords(microBatch, value);
    label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    label->setPadding(QMargins(8, 6, 0, 0));
    label->setText(gpus == 1 ? CurvesView::tr("1 GPU, mbs %1").arg(microBatch)
                             : CurvesView::tr("%1 GPUs, mbs %2").arg(gpus).arg(microBatch));
    QFont f = p->font();
    f.setPointSizeF(8);
    label->setFont(f);
    label->setColor(palette::shade(colour, 0.35));
}

// How many GPUs of each (device type, micro-batch size) a ZeRO plan uses.
std::map<std::pair<std::string, int>, int> zeroMicroBatchCounts(const Cluster& cluster, const ZeroPlan& zero)
{
    std::map<std::pair<std::string, int>, int> count;
    for (const ZeroGpu& z : zero.gpus)
        if (z.gpu >= 0 && z.gpu < cluster.gpuCount())
            ++count[{cluster.nodeOf(z.gpu).deviceType, z.microBatchSize}];
    return count;
}

void setupAxes(QCPAxis* x, QCPAxis* y)
{
    x->setScaleType(QCPAxis::stLogarithmic);
    auto logTicker = QSharedPointer<QCPAxisTickerLog>::create();
    logTicker->setLogBase(2);
    logTicker->setSubTickCount(0);
    x->setTicker(logTicker);
    x->setNumberFormat(QStringLiteral("g"));
    x->setLabel(CurvesView::tr("micro-batch size (samples, log scale)"));
    y->setLabel(CurvesView::tr("throughput (samples/s)"));
    y->setNumberFormat(QStringLiteral("g"));
    y->setNumberPrecision(4);
}
// The curves a planner section of `plan` provides (Poplar's), or nullopt: the cost model's curves.
std::optional<PlannerCurves> plannerCurvesOf(const Plan& plan)
{
    for (const auto& [section, object] : plan.details)
        if (const PlannerDisplay* display = plannerDisplay(section); display && display->curves)
            if (std::optional<PlannerCurves> c = display->curves(object, plan))
                return c;
    return std::nullopt;
}

} // namespace

void CurvesView::setData(const Cluster& cluster, const CostModel& costs, const Plan* plan)
{
    clear();
    if (plan)
        if (const std::optional<PlannerCurves> own = plannerCurvesOf(*plan)) {
            setPlannerCurves(*own);
            return;
        }
    const int layers = costs.model().layerCount();
    if (layers <= 0 || cluster.nodes.empty())
        return;
    for (const std::string& type : viewutil::deviceTypes(cluster))
        if (Curve c = throughputCurve(costs, type, layers); !c.sizes.empty())
            curves_.push_back(std::move(c));
    if (curves_.empty())
        return;

    QCustomPlot* p = newPlot();
    xLo_ = 1e300;
    xHi_ = 0;
    yHi_ = 0;
    for (const Curve& c : curves_) {
        xLo_ = std::min(xLo_, c.sizes.front());
        xHi_ = std::max(xHi_, c.sizes.back());
    }
    addCurveGraphs(p);
    // The plan's micro-batch sizes: per ZeRO GPU on its type's curve, or one line for a pipeline plan.
    markers_ = 0;
    if (plan && plan->zero)
        markZeroPlan(p, cluster, *plan->zero, costs);
    else if (plan && !plan->pipelines.empty())
        markPipelinePlan(p, plan->pipelines.front().microBatchSize);
    if (profiledPoints_ > 0) {
        auto* profiled = new LegendSwatch(p->xAxis, p->yAxis, tr("profiled size"), {});
        profiled->setMarker(QCPScatterStyle(QCPScatterStyle::ssCircle, QColor(60, 60, 60), Qt::white, 7));
    }
    setExportBaseName(QStringLiteral("%1-%2-curves").arg(QString::fromStdString(cluster.name),
                                                          QString::fromStdString(costs.model().name)));

    setupAxes(p->xAxis, p->yAxis);
    p->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    p->legend->setVisible(true);
    placeLegendInRow(p->legend, 0, 4);
    addTitle(tr("Throughput against micro-batch size"), tr("%1, sequence %2 · whole model on one GPU (tp 1)")
                                                            .arg(QString::fromStdString(costs.model().name))
                                                            .arg(costs.job().sequenceLength));
    applyRanges(p->xAxis, p->yAxis);
    setHasContent(true);
}

void CurvesView::addCurveGraphs(QCustomPlot* p)
{
    for (size_t i = 0; i < curves_.size(); ++i) {
        const Curve& c = curves_[i];
        const QColor colour = deviceStyle(c.device).color; // as on the cluster canvas
        auto* line = p->addGraph(p->xAxis, p->yAxis);
        line->setName(QStringLiteral("%1 (%2)").arg(QString::fromStdString(c.device), sourceText(c)));
        line->setPen(QPen(colour, 2));
        line->setAntialiased(true);
        if (!c.lineSizes.empty()) {
            line->setData(QVector<double>(c.lineSizes.begin(), c.lineSizes.end()),
                          QVector<double>(c.lineSamplesPerSecond.begin(), c.lineSamplesPerSecond.end()), true);
            yHi_ = std::max(yHi_, *std::max_element(c.lineSamplesPerSecond.begin(), c.lineSamplesPerSecond.end()));
        }
        yHi_ = std::max(yHi_, *std::max_element(c.samplesPerSecond.begin(), c.samplesPerSecond.end()));
        // Dots mark sizes a profile measured; an analytic curve was never profiled anywhere.
        if (!c.measured)
            continue;
        auto* dots = addScatterGraph(p, QCPScatterStyle(QCPScatterStyle::ssCircle, colour, Qt::white, 7));
        dots->setData(QVector<double>(c.sizes.begin(), c.sizes.end()),
                      QVector<double>(c.samplesPerSecond.begin(), c.samplesPerSecond.end()), true);
        profiledPoints_ += int(c.sizes.size());
        yHi_ = std::max(yHi_, *std::max_element(c.samplesPerSecond.begin(), c.samplesPerSecond.end()));
    }
}

// One marker per device type and micro-batch size, with the GPU count.
void CurvesView::markZeroPlan(QCustomPlot* p, const Cluster& cluster, const ZeroPlan& zero, const CostModel& costs)
{
    const int layers = costs.model().layerCount();
    for (const auto& [key, gpus] : zeroMicroBatchCounts(cluster, zero)) {
        const auto it = std::find_if(curves_.begin(), curves_.end(),
                                     [&device = key.first](const Curve& c) { return c.device == device; });
        if (it == curves_.end())
            continue;
        addZeroMarker(p, deviceStyle(it->device).color, key.second,
                      throughputAt(costs, it->device, layers, key.second), gpus);
        includeInXRange(key.second);
        ++markers_;
    }
    if (markers_ > 0) {
        auto* legendMark = new LegendSwatch(p->xAxis, p->yAxis, tr("chosen micro-batch (ZeRO plan)"), {});
        legendMark->setMarker(QCPScatterStyle(QCPScatterStyle::ssDiamond, QPen(Qt::black, 1.2), Qt::gray, 11));
    }
}

// A pipeline plan uses one micro-batch size everywhere: a dashed vertical line across all curves.
void CurvesView::markPipelinePlan(QCustomPlot* p, int microBatch)
{
    auto* line = new QCPItemStraightLine(p);
    line->point1->setCoords(microBatch, 0);
    line->point2->setCoords(microBatch, 1);
    line->setPen(QPen(QColor(80, 80, 80), 1, Qt::DashLine));
    auto* label = new QCPItemText(p);
    label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    label->position->setCoords(microBatch, 0.02);
    label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    label->setPadding(QMargins(4, 0, 0, 0));
    label->setText(tr("plan's micro-batch %1").arg(microBatch));
    label->setColor(QColor(60, 60, 60));
    ++markers_;
}

void CurvesView::includeInXRange(double microBatch)
{
    xLo_ = std::min(xLo_, microBatch);
    xHi_ = std::max(xHi_, microBatch);
}

// The whole data with a margin: a quarter step either side on the log axis, 10 % headroom above.
void CurvesView::applyRanges(QCPAxis* x, QCPAxis* y) const
{
    x->setRange(xLo_ / 1.25, xHi_ * 1.25);
    y->setRange(0, yHi_ * 1.1);
}

void CurvesView::resetZoom()
{
    if (isEmpty())
        return;
    applyRanges(plot()->xAxis, plot()->yAxis);
    plot()->replot();
}

QString CurvesView::toolTipAt(const QPointF& pos) const
{
    if (isEmpty())
        return {};
    // Nearest profiled point within 8 px.
    const Curve* best = nullptr;
    size_t bestIndex = 0;
    double bestDistance = 8 * 8;
    for (const Curve& c : curves_)
        for (size_t i = 0; i < c.sizes.size(); ++i) {
            const double px = plot()->xAxis->coordToPixel(c.sizes[i]);
            const double py = plot()->yAxis->coordToPixel(c.samplesPerSecond[i]);
            const double d = (px - pos.x()) * (px - pos.x()) + (py - pos.y()) * (py - pos.y());
            if (d < bestDistance) {
                bestDistance = d;
                best = &c;
                bestIndex = i;
            }
        }
    if (!best)
        return {};
    const double b = best->sizes[bestIndex], sps = best->samplesPerSecond[bestIndex];
    return tr("<b>%1</b> (%2)<br>micro-batch %3: %4 samples/s<br>one step (forward + backward) %5")
        .arg(QString::fromStdString(best->device), sourceText(*best))
        .arg(b)
        .arg(sps, 0, 'g', 4)
        .arg(viewutil::formatDuration(b / sps));
}

} // namespace hetplan

// ---------------------------------------------------------------- a planner's own curves

namespace hetplan {

namespace {
// A dotted vertical line at the largest micro-batch that fits, labelled near the top.
void addFitLimit(QCustomPlot* p, const QColor& colour, int mbs, int row)
{
    auto* line = new QCPItemStraightLine(p);
    line->point1->setCoords(mbs, 0);
    line->point2->setCoords(mbs, 1);
    line->setPen(QPen(colour, 1.2, Qt::DotLine));
    auto* label = new QCPItemText(p);
    label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    label->position->setCoords(mbs, 0.02 + 0.05 * row);
    label->setPositionAlignment(Qt::AlignRight | Qt::AlignTop);
    label->setPadding(QMargins(0, 0, 4, 0));
    label->setText(CurvesView::tr("largest that fits: %1").arg(mbs));
    label->setColor(palette::shade(colour, 0.35));
}
} // namespace

void CurvesView::setPlannerCurves(const PlannerCurves& curves)
{
    for (const PlannerCurve& c : curves.curves)
        curves_.push_back({c.device, c.measured, c.sizes, c.samplesPerSecond, c.lineSizes, c.lineSamplesPerSecond});
    QCustomPlot* p = newPlot();
    xLo_ = 1e300;
    xHi_ = 0;
    yHi_ = 0;
    for (size_t i = 0; i < curves.curves.size(); ++i)
        drawPlannerCurve(p, curves.curves[i], palette::seriesColor(int(i)));
    // Sizes the profiling found not to fit: crosses just above the axis, in the device's colour.
    for (size_t i = 0; i < curves.curves.size(); ++i) {
        const PlannerCurve& c = curves.curves[i];
        auto* crosses = addScatterGraph(
            p, QCPScatterStyle(QCPScatterStyle::ssCross, QPen(palette::seriesColor(int(i)), 2), Qt::NoBrush, 10));
        for (double b : c.outOfMemory) {
            crosses->addData(b, yHi_ * 0.03 * double(i + 1));
            includeInXRange(b);
            ++outOfMemoryMarks_;
        }
        if (c.largestFitting > 0)
            addFitLimit(p, palette::seriesColor(int(i)), c.largestFitting, int(i));
    }
    auto* profiled = new LegendSwatch(p->xAxis, p->yAxis, tr("profiled size"), {});
    profiled->setMarker(QCPScatterStyle(QCPScatterStyle::ssCircle, QColor(60, 60, 60), Qt::white, 7));
    auto* chosen = new LegendSwatch(p->xAxis, p->yAxis, tr("chosen micro-batch"), {});
    chosen->setMarker(QCPScatterStyle(QCPScatterStyle::ssDiamond, QPen(Qt::black, 1.2), Qt::gray, 11));
    if (outOfMemoryMarks_ > 0) {
        auto* oom = new LegendSwatch(p->xAxis, p->yAxis, tr("does not fit in memory"), {});
        oom->setMarker(QCPScatterStyle(QCPScatterStyle::ssCross, QPen(QColor(60, 60, 60), 2), Qt::NoBrush, 9));
    }
    setupAxes(p->xAxis, p->yAxis);
    p->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    p->legend->setVisible(true);
    placeLegendInRow(p->legend, 0, 3);
    addTitle(curves.title, curves.subtitle);
    applyRanges(p->xAxis, p->yAxis);
    setHasContent(true);
    plannerCurves_ = true;
}

// One device of a planner's curves: its fitted line, profiled points and chosen micro-batches.
void CurvesView::drawPlannerCurve(QCustomPlot* p, const PlannerCurve& curve, const QColor& colour)
{
    auto* line = p->addGraph(p->xAxis, p->yAxis);
    const Curve shown{curve.device, curve.measured, {}, {}, {}, {}};
    line->setName(QStringLiteral("%1 (%2)").arg(QString::fromStdString(curve.device), sourceText(shown)));
    line->setPen(QPen(colour, 2));
    line->setAntialiased(true);
    const std::vector<double>& xs = curve.lineSizes;
    const std::vector<double>& ys = curve.lineSamplesPerSecond;
    if (!xs.empty()) {
        line->setData(QVector<double>(xs.begin(), xs.end()), QVector<double>(ys.begin(), ys.end()), true);
        yHi_ = std::max(yHi_, *std::max_element(ys.begin(), ys.end()));
        includeInXRange(xs.front());
        includeInXRange(xs.back());
    }
    auto* dots = addScatterGraph(p, QCPScatterStyle(QCPScatterStyle::ssCircle, colour, Qt::white, 7));
    dots->setData(QVector<double>(curve.sizes.begin(), curve.sizes.end()),
                  QVector<double>(curve.samplesPerSecond.begin(), curve.samplesPerSecond.end()), true);
    profiledPoints_ += int(curve.sizes.size());
    yHi_ = std::max(yHi_, *std::max_element(curve.samplesPerSecond.begin(), curve.samplesPerSecond.end()));
    includeInXRange(curve.sizes.front());
    for (const PlannerCurve::Chosen& c : curve.chosen) {
        addZeroMarker(p, colour, c.microBatch, c.samplesPerSecond, c.gpus);
        includeInXRange(c.microBatch);
        ++markers_;
    }
}

} // namespace hetplan
