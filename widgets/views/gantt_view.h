#pragma once
// Timeline of one simulated iteration: a compute row per GPU (grouped by pipeline stage, on alternating
// background bands) with a thinner communication track under it; which rows, in which order, is
// layoutGantt()'s business, how each event is painted gantt_styles'; this view draws them. Zoom/pan along
// time with the wheel and drag; Ctrl+wheel (or the toolbar's row buttons) zooms the rows, and a zoomed-in
// view drags up and down. Identical replicas are drawn once ("× N"); a double click on a group collapses it to
// one row or expands it again, its context menu also shows its replicas one by one. Idle gaps are shaded;
// the "Critical path" toggle outlines the chain that sets the iteration time. Hover for details.
#include "gantt_layout.h"
#include "plot_view.h"
#include "plan_view.h"

#include <QPointer>

#include <vector>

namespace hetplan {

class GanttPlottable;
struct GanttBox;
}
class QAction;
class QScrollBar;
class QCPRange;
class QCustomPlot;
namespace hetplan {

class GanttView : public PlotView, public CurrentPlanView {
    Q_OBJECT
public:
    explicit GanttView(QWidget* parent = nullptr);
    void showCurrent(const CurrentPlan& current) override;

    // `result` must carry the timeline (SimOptions::timeline).
    void setPlan(const Plan& plan, const SimResult& result);
    void clear() override;

    int rowCount() const { return int(layout_.rows().size()); } // compute rows shown
    size_t eventCount() const;
    size_t lastPaintedBoxes() const;
    QString timeUnit() const { return layout_.timeUnit; }
    const GanttLayout& layout() const { return layout_; }
    // Tooltip text for the event under a pixel position of plot() (empty if none); public for tests.
    QString describeAt(const QPointF& pixel) const { return toolTipAt(pixel); }

    // Grouping: which groups are collapsed to one row and whether identical replicas are drawn once.
    const GanttLayoutOptions& layoutOptions() const { return options_; }
    void setLayoutOptions(const GanttLayoutOptions& options);
    void setGroupCollapsed(const QString& key, bool collapsed);
    void setGroupSeparated(const QString& key, bool separated); // identical replicas one by one
    // The key of the group whose band lies at this pixel height of plot() (empty if none).
    QString groupKeyAt(const QPointF& pixel) const;

    // The time axis reaches at least `seconds` (0: the plan's own iteration), so two plans of different
    // lengths can be drawn on one time axis (PlanPairView).
    void setMinimumTimeSpan(double seconds);
    // The time axis's range in seconds (whatever unit the axis shows).
    void setTimeRangeSeconds(double lower, double upper);

signals:
    // The time axis moved (zoom, pan, reset), in seconds; also after a rebuild of the chart.
    void timeRangeChanged(double lowerSeconds, double upperSeconds);

public:

    // Vertical zoom: 1 = every row in view; 4 = a quarter of the rows' height in view, each row 4× taller.
    double rowZoom() const;
    // The scroll bar beside the rows, shown while they are zoomed in (nullptr before a plan).
    QScrollBar* rowScrollBar() const;
    void setRowZoom(double factor);

    // The toolbar's "Critical path" toggle: outline the chain that sets the iteration time, dim the rest.
    bool criticalPathShown() const { return options_.criticalPath; }
    void setCriticalPathShown(bool on);
    const GanttPlottable* plottable() const { return gantt_; } // for tests

public slots:
    void resetZoom() override;
    void zoomRowsIn() { setRowZoom(rowZoom() * 1.5); }
    void zoomRowsOut() { setRowZoom(rowZoom() / 1.5); }

protected:
    QString toolTipAt(const QPointF& pos) const override;

private:
    void rebuild();
    void setUpAxes(QCustomPlot* p);
    void setUpInteraction(QCustomPlot* p);
    void clampRange(const QCPRange& range);
    QString idleText(const GanttBox& gap) const;
    void clampValueRange(const QCPRange& range);
    void showGroupMenu(const QPoint& pos);
    bool canToggleCollapse(const QString& key) const;
    void keepRowsReadable();
    void syncRowScroll(); // the scroll bar beside the rows follows the row range
    double fullValueSize() const;
    double axisSpan() const; // layout_.span, or the minimum time span if longer (axis units)

    GanttPlottable* gantt_ = nullptr;
    QPointer<QScrollBar> rowScroll_;
    QAction* everyReplica_ = nullptr; // toolbar toggle: the inverse of options_.mergeIdentical
    QAction* criticalPath_ = nullptr; // toolbar toggle: options_.criticalPath
    Plan plan_;
    SimResult result_;
    GanttLayout layout_;
    GanttLayoutOptions options_;
    bool hasPlan_ = false;
    double minimumSpanSeconds_ = 0;
};

} // namespace hetplan
