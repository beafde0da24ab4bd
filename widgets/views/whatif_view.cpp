#include "whatif_view.h"

#include "widgets/common/palette.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QToolBar>

#include <algorithm>
#include <cmath>
#include <limits>

namespace hetplan {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kHoverPixels = 10;
} // namespace

WhatIfView::WhatIfView(QWidget* parent)
    : PlotView(tr("Choose a parameter and its values above, then Run sweep: each ticked planner gets a line."), parent)
{
    setViewName(tr("what-if sweep"));
    metricBox_ = new QComboBox(this);
    metricBox_->setObjectName("WhatIfMetric");
    metricBox_->setToolTip(tr("What the lines show"));
    for (Metric m : {Metric::IterationTime, Metric::TokensPerSecond, Metric::DollarsPerMillionTokens})
        metricBox_->addItem(metricLabel(m), int(m));
    toolBar()->addSeparator();
    toolBar()->addWidget(metricBox_);
    connect(metricBox_, &QComboBox::currentIndexChanged, this,
            [this](int index) { setMetric(Metric(metricBox_->itemData(index).toInt())); });
}

QString WhatIfView::metricLabel(Metric metric)
{
    switch (metric) {
    case Metric::IterationTime:
        return tr("Simulated iteration time (ms)");
    case Metric::TokensPerSecond:
        return tr("Tokens per second");
    case Metric::DollarsPerMillionTokens:
        return tr("$ per million tokens");
    }
    return {};
}

QString WhatIfView::axisLabel(const std::string& axis)
{
    if (axis == "gbs")
        return tr("global batch size");
    if (axis == "seq")
        return tr("sequence length");
    if (axis == "zero")
        return tr("ZeRO stage");
    if (axis == "without")
        return tr("node left out");
    return QString::fromStdString(axis);
}

double WhatIfView::value(const SweepRow& row, Metric metric)
{
    // Only plans that fit memory are points: an infeasible estimate is not a time anyone can train at.
    if (row.status != RunStatus::Ok || !row.feasible)
        return kNaN;
    switch (metric) {
    case Metric::IterationTime:
        return row.iterationSeconds * 1e3; // ms, as the Comparison tab and the Gantt chart
    case Metric::TokensPerSecond:
        return row.tokensPerSecond;
    case Metric::DollarsPerMillionTokens:
        return row.cost ? row.cost->dollarsPerMillionTokens : kNaN;
    }
    return kNaN;
}

void WhatIfView::clear()
{
    sweep_ = {};
    PlotView::clear();
}

void WhatIfView::setSweep(Sweep sweep)
{
    sweep_ = std::move(sweep);
    redraw();
}

void WhatIfView::setMetric(Metric metric)
{
    if (const int i = metricBox_->findData(int(metric)); i != metricBox_->currentIndex()) {
        metricBox_->setCurrentIndex(i); // its signal comes back here with the box in step
        return;
    }
    metric_ = metric;
    if (!sweep_.rows.empty())
        redraw();
}

double WhatIfView::xOf(size_t i) const
{
    return sweep_.axis.name == "without" ? double(i) : std::stod(sweep_.axis.values[i]);
}

