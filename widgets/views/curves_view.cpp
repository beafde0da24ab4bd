#include "curves_view.h"

#include "legend_swatch.h"
#include "view_util.h"
#include "widgets/common/palette.h"

#include "core/cost/spline.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <memory>

namespace hetplan {

CurvesView::CurvesView(QWidget* parent)
    : PlotView(tr("Run a planner to see throughput against micro-batch size for each GPU type."), parent)
{
}

void CurvesView::clear()
{
    curves_.clear();
    markers_ = 0;
    PlotView::clear();
}

void CurvesView::setData(const Cluster& cluster, const CostModel& costs, const Plan* plan)
{
    clear();
    const int layers = costs.model().layerCount();
    if (layers <= 0 || cluster.nodes.empty())
        return;
    const auto types = viewutil::deviceTypes(cluster);

    for (const std::string& type : types) {
        Curve c;
        c.device = type;
        c.measured = costs.isMeasured(type, 1);
        std::vector<int> sizes;
        if (c.measured)
            sizes = costs.measured().microBatches(type, 1);
        if (sizes.empty())
            sizes = {1, 2, 4, 8, 16, 32, 64};
        try {
            for (int b : sizes) {
                if (b <= 0)
                    continue;
                const LayerTiming t = costs.range(0, layers, type, 1, b);
                const double step = t.forward + t.backward;
                if (!(step > 0) || !std::isfinite(step))
                    continue;
                c.sizes.push_back(b);
                c.samplesPerSecond.push_back(b / step);
            }
        } catch (const std::exception&) {
            continue;   // device not in the catalog and not measured: nothing to draw for it
        }
        if (!c.sizes.empty())
            curves_.push_back(std::move(c));
    }
    if (curves_.empty())
        return;

    QCustomPlot* p = newPlot();
    QCPAxis* x = p->xAxis;
    QCPAxis* y = p->yAxis;
    xLo_ = 1e300;
    xHi_ = 0;
    yHi_ = 0;
    for (const Curve& c : curves_) {
        xLo_ = std::min(xLo_, c.sizes.front());
        xHi_ = std::max(xHi_, c.sizes.back());
    }

    std::map<std::string, int> colourOf;
    std::map<std::string, const NaturalCubicSpline*> splineOf;
    std::vector<std::unique_ptr<NaturalCubicSpline>> splines;
    for (size_t i = 0; i < curves_.size(); ++i) {
        const Curve& c = curves_[i];
        const QColor colour = palette::seriesColor(int(i));
        colourOf[c.device] = int(i);
        auto* line = p->addGraph(x, y);
        line->setName(QStringLiteral("%1 (%2)").arg(QString::fromStdString(c.device),
                                                     c.measured ? tr("measured") : tr("analytic")));
        line->setPen(QPen(colour, 2));
        line->setAntialiased(true);
        if (c.sizes.size() >= 2) {
            splines.push_back(std::make_unique<NaturalCubicSpline>(c.sizes, c.samplesPerSecond));
            splineOf[c.device] = splines.back().get();
            // Sample evenly in log(b) so the curve is smooth on the log axis.
            const int n = 240;
            const double a = std::log(c.sizes.front()), b = std::log(c.sizes.back());
            QVector<double> xs, ys;
            for (int k = 0; k <= n; ++k) {
                const double xv = std::exp(a + (b - a) * k / n);
                xs << xv;
                ys << (*splines.back())(xv);
            }
            line->setData(xs, ys, true);
            for (double v : ys)
                yHi_ = std::max(yHi_, v);
        }
        auto* dots = p->addGraph(x, y);
        dots->removeFromLegend();
        dots->setLineStyle(QCPGraph::lsNone);
        dots->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, colour, Qt::white, 7));
        dots->setData(QVector<double>(c.sizes.begin(), c.sizes.end()),
                      QVector<double>(c.samplesPerSecond.begin(), c.samplesPerSecond.end()), true);
        for (double v : c.samplesPerSecond)
            yHi_ = std::max(yHi_, v);
    }

    // The plan's micro-batch sizes: per ZeRO GPU on its type's curve (one marker per type and size, with
    // the GPU count), or one vertical line for a pipeline plan.
    markers_ = 0;
    if (plan && plan->zero) {
        std::map<std::pair<std::string, int>, int> count;
        for (const ZeroGpu& z : plan->zero->gpus)
            if (z.gpu >= 0 && z.gpu < cluster.gpuCount())
                ++count[{cluster.nodeOf(z.gpu).deviceType, z.microBatchSize}];
        for (const auto& [key, n] : count) {
            auto it = colourOf.find(key.first);
            if (it == colourOf.end())
                continue;
            const Curve& c = curves_[it->second];
            double value;
            if (auto s = splineOf.find(key.first); s != splineOf.end())
                value = (*s->second)(key.second);
            else
                value = c.samplesPerSecond.front() * key.second / c.sizes.front();
            auto* mark = p->addGraph(x, y);
            mark->removeFromLegend();
            mark->setLineStyle(QCPGraph::lsNone);
            mark->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond, QPen(Qt::black, 1.2),
                                                  palette::seriesColor(it->second), 13));
            mark->addData(key.second, value);
            auto* label = new QCPItemText(p);
            label->position->setCoords(key.second, value);
            label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
            label->setPadding(QMargins(8, 6, 0, 0));
            label->setText(n == 1 ? tr("1 GPU, mbs %1").arg(key.second) : tr("%1 GPUs, mbs %2").arg(n).arg(key.second));
            QFont f = p->font();
            f.setPointSizeF(8);
            label->setFont(f);
            label->setColor(palette::shade(palette::seriesColor(it->second), 0.35));
            xLo_ = std::min(xLo_, double(key.second));
            xHi_ = std::max(xHi_, double(key.second));
            ++markers_;
        }
        if (markers_ > 0) {
            auto* legendMark = new LegendSwatch(x, y, tr("chosen micro-batch (ZeRO plan)"), {});
            legendMark->setMarker(QCPScatterStyle(QCPScatterStyle::ssDiamond, QPen(Qt::black, 1.2), Qt::gray, 11));
        }
    } else if (plan && !plan->pipelines.empty()) {
        const int mbs = plan->pipelines.front().microBatchSize;
        auto* line = new QCPItemStraightLine(p);
        line->point1->setCoords(mbs, 0);
        line->point2->setCoords(mbs, 1);
        line->setPen(QPen(QColor(80, 80, 80), 1, Qt::DashLine));
        auto* label = new QCPItemText(p);
        label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        label->position->setCoords(mbs, 0.02);
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
        label->setPadding(QMargins(4, 0, 0, 0));
        label->setText(tr("plan's micro-batch %1").arg(mbs));
        label->setColor(QColor(60, 60, 60));
        ++markers_;
    }
    auto* profiled = new LegendSwatch(x, y, tr("profiled size"), {});
    profiled->setMarker(QCPScatterStyle(QCPScatterStyle::ssCircle, QColor(60, 60, 60), Qt::white, 7));

    x->setScaleType(QCPAxis::stLogarithmic);
    auto logTicker = QSharedPointer<QCPAxisTickerLog>::create();
    logTicker->setLogBase(2);
    logTicker->setSubTickCount(0);
    x->setTicker(logTicker);
    x->setNumberFormat(QStringLiteral("g"));
    x->setLabel(tr("micro-batch size (samples, log scale)"));
    y->setLabel(tr("throughput (samples/s)"));
    y->setNumberFormat(QStringLiteral("g"));
    y->setNumberPrecision(4);
    p->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);

    p->legend->setVisible(true);
    placeLegendInRow(p->legend, 0, 4);
    addTitle(tr("Throughput against micro-batch size"),
             tr("%1, sequence %2 · whole model on one GPU (tp 1)")
                 .arg(QString::fromStdString(costs.model().name))
                 .arg(costs.job().sequenceLength));
    x->setRange(xLo_ / 1.25, xHi_ * 1.25);
    y->setRange(0, yHi_ * 1.1);
    setHasContent(true);
}

void CurvesView::resetZoom()
{
    if (isEmpty())
        return;
    plot()->xAxis->setRange(xLo_ / 1.25, xHi_ * 1.25);
    plot()->yAxis->setRange(0, yHi_ * 1.1);
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
        .arg(QString::fromStdString(best->device), best->measured ? tr("measured") : tr("analytic"))
        .arg(b)
        .arg(sps, 0, 'g', 4)
        .arg(viewutil::formatDuration(b / sps));
}

} // namespace hetplan
