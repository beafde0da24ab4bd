#pragma once
// Planners side by side: simulated iteration time next to each planner's own estimate, throughput
// (tokens/s), and search time (log scale), one panel each, planner names on the x axes; plans that do
// not fit memory are hatched red and say so.
#include "plot_view.h"

#include "core/model/plan.h"

#include <optional>
#include <vector>

class QCPAxisRect;

namespace hetplan {

class ComparisonView : public PlotView {
    Q_OBJECT
public:
    explicit ComparisonView(QWidget* parent = nullptr);
    // `labels` (one per plan) replace the planner names on the axes, e.g. "ditto\n24 GPUs" and "ditto\n20 GPUs
    // without rtx4090-0" for a re-plan after a node failure (nodeSetLabels); empty = the planner names.
    void setPlans(const std::vector<Plan>& plans, const QStringList& labels = {});
    void clear() override;
    QStringList names() const { return names_; }

public slots:
    void resetZoom() override;

protected:
    QString toolTipAt(const QPointF& pos) const override;
    void adaptToSize(const QSize& size) override;

private:
    void collectRows(const std::vector<Plan>& plans, const QStringList& labels);
    QStringList tickNames() const; // names_, with the plans that do not fit memory marked
    void drawTimePanel(QCustomPlot* p, QCPAxisRect* rect, const QStringList& ticks) const;
    void drawTokensPanel(QCustomPlot* p, QCPAxisRect* rect, const QStringList& ticks) const;
    void drawSearchPanel(QCustomPlot* p, QCPAxisRect* rect, const QStringList& ticks) const;

    struct Row {
        double iteration = 0, tokens = 0, searchSeconds = 0;
        std::optional<double> estimate;
        bool feasible = true;
        long long candidates = 0;
        // HetHub's metrics (plan section "hethub"), as cluster tokens/s where they are throughputs.
        std::optional<double> upperBoundTokens, uniformSplitTokens, mfu;
    };
    void drawHetHubMarks(QCustomPlot* p, QCPAxisRect* rect, double tokenScale) const;
    std::vector<Row> rows_;
    QStringList names_;
};

} // namespace hetplan
