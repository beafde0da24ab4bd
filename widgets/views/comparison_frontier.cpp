#include "comparison_frontier.h"

#include "widgets/common/palette.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

namespace hetplan {

std::vector<FrontierPlan> frontierPlans(const std::vector<Plan>& plans, const QStringList& names)
{
    std::vector<FrontierPlan> out;
    for (size_t i = 0; i < plans.size() && i < size_t(names.size()); ++i) {
        const Plan& p = plans[i];
        if (!p.estimate.cost || !p.estimate.feasible)
            continue;
        out.push_back({names[qsizetype(i)], p.planner, p.estimate.cost->dollarsPerHour, p.estimate.tokensPerSecond,
                       selectionPoints(p)});
    }
    return out;
}

namespace {
std::vector<FrontierPoint> allPoints(const std::vector<FrontierPlan>& plans)
{
    std::vector<FrontierPoint> points;
    for (const FrontierPlan& p : plans) {
        points.push_back({p.dollarsPerHour, p.tokensPerSecond, p.name.toStdString()});
        for (const FrontierPoint& t : p.tried) // subsets are shown but named by the plan they belong to
            points.push_back({t.dollarsPerHour, t.tokensPerSecond, t.label});
    }
    return points;
}

QCPGraph* dots(QCustomPlot* plot, QCPAxisRect* rect, const QColor& colour, double size)
{
    QCPGraph* g = plot->addGraph(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    g->setLineStyle(QCPGraph::lsNone);
    g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, colour, colour, size));
    g->removeFromLegend();
    return g;
}
} // namespace

QStringList frontierNames(const std::vector<FrontierPlan>& plans)
{
    QStringList out;
    for (const FrontierPoint& f : costFrontier(allPoints(plans)))
        out << QString::fromStdString(f.label);
    return out;
}

void drawFrontierPanel(QCustomPlot* plot, QCPAxisRect* rect, const std::vector<FrontierPlan>& plans)
{
    QCPAxis* x = rect->axis(QCPAxis::atBottom);
    QCPAxis* y = rect->axis(QCPAxis::atLeft);
    x->setLabel(QCoreApplication::translate("ComparisonView", "cost ($ / hour)"));
    y->setLabel(QCoreApplication::translate("ComparisonView", "throughput (k tokens/s)"));
    QFont tf = plot->font();
    tf.setPointSizeF(8.5);
    x->setTickLabelFont(tf);
    y->setTickLabelFont(tf);
    for (QCPAxis* a : {x, y})
        a->grid()->setPen(QPen(palette::gridLine(), 0, Qt::DotLine));
    const std::vector<FrontierPoint> points = allPoints(plans);
    QCPGraph* tried = dots(plot, rect, QColor(170, 170, 170), 4);
    for (const FrontierPlan& p : plans)
        for (const FrontierPoint& t : p.tried)
            tried->addData(t.dollarsPerHour, t.tokensPerSecond / 1e3);
    // The staircase: from each frontier point the throughput holds until the next, dearer one.
    QCPGraph* line = plot->addGraph(x, y);
    line->setLineStyle(QCPGraph::lsStepLeft);
    line->setPen(QPen(QColor(90, 90, 90), 1.2, Qt::DashLine));
    line->setName(QCoreApplication::translate("ComparisonView", "cost-throughput frontier"));
    const std::vector<FrontierPoint> frontier = costFrontier(points);
    for (const FrontierPoint& f : frontier)
        line->addData(f.dollarsPerHour, f.tokensPerSecond / 1e3);
    if (frontier.size() < 2) // a single point draws no staircase: no legend entry for one
        line->removeFromLegend();
    double maxX = 0, maxY = 0;
    for (const FrontierPoint& f : points) {
        maxX = std::max(maxX, f.dollarsPerHour);
        maxY = std::max(maxY, f.tokensPerSecond / 1e3);
    }
    for (const FrontierPlan& p : plans) {
        dots(plot, rect, palette::plannerColor(p.planner), 8)->addData(p.dollarsPerHour, p.tokensPerSecond / 1e3);
        auto* label = new QCPItemText(plot);
        label->setClipAxisRect(rect);
        label->position->setAxes(x, y);
        label->position->setCoords(p.dollarsPerHour, p.tokensPerSecond / 1e3);
        label->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
        label->setPadding(QMargins(0, 0, 0, 5));
        label->setText(p.name);
    }
    x->setRange(0, std::max(maxX, 1e-9) * 1.25); // room for the name over the dearest plan
    y->setRange(0, std::max(maxY, 1e-9) * 1.18);
    rect->setRangeDrag(Qt::Orientations());
    rect->setRangeZoom(Qt::Orientations());
}

QString frontierToolTip(const QCPAxisRect* rect, const std::vector<FrontierPlan>& plans, const QPointF& pos)
{
    const QCPAxis* x = rect->axis(QCPAxis::atBottom);
    const QCPAxis* y = rect->axis(QCPAxis::atLeft);
    QString best;
    double bestDistance = 8;
    const auto consider = [&](double dollars, double tokens, const QString& text) {
        const double d = std::hypot(x->coordToPixel(dollars) - pos.x(), y->coordToPixel(tokens / 1e3) - pos.y());
        if (d <= bestDistance) {
            bestDistance = d;
            best = QCoreApplication::translate("ComparisonView", "%1<br>$%2 per hour, %3 tokens/s")
                       .arg(text)
                       .arg(dollars, 0, 'f', 2)
                       .arg(tokens, 0, 'f', 0);
        }
    };
    for (const FrontierPlan& p : plans) {
        for (const FrontierPoint& t : p.tried)
            consider(t.dollarsPerHour, t.tokensPerSecond, QString::fromStdString(t.label).toHtmlEscaped());
        consider(p.dollarsPerHour, p.tokensPerSecond, QStringLiteral("<b>%1</b>").arg(p.name.toHtmlEscaped()));
    }
    return best;
}

} // namespace hetplan
