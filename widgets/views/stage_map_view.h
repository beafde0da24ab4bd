#pragma once
// Where a plan puts things: a grid of nodes (rows) × local GPUs (columns), each cell coloured by its
// pipeline stage (or, for ZeRO plans, by its micro-batch size), labelled with stage, layers and device,
// with a bar of the simulated peak memory against the device's capacity. Unused GPUs are grey. What each
// cell says is layoutStageMap()'s business; this view draws it. Large clusters are drawn by node: a tile per
// node with its GPUs as small squares inside (NodeTilePlottable), full names and roles in the tooltips.
#include "plot_view.h"
#include "plan_view.h"
#include "stage_map_layout.h"

namespace hetplan {

class CellGridPlottable;
class NodeTilePlottable;

class StageMapView : public PlotView, public CurrentPlanView {
    Q_OBJECT
public:
    explicit StageMapView(QWidget* parent = nullptr);
    void showCurrent(const CurrentPlan& current) override;
    void setPlan(const Plan& plan, const SimResult& result);
    void clear() override;

    int cellCount() const;
    int overCapacityCount() const { return layout_.overCapacity; }
    const StageMapLayout& layout() const { return layout_; }
    QString cellText(int gpu) const; // the cell's tooltip text (for tests)
    bool drawsByNode() const { return tiles_ != nullptr; }
    // Tooltip text at a pixel position of plot() (empty if none); public for tests.
    QString describeAt(const QPointF& pixel) const { return toolTipAt(pixel); }

protected:
    QString toolTipAt(const QPointF& pos) const override;

private:
    CellGridPlottable* grid_ = nullptr;
    NodeTilePlottable* tiles_ = nullptr;
    StageMapLayout layout_;
};

} // namespace hetplan
