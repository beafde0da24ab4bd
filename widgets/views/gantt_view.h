#pragma once
// Timeline of one simulated iteration: a compute row per GPU (grouped by pipeline stage, on alternating
// background bands) with a thinner communication track under it; which rows, in which order, is
// layoutGantt()'s business, this view draws it. Colour = micro-batch (Tableau 10,
// cycling), forward = light tint, backward = full colour, recompute hatched; communication grey and
// hatched. Zoom/pan along time only; hover for the event's details.
#include "gantt_layout.h"
#include "plot_view.h"

#include <vector>

namespace hetplan {

class GanttPlottable;
}
class QCPRange;
class QCustomPlot;
namespace hetplan {

class GanttView : public PlotView {
    Q_OBJECT
public:
    explicit GanttView(QWidget* parent = nullptr);

    // `result` must carry the timeline (SimOptions::timeline).
    void setPlan(const Plan& plan, const SimResult& result);
    void clear() override;

    int rowCount() const { return int(layout_.rows().size()); } // compute rows (= GPUs shown)
    size_t eventCount() const;
    size_t lastPaintedBoxes() const;
    QString timeUnit() const { return layout_.timeUnit; }
    const GanttLayout& layout() const { return layout_; }
    // Tooltip text for the event under a pixel position of plot() (empty if none); public for tests.
    QString describeAt(const QPointF& pixel) const { return toolTipAt(pixel); }

public slots:
    void resetZoom() override;

protected:
    QString toolTipAt(const QPointF& pos) const override;

private:
    void setUpAxes(QCustomPlot* p);
    void clampRange(const QCPRange& range);

    GanttPlottable* gantt_ = nullptr;
    std::vector<TimelineEvent> events_;
    GanttLayout layout_;
};

} // namespace hetplan
