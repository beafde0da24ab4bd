#pragma once
// Timeline of one simulated iteration: a compute row per GPU (grouped by pipeline stage, on alternating
// background bands) with a thinner communication track under it. Colour = micro-batch (Tableau 10,
// cycling), forward = light tint, backward = full colour, recompute hatched; communication grey and
// hatched. Zoom/pan along time only; hover for the event's details.
#include "plot_view.h"

#include "core/model/plan.h"
#include "core/sim/simulator.h"

#include <vector>

namespace hetplan {

class GanttPlottable;
}
class QCPRange;
namespace hetplan {

class GanttView : public PlotView {
    Q_OBJECT
public:
    explicit GanttView(QWidget* parent = nullptr);

    // `result` must carry the timeline (SimOptions::timeline).
    void setPlan(const Plan& plan, const SimResult& result);
    void clear() override;

    int rowCount() const { return int(rowGpu_.size()); }      // compute rows (= GPUs shown)
    size_t eventCount() const;
    size_t lastPaintedBoxes() const;
    QString timeUnit() const { return unitName_; }
    // Tooltip text for the event under a pixel position of plot() (empty if none); public for tests.
    QString describeAt(const QPointF& pixel) const { return toolTipAt(pixel); }

public slots:
    void resetZoom() override;

protected:
    QString toolTipAt(const QPointF& pos) const override;

private:
    void clampRange(const QCPRange& range);

    GanttPlottable* gantt_ = nullptr;
    std::vector<TimelineEvent> events_;
    std::vector<int> rowGpu_;                 // compute row → GPU
    std::vector<QString> gpuText_;            // per dense GPU: "node/i (type)"
    std::vector<QString> stageText_;          // per (flattened) stage: "stage 2 · layers [7,14)"
    std::vector<int> stageBase_;              // first flattened stage index per pipeline
    double unitScale_ = 1e3;
    QString unitName_ = QStringLiteral("ms");
    double span_ = 0;                         // iteration length in axis units
};

} // namespace hetplan
