#pragma once
// Planners side by side: simulated iteration time next to each planner's own estimate, throughput
// (tokens/s), and search time (log scale), one panel each, planner names on the x axes; when any plan has
// a cost (estimate.cost) a panel of dollars per million tokens stands next to the time, and a
// cost-throughput panel with the frontier of every plan and GPU subset found stands beside the throughput
// and search panels (comparison_frontier.h); plans that do
// not fit memory are hatched red and say so. Planners of the run that gave no plan are listed under the
// plot with the reason, word-wrapped (never cut off).
#include "plot_view.h"
#include "plan_view.h"
#include "comparison_frontier.h"
#include "details/planner_display.h"
#include "widgets/models/current_plan.h"

#include "core/model/plan.h"

#include <QPointer>

#include <optional>
#include <vector>

class QCPAxisRect;
class QLabel;

namespace hetplan {

class ComparisonView : public PlotView, public CurrentPlanView {
    Q_OBJECT
public:
    explicit ComparisonView(QWidget* parent = nullptr);
    void showCurrent(const CurrentPlan& current) override;
    // `labels` (one per plan) replace the planner names on the axes, e.g. "ditto\n24 GPUs" and "ditto\n20 GPUs
    // without rtx4090-0" for a re-plan after a node failure (nodeSetLabels); empty = the planner names.
    void setPlans(const std::vector<Plan>& plans, const QStringList& labels = {});
    // The run's planners that gave no plan (set after setPlans(); clear() drops them).
    void setFailures(const std::vector<PlannerFailure>& failures);
    // What the list under the plot says, one line per failed planner (empty when none), e.g. for tests.
    QStringList failureLines() const { return failureLines_; }
    QLabel* failureList() const { return failureList_; }
    void clear() override;
    QStringList names() const { return names_; }
    // The throughput panel's tick labels: names, and under a plan with marks (HetHub) its MFU and share of
    // the bound.
    QStringList throughputTicks() const { return throughputTicks_; }
    // The cost panel's bar labels ("$0.222", or "no price"); empty when no plan has a cost (no panel).
    QStringList costLabels() const { return costLabels_; }
    // The names on the cost-throughput frontier, cheapest first; empty when no plan has a price.
    QStringList frontierNames() const { return hetplan::frontierNames(frontier_); }

public slots:
    void resetZoom() override;

protected:
    QString toolTipAt(const QPointF& pos) const override;
    void adaptToSize(const QSize& size) override;

private:
    void collectRows(const std::vector<Plan>& plans, const QStringList& labels);
    QStringList tickNames() const; // names_, with the plans that do not fit memory marked
    // Shrinks (or, if still too wide, hides) the value labels of one panel to the room between its bars
    // at the panel's laid-out width; true if a label changed.
    bool fitValueLabels(QCPAxisRect* rect) const;
    static void setTickTexts(QCPAxisRect* rect, const QStringList& texts);
    QStringList withMetricLines(const QStringList& ticks) const;
    void drawTimePanel(QCustomPlot* p, QCPAxisRect* rect, const QStringList& ticks) const;
    void drawTokensPanel(QCustomPlot* p, QCPAxisRect* rect, const QStringList& ticks) const;
    void drawSearchPanel(QCustomPlot* p, QCPAxisRect* rect, const QStringList& ticks) const;
    void drawCostPanel(QCustomPlot* p, QCPAxisRect* rect, const QStringList& ticks);
    bool anyCost() const;

    struct Row {
        double iteration = 0, tokens = 0, searchSeconds = 0;
        std::optional<double> estimate;
        std::optional<PlanCost> cost;
        bool feasible = true;
        long long candidates = 0;
        ComparisonMarks marks; // what the plan's planner sections add (details/planner_display.h)
    };
    void drawMarks(QCustomPlot* p, QCPAxisRect* rect, double tokenScale) const;
    std::vector<Row> rows_;
    QStringList names_;
    QStringList throughputTicks_;
    QStringList costLabels_;
    QPointer<QCPAxisRect> tokensRect_;
    QPointer<QCPAxisRect> frontierRect_;
    std::vector<FrontierPlan> frontier_; // the throughput panel, whose ticks may carry a metric line
    QStringList failureLines_;
    QLabel* failureList_;
};

} // namespace hetplan