void WhatIfView::redraw()
{
    const SweepAxis& axis = sweep_.axis;
    const size_t n = axis.values.size(), planners = sweep_.planners.size();
    if (n == 0 || planners == 0 || sweep_.rows.size() != n * planners) {
        PlotView::clear();
        return;
    }
    QCustomPlot* p = newPlot();
    double yMax = 0;
    // Node sets are categories, not a scale: bars side by side per node left out; numbers get lines.
    const bool categories = axis.name == "without";
    auto* group = categories ? new QCPBarsGroup(p) : nullptr;
    for (size_t k = 0; k < planners; ++k) {
        const QColor colour = palette::plannerColor(sweep_.planners[k]);
        QCPBars* bars = nullptr;
        QCPGraph* line = nullptr;
        if (categories) {
            bars = new QCPBars(p->xAxis, p->yAxis);
            bars->setName(QString::fromStdString(sweep_.planners[k]));
            bars->setWidth(0.8 / double(planners));
            bars->setBarsGroup(group);
            bars->setPen(QPen(palette::shade(colour, 0.3), 1));
            bars->setBrush(colour);
        } else {
            line = p->addGraph(p->xAxis, p->yAxis);
            line->setName(QString::fromStdString(sweep_.planners[k]));
            line->setPen(QPen(colour, 2));
            line->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, colour, Qt::white, 8));
            line->setAntialiased(true);
        }
        for (size_t i = 0; i < n; ++i) { // rows: combination by combination, planners in order
            const double y = value(sweep_.rows[i * planners + k], metric_);
            if (line)
                line->addData(xOf(i), y); // NaN: a gap in the line
            else if (std::isfinite(y))
                bars->addData(xOf(i), y); // no bar: no plan
            if (std::isfinite(y))
                yMax = std::max(yMax, y);
        }
    }
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    double xLo = xOf(0), xHi = xOf(0);
    for (size_t i = 0; i < n; ++i) {
        ticker->addTick(xOf(i), QString::fromStdString(axis.values[i]));
        xLo = std::min(xLo, xOf(i));
        xHi = std::max(xHi, xOf(i));
    }
    const bool logScale = (axis.name == "gbs" || axis.name == "seq") && xLo > 0 && xHi >= 4 * xLo;
    p->xAxis->setTicker(ticker);
    p->xAxis->setScaleType(logScale ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    p->xAxis->setLabel(axisLabel(axis.name) + (logScale ? tr(" (log scale)") : QString()));
    const double pad = logScale ? 1.25 : 0;
    const double linPad = categories ? 0.6 : std::max(0.5, (xHi - xLo) * 0.06);
    p->xAxis->setRange(logScale ? xLo / pad : xLo - linPad, logScale ? xHi * pad : xHi + linPad);
    p->yAxis->setLabel(metricLabel(metric_));
    p->yAxis->setNumberFormat(QStringLiteral("g"));
    p->yAxis->setNumberPrecision(4);
    p->yAxis->setRange(0, yMax > 0 ? yMax * 1.12 : 1);
    p->legend->setVisible(true);
    placeLegendInRow(p->legend, 0, 6);
    addTitle(tr("What if the %1 changes?").arg(axisLabel(axis.name)),
             tr("%1 · %2 · a gap: no plan that fits").arg(QString::fromStdString(sweep_.cluster),
                                                          QString::fromStdString(sweep_.model)));
    setExportBaseName(QStringLiteral("%1-%2-whatif-%3")
                          .arg(QString::fromStdString(sweep_.cluster), QString::fromStdString(sweep_.model),
                               QString::fromStdString(axis.name)));
    setHasContent(true);
}

QString WhatIfView::toolTipAt(const QPointF& pos) const
{
    auto* p = const_cast<QCustomPlot*>(plot()); // plottable(k) has no const overload; nothing is changed
    if (isEmpty() || !p)
        return {};
    // Plottables are added planner by planner, so plottable k is planner k's line or bars.
    for (int k = 0; k < p->plottableCount(); ++k) {
        if (auto* bars = qobject_cast<QCPBars*>(p->plottable(k))) {
            QVariant details;
            const double d = bars->selectTest(pos, false, &details);
            const QCPDataSelection hit = details.value<QCPDataSelection>();
            if (d >= 0 && d < p->selectionTolerance() && !hit.isEmpty())
                return rowToolTip(bars->data()->at(hit.dataRange().begin())->key, size_t(k));
            continue;
        }
        const auto* graph = qobject_cast<QCPGraph*>(p->plottable(k));
        if (!graph)
            continue;
        for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it) {
            if (!std::isfinite(it->value))
                continue;
            const QPointF at(p->xAxis->coordToPixel(it->key), p->yAxis->coordToPixel(it->value));
            if (std::hypot(at.x() - pos.x(), at.y() - pos.y()) <= kHoverPixels)
                return rowToolTip(it->key, size_t(k));
        }
    }
    return {};
}

QString WhatIfView::rowToolTip(double x, size_t planner) const
{
    // The plot keeps its data sorted by x; the values may have been given in any order.
    size_t i = 0;
    while (i + 1 < sweep_.axis.values.size() && xOf(i) != x)
        ++i;
    const SweepRow& row = sweep_.rows[i * sweep_.planners.size() + planner];
    return tr("%1 at %2 = %3\n%4 ms per iteration · %5 tokens/s%6")
        .arg(QString::fromStdString(row.planner), axisLabel(sweep_.axis.name), QString::fromStdString(sweep_.axis.values[i]))
        .arg(row.iterationSeconds * 1e3, 0, 'f', 1)
        .arg(row.tokensPerSecond, 0, 'f', 0)
        .arg(row.cost ? tr(" · $%1 per M tokens").arg(row.cost->dollarsPerMillionTokens, 0, 'f', 3) : QString());
}

} // namespace hetplan
