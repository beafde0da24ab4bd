#include "comparison_view.h"
#include "comparison_frontier.h"
#include "comparison_panels.h"

#include "widgets/models/current_plan.h"
#include "legend_swatch.h"
#include "view_util.h"
#include "widgets/common/palette.h"

#include <qcustomplot.h>

#include <QLabel>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <map>

namespace hetplan {

using comparison::bars;
using comparison::compact;
using comparison::setupPanel;
using comparison::valueLabel;

namespace {
QColor simulatedColour() { return palette::tableau10(0); }
QColor estimateColour() { return palette::tableau10(1); }
QColor tokensColour() { return palette::tableau10(4); }
QColor searchColour() { return palette::tableau10(6); }
QColor costColour() { return palette::tableau10(3); } // not red: red means "does not fit"

} // namespace

// The placeholder names the menu item that fills the view (a test checks that it exists).
ComparisonView::ComparisonView(QWidget* parent)
    : PlotView(tr("Run several planners to see their plans side by side: tick them on the Run tab, then choose "
                  "Run ▸ Run Planners (F5)."),
               parent)
{
    setViewName(tr("comparison"));
    failureList_ = new QLabel(this);
    failureList_->setWordWrap(true);
    failureList_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    failureList_->setContentsMargins(8, 4, 8, 6);
    failureList_->setVisible(false);
    if (auto* box = qobject_cast<QVBoxLayout*>(layout()))
        box->addWidget(failureList_);
}

void ComparisonView::showCurrent(const CurrentPlan& current)
{
    if (current.runPlans().empty() && current.failures().empty()) {
        clear();
        return;
    }
    setPlans(current.runPlans(), current.runPlanLabels());
    setFailures(current.failures());
}

void ComparisonView::clear()
{
    rows_.clear();
    names_.clear();
    throughputTicks_.clear();
    costLabels_.clear();
    frontier_.clear();
    setFailures({});
    PlotView::clear();
}

void ComparisonView::setFailures(const std::vector<PlannerFailure>& failures)
{
    failureLines_.clear();
    for (const PlannerFailure& f : failures)
        failureLines_ << tr("%1 (%2): %3").arg(f.planner, f.status, f.reason);
    QStringList items;
    for (const QString& line : failureLines_)
        items << QStringLiteral("<li>%1</li>").arg(line.toHtmlEscaped());
    failureList_->setText(
        QStringLiteral("<b>%1</b><ul style=\"margin: 0\">%2</ul>")
            .arg(failures.size() == 1 ? tr("1 planner gave no plan:") : tr("%1 planners gave no plan:").arg(failures.size()),
                 items.join(QString())));
    failureList_->setToolTip(failureLines_.join(QLatin1Char('\n')));
    failureList_->setVisible(!failures.empty());
}

namespace {
// The panels: iteration time across the top (with cost per token beside it when plans have a cost),
// throughput and search time side by side below.
struct Panels {
    QCPAxisRect* time;
    QCPAxisRect* tokens;
    QCPAxisRect* search;
    QCPAxisRect* cost = nullptr;
    QCPAxisRect* frontier = nullptr;
};

Panels addPanels(QCustomPlot* p, bool withCost)
{
    Panels panels{p->axisRect(), new QCPAxisRect(p), new QCPAxisRect(p)};
    if (withCost) {
        // The time panel moves into a grid of its own so that the cost panel can stand beside it.
        auto* top = new QCPLayoutGrid;
        p->plotLayout()->take(panels.time);
        p->plotLayout()->addElement(0, 0, top);
        panels.cost = new QCPAxisRect(p);
        top->addElement(0, 0, panels.time);
        top->addElement(0, 1, panels.cost);
        top->setColumnSpacing(12);
        top->setColumnStretchFactor(0, 1.6);
    }
    auto* bottom = new QCPLayoutGrid;
    p->plotLayout()->addElement(1, 0, bottom);
    bottom->addElement(0, 0, panels.tokens);
    bottom->addElement(0, 1, panels.search);
    bottom->setColumnSpacing(12);
    p->plotLayout()->setRowStretchFactor(0, 1.1); // legend and title rows are inserted above later
    p->plotLayout()->setRowStretchFactor(1, 1.0);
    auto* group = new QCPMarginGroup(p);
    panels.time->setMarginGroup(QCP::msLeft, group);
    panels.tokens->setMarginGroup(QCP::msLeft, group);
    if (withCost) { // what each plan costs against what it delivers, beside the throughput
        panels.frontier = new QCPAxisRect(p);
        bottom->addElement(0, 2, panels.frontier);
    }
    return panels;
}

// The iteration-time panel's series: feasible and infeasible simulated times, planners' estimates.
struct TimeBars {
    QCPBars* simulated;
    QCPBars* infeasible;
    QCPBars* estimate;
};

TimeBars addTimeBars(QCPAxisRect* rect, double width)
{
    TimeBars b{bars(rect, simulatedColour(), width), bars(rect, palette::tint(palette::overCapacity(), 0.55), width),
               bars(rect, estimateColour(), width)};
    b.simulated->setName(ComparisonView::tr("simulated iteration time"));
    b.infeasible->setBrush(QBrush(palette::overCapacity(), Qt::BDiagPattern));
    b.infeasible->setPen(QPen(palette::overCapacity(), 1.2));
    b.infeasible->setName(ComparisonView::tr("simulated, does not fit memory"));
    b.estimate->setName(ComparisonView::tr("planner's own estimate"));
    return b;
}

// A log axis for search times, 10 per decade with 8 sub-ticks.
void setLogAxis(QCPAxis* axis)
{
    axis->setScaleType(QCPAxis::stLogarithmic);
    auto logTicker = QSharedPointer<QCPAxisTickerLog>::create();
    logTicker->setLogBase(10);
    logTicker->setSubTickCount(8);
    axis->setTicker(logTicker);
    axis->setNumberFormat(QStringLiteral("gb"));
}

QString planName(const Plan& plan)
{
    return QString::fromStdString(plan.planner.empty() ? std::string("plan") : plan.planner);
}
} // namespace

void ComparisonView::setPlans(const std::vector<Plan>& plans, const QStringList& labels)
{
    clear();
    if (plans.empty())
        return;
    collectRows(plans, labels.size() == qsizetype(plans.size()) ? labels : QStringList());
    const QStringList ticks = tickNames();
    QCustomPlot* p = newPlot();
    const Panels panels = addPanels(p, anyCost());
    drawTimePanel(p, panels.time, ticks);
    if (panels.cost)
        drawCostPanel(p, panels.cost, ticks);
    throughputTicks_ = withMetricLines(ticks);
    drawTokensPanel(p, panels.tokens, throughputTicks_);
    tokensRect_ = panels.tokens;
    drawSearchPanel(p, panels.search, ticks);
    if (panels.frontier) {
        frontier_ = frontierPlans(plans, names_);
        drawFrontierPanel(p, panels.frontier, frontier_);
        frontierRect_ = panels.frontier;
    }
    // The values over the bars fit the panels' real widths, known once the plot is laid out.
    connect(p, &QCustomPlot::afterLayout, p, [this, p] {
        bool changed = false;
        for (QCPAxisRect* rect : p->axisRects())
            changed |= fitValueLabels(rect);
        if (changed)
            p->replot(QCustomPlot::rpQueuedReplot);
    });

    p->legend->setVisible(true);
    placeLegendInRow(p->legend, 0, 4);
    const int n = int(rows_.size());
    const QString plansText = n == 1 ? tr("1 plan") : tr("%1 plans").arg(n);
    addTitle(tr("Planner comparison"), plans.front().cluster.name.empty()
                                           ? plansText
                                           : tr("%1 on %2 · %3")
                                                 .arg(QString::fromStdString(plans.front().model.name),
                                                      QString::fromStdString(plans.front().cluster.name), plansText));
    setHasContent(true);
}

namespace {
// The marks of the plan's first planner section that gives any (HetHub's bound, baseline and MFU).
ComparisonMarks marksOf(const Plan& plan)
{
    for (const auto& [section, object] : plan.details)
        if (const PlannerDisplay* display = plannerDisplay(section); display && display->comparison)
            return display->comparison(object, plan);
    return {};
}
} // namespace

// One row per plan; a name that appears more than once gets " #2", " #3", ... after it.
void ComparisonView::collectRows(const std::vector<Plan>& plans, const QStringList& labels)
{
    std::map<QString, int> seen;
    for (size_t i = 0; i < plans.size(); ++i) {
        const Plan& plan = plans[i];
        Row r;
        r.iteration = plan.estimate.iterationSeconds;
        r.tokens = plan.estimate.tokensPerSecond;
        r.searchSeconds = plan.search.seconds;
        r.candidates = plan.search.candidates;
        r.estimate = plan.plannerEstimate;
        r.cost = plan.estimate.cost;
        r.feasible = plan.estimate.feasible;
        r.marks = marksOf(plan);
        rows_.push_back(r);
        QString name = labels.isEmpty() ? planName(plan) : labels[qsizetype(i)];
        if (const int n = ++seen[name]; n > 1)
            name += QStringLiteral(" #%1").arg(n);
        names_ << name;
    }
}

QStringList ComparisonView::tickNames() const
{
    QStringList ticks = names_;
    for (size_t i = 0; i < rows_.size(); ++i)
        if (!rows_[i].feasible)
            ticks[int(i)] += tr("\n(does not fit)");
    return ticks;
}

// A plan's MFU and throughput over its upper bound (HetHub's eq. 4 and eq. 3) on a second line under its
// name, so they read without hovering.
QStringList ComparisonView::withMetricLines(const QStringList& ticks) const
{
    QStringList out = ticks;
    for (int i = 0; i < int(rows_.size()) && i < int(out.size()); ++i) {
        const Row& r = rows_[i];
        QStringList metrics;
        if (r.marks.mfu)
            metrics << tr("MFU %1 %").arg(*r.marks.mfu * 100, 0, 'f', 1);
        if (r.marks.upperBoundTokens && *r.marks.upperBoundTokens > 0)
            metrics << tr("%1 % of bound").arg(r.tokens / *r.marks.upperBoundTokens * 100, 0, 'f', 0);
        if (!metrics.isEmpty())
            out[i] += QLatin1Char('\n') + metrics.join(QStringLiteral(" · "));
    }
    return out;
}

// Panel 1: iteration time, simulated vs the planner's own estimate.
void ComparisonView::drawTimePanel(QCustomPlot* p, QCPAxisRect* rect, const QStringList& ticks) const
{
    double maxTime = 0;
    bool anyEstimate = false;
    for (const Row& r : rows_) {
        maxTime = std::max(maxTime, r.iteration);
        if (r.estimate) {
            anyEstimate = true;
            maxTime = std::max(maxTime, *r.estimate);
        }
    }
    const viewutil::TimeUnit unit = viewutil::timeUnitFor(maxTime);
    setupPanel(p, rect, ticks, tr("iteration time (%1)").arg(unit.name));
    // With estimates, each plan's two bars stand side by side around its tick.
    const double offset = anyEstimate ? 0.19 : 0.0;
    const TimeBars b = addTimeBars(rect, anyEstimate ? 0.36 : 0.55);
    bool anyInfeasible = false;
    for (int i = 0; i < int(rows_.size()); ++i) {
        const Row& r = rows_[i];
        const double v = r.iteration * unit.scale;
        // A plan without an estimate gets its one bar centred on its tick.
        const double shift = r.estimate ? offset : 0.0;
        (r.feasible ? b.simulated : b.infeasible)->addData(i - shift, v);
        anyInfeasible |= !r.feasible;
        valueLabel(p, rect, i - shift, v, compact(v), r.feasible ? QColor(40, 40, 40) : palette::overCapacity());
        if (r.estimate) {
            const double e = *r.estimate * unit.scale;
            b.estimate->addData(i + shift, e);
            valueLabel(p, rect, i + shift, e, compact(e));
        }
    }
    if (!anyInfeasible)
        b.infeasible->removeFromLegend();
    if (!anyEstimate)
        b.estimate->removeFromLegend();
    rect->axis(QCPAxis::atLeft)->setRange(0, std::max(maxTime * unit.scale, 1e-12) * 1.18);
}

bool ComparisonView::anyCost() const
{
    return std::any_of(rows_.begin(), rows_.end(), [](const Row& r) { return r.cost.has_value(); });
}

// Beside the time: what a million tokens cost at the GPUs' prices; a plan using an unpriced GPU says so.
void ComparisonView::drawCostPanel(QCustomPlot* p, QCPAxisRect* rect, const QStringList& ticks)
{
    setupPanel(p, rect, ticks, tr("cost ($ / M tokens)"));
    QCPBars* cost = bars(rect, costColour(), 0.55);
    cost->removeFromLegend();
    double maxCost = 0;
    for (int i = 0; i < int(rows_.size()); ++i) {
        const std::optional<PlanCost>& c = rows_[i].cost;
        const double v = c ? c->dollarsPerMillionTokens : 0;
        costLabels_ << (c ? QString::number(v, 'g', 3) : tr("no price")); // the axis says $ per M tokens
        if (c)
            cost->addData(i, v);
        maxCost = std::max(maxCost, v);
    }
    for (int i = 0; i < int(rows_.size()); ++i)
        valueLabel(p, rect, i, rows_[i].cost ? rows_[i].cost->dollarsPerMillionTokens : 0, costLabels_[i],
                   rows_[i].cost ? QColor(40, 40, 40) : QColor(120, 120, 120));
    rect->axis(QCPAxis::atLeft)->setRange(0, std::max(maxCost, 1e-9) * 1.18);
}

// Panel 2: throughput.
void ComparisonView::drawTokensPanel(QCustomPlot* p, QCPAxisRect* rect, const QStringList& ticks) const
{
    double maxTokens = 0;
    for (const Row& r : rows_)
        maxTokens = std::max(maxTokens, r.tokens);
    // Thousands of tokens/s read better as "k" on the axis than as 1.25e+05.
    const bool kilo = maxTokens >= 1e4;
    const double tokenScale = kilo ? 1e-3 : 1.0;
    setupPanel(p, rect, ticks, kilo ? tr("throughput (k tokens/s)") : tr("throughput (tokens/s)"));
    QCPBars* tokens = bars(rect, tokensColour(), 0.55);
    tokens->removeFromLegend();
    for (int i = 0; i < int(rows_.size()); ++i) {
        const double v = rows_[i].tokens * tokenScale;
        tokens->addData(i, v);
        valueLabel(p, rect, i, v, compact(v));
    }
    drawMarks(p, rect, tokenScale);
    for (const Row& r : rows_)
        maxTokens = std::max(maxTokens, r.marks.upperBoundTokens.value_or(0));
    QCPAxis* y = rect->axis(QCPAxis::atLeft);
    y->setRange(0, std::max(maxTokens * tokenScale, 1e-9) * 1.18);
    y->setNumberFormat(QStringLiteral("g"));
    y->setNumberPrecision(6);
}

// Over a bar with marks: its upper bound (dashed) and its baseline (dotted), e.g. HetHub's eq. 3 bound and
// uniform layer split.
void ComparisonView::drawMarks(QCustomPlot* p, QCPAxisRect* rect, double tokenScale) const
{
    auto mark = [&](int i, double value, Qt::PenStyle style, const QString& text) {
        auto* line = new QCPItemLine(p);
        line->setClipAxisRect(rect);
        line->start->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
        line->end->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
        line->start->setCoords(i - 0.4, value * tokenScale);
        line->end->setCoords(i + 0.4, value * tokenScale);
        line->setPen(QPen(QColor(40, 40, 40), 1.5, style));
        line->setObjectName(text); // named for tests; the legend says what the line style means
    };
    QString boundLegend, baselineLegend; // the first plan's that has one
    for (int i = 0; i < int(rows_.size()); ++i) {
        const ComparisonMarks& m = rows_[i].marks;
        if (m.upperBoundTokens) {
            mark(i, *m.upperBoundTokens, Qt::DashLine, tr("upper bound"));
            boundLegend = boundLegend.isEmpty() ? m.upperBoundLegend : boundLegend;
        }
        if (m.uniformSplitTokens) {
            mark(i, *m.uniformSplitTokens, Qt::DotLine, tr("uniform"));
            baselineLegend = baselineLegend.isEmpty() ? m.uniformSplitLegend : baselineLegend;
        }
    }
    // The marks in the legend: an empty graph carries each line style.
    auto legendEntry = [&](Qt::PenStyle style, const QString& name) {
        auto* entry = new QCPGraph(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
        entry->setPen(QPen(QColor(40, 40, 40), 1.5, style));
        entry->setName(name);
    };
    if (!boundLegend.isEmpty())
        legendEntry(Qt::DashLine, boundLegend);
    if (!baselineLegend.isEmpty())
        legendEntry(Qt::DotLine, baselineLegend);
}

// Panel 3: search time on a log axis (planners differ by orders of magnitude). A log axis cannot show 0,
// so times below 1 µs sit at 1 µs.
void ComparisonView::drawSearchPanel(QCustomPlot* p, QCPAxisRect* rect, const QStringList& ticks) const
{
    setupPanel(p, rect, ticks, tr("search time (ms, log)"));
    setLogAxis(rect->axis(QCPAxis::atLeft));
    const int n = int(rows_.size());
    double lo = 1e300, hi = 0;
    std::vector<double> ms(n);
    for (int i = 0; i < n; ++i) {
        ms[i] = std::max(rows_[i].searchSeconds * 1e3, 1e-3);
        lo = std::min(lo, ms[i]);
        hi = std::max(hi, ms[i]);
    }
    // Bars grow from the decade below the fastest search (one more when all are equal, so they show).
    const double base = std::pow(10.0, std::floor(std::log10(lo)) - (lo == hi ? 1 : 0));
    QCPBars* search = bars(rect, searchColour(), 0.55);
    search->removeFromLegend();
    search->setBaseValue(base);
    for (int i = 0; i < n; ++i) {
        search->addData(i, ms[i]);
        valueLabel(p, rect, i, ms[i], ms[i] >= 100 ? compact(ms[i]) : QString::number(ms[i], 'g', 2)); // in ms
    }
    rect->axis(QCPAxis::atLeft)->setRange(base, std::pow(10.0, std::ceil(std::log10(hi) + 0.35)));
}

void ComparisonView::adaptToSize(const QSize& size)
{
    PlotView::adaptToSize(size);
    // Planner names lie flat while they fit side by side, else they tilt. The top panel spans the width,
    // the lower panels (two, or three with the frontier) share it (minus axis labels and tick labels on the left).
    const QList<QCPAxisRect*> rects = plot()->axisRects();
    if (rects.size() < 3 || names_.isEmpty())
        return;
    const QFontMetrics fm(rects[0]->axis(QCPAxis::atBottom)->tickLabelFont());
    int widest = 0;
    for (const QString& name : names_)
        widest = std::max(widest, fm.horizontalAdvance(name));
    const double need = names_.size() * (widest + 12.0);
    // With the cost panel the top row is shared too (time takes 1.6 parts of 2.6, cost the rest).
    const bool cost = rects.size() >= 4;
    const double top = (cost ? (size.width() - 12) / 2.6 : size.width()) - 90.0;
    const double lower = (size.width() - 12) / (frontierRect_ ? 3.0 : 2.0) - 90.0;
    for (int i = 0; i < int(rects.size()); ++i) {
        if (rects[i] == frontierRect_) // numbers on its axes, not names
            continue;
        const double width = i == 0 && !cost ? top : std::min(top, lower);
        const bool tilt = need > width;
        rects[i]->axis(QCPAxis::atBottom)->setTickLabelRotation(tilt ? -30 : 0);
        if (rects[i] == tokensRect_) // tilted, the metric line under a name would run into the next names
            setTickTexts(rects[i], tilt ? names_ : throughputTicks_);
    }
}

void ComparisonView::setTickTexts(QCPAxisRect* rect, const QStringList& texts)
{
    auto ticker = qSharedPointerDynamicCast<QCPAxisTickerText>(rect->axis(QCPAxis::atBottom)->ticker());
    if (!ticker || texts.size() != ticker->ticks().size())
        return;
    for (int i = 0; i < texts.size(); ++i)
        ticker->addTick(i, texts[i]); // replaces the text at key i
}

bool ComparisonView::fitValueLabels(QCPAxisRect* rect) const
{
    // The labels over the bars of one panel, left to right: each takes its place at the usual size, or a
    // smaller one, where it runs into no label placed before it and stays inside the panel; a label with
    // no such place is left to the tooltip. Labels at different heights may share the width.
    std::vector<QCPItemText*> labels;
    for (int i = 0; i < plot()->itemCount(); ++i)
        if (auto* t = qobject_cast<QCPItemText*>(plot()->item(i)); t && t->clipAxisRect() == rect)
            labels.push_back(t);
    if (labels.empty() || rect->width() <= 0)
        return false;
    std::sort(labels.begin(), labels.end(),
              [](QCPItemText* a, QCPItemText* b) { return a->position->key() < b->position->key(); });
    std::vector<QRectF> placed;
    bool changed = false;
    for (QCPItemText* t : labels) {
        const QFont before = t->font();
        const bool wasVisible = t->visible();
        bool fits = false;
        for (double points : {7.5, 6.5}) {
            QFont f = t->font();
            f.setPointSizeF(points);
            t->setFont(f);
            const QRectF box =
                QRectF(t->topLeft->pixelPosition(), t->bottomRight->pixelPosition()).normalized().adjusted(-1, 0, 1, 0);
            fits = box.left() >= rect->left() - 1 && box.right() <= rect->right() + 1 &&
                   std::none_of(placed.begin(), placed.end(), [&](const QRectF& p) { return p.intersects(box); });
            if (fits) {
                placed.push_back(box);
                break;
            }
        }
        t->setVisible(fits);
        changed |= t->font() != before || fits != wasVisible;
    }
    return changed;
}

void ComparisonView::resetZoom()
{
    if (!isEmpty())
        plot()->replot(); // the panels are fixed (no zoom), nothing to reset
}

QString ComparisonView::toolTipAt(const QPointF& pos) const
{
    if (isEmpty())
        return {};
    for (QCPAxisRect* rect : plot()->axisRects()) {
        if (!rect->rect().contains(pos.toPoint()))
            continue;
        if (rect == frontierRect_)
            return frontierToolTip(rect, frontier_, pos);
        const double key = rect->axis(QCPAxis::atBottom)->pixelToCoord(pos.x());
        const int i = int(std::lround(key));
        if (i < 0 || i >= int(rows_.size()) || std::abs(key - i) > 0.45)
            return {};
        const Row& r = rows_[i];
        QStringList lines{
            QStringLiteral("<b>%1</b>%2").arg(names_[i], r.feasible ? QString() : tr(" — does not fit memory"))};
        lines << tr("simulated iteration %1").arg(viewutil::formatDuration(r.iteration));
        if (r.estimate)
            lines << tr("planner's estimate %1 (%2%3%)")
                         .arg(viewutil::formatDuration(*r.estimate))
                         .arg(*r.estimate >= r.iteration ? QStringLiteral("+") : QString())
                         .arg(r.iteration > 0 ? (*r.estimate / r.iteration - 1) * 100 : 0.0, 0, 'f', 1);
        lines << tr("throughput %1 tokens/s").arg(r.tokens, 0, 'f', 0);
        if (r.cost)
            lines << tr("cost $%1 per hour, $%2 per million tokens")
                         .arg(r.cost->dollarsPerHour, 0, 'f', 2)
                         .arg(r.cost->dollarsPerMillionTokens, 0, 'g', 3);
        if (r.marks.mfu)
            lines << tr("MFU %1%").arg(*r.marks.mfu * 100, 0, 'f', 1);
        if (r.marks.upperBoundTokens && *r.marks.upperBoundTokens > 0)
            lines << tr("%1% of the additive upper bound (%2 tokens/s)")
                         .arg(r.tokens / *r.marks.upperBoundTokens * 100, 0, 'f', 1)
                         .arg(*r.marks.upperBoundTokens, 0, 'f', 0);
        if (r.marks.uniformSplitTokens)
            lines << tr("uniform layer split %1 tokens/s").arg(*r.marks.uniformSplitTokens, 0, 'f', 0);
        lines << tr("search %1, %2 candidates").arg(viewutil::formatDuration(r.searchSeconds)).arg(r.candidates);
        return lines.join(QStringLiteral("<br>"));
    }
    return {};
}

} // namespace hetplan
