#pragma once
// Batch→speed curves: per device type of the cluster, training throughput of the whole model on one GPU
// (tp 1) against micro-batch size, from the cost model (measured profile where present, else analytic):
// samples/s = b / (forward(b) + backward(b)), in the device type's canvas colour. Dots at the sizes a
// measured profile has (an analytic curve has none: nothing was profiled) and, between them, the line the
// planners see: the cost model sampled on a log grid (a measured profile's monotone cubic between its sizes,
// the analytic model elsewhere), not a curve of the view's own; a ZeRO plan's chosen micro-batches are
// marked on their device's curve at the cost model's value. A Poplar plan brings its own
// curves (Plan::details["poplar"]): the sizes its online profiling ran, the spline it searched on, the
// largest micro-batch that fits each type (dotted line) and the sizes it found not to fit (crosses).
#include "plot_view.h"
#include "plan_view.h"

#include "core/cost/costmodel.h"
#include "core/model/cluster.h"
#include "core/model/plan.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

class QCPAxis;

namespace hetplan {


struct PlannerCurve;
struct PlannerCurves;

class CurvesView : public PlotView, public CurrentPlanView {
    Q_OBJECT
public:
    explicit CurvesView(QWidget* parent = nullptr);
    void showCurrent(const CurrentPlan& current) override;
    void setData(const Cluster& cluster, const CostModel& costs, const Plan* plan = nullptr);
    void clear() override;

    struct Curve {
        std::string device;
        bool measured = false;
        std::vector<double> sizes, samplesPerSecond; // the profiled points
        std::vector<double> lineSizes, lineSamplesPerSecond; // the cost model between the first and last size
    };
    const std::vector<Curve>& curves() const { return curves_; }
    int markerCount() const { return markers_; }
    // Dots at profiled sizes: only measured curves have them (Poplar plans: the sizes Poplar profiled).
    int profiledPointCount() const { return profiledPoints_; }
    int outOfMemoryMarkCount() const { return outOfMemoryMarks_; } // a planner's curves: sizes that did not fit
    bool showsPlannerCurves() const { return plannerCurves_; }

public slots:
    void resetZoom() override;

protected:
    QString toolTipAt(const QPointF& pos) const override;

private:
    void addCurveGraphs(QCustomPlot* p);
    void markZeroPlan(QCustomPlot* p, const Cluster& cluster, const ZeroPlan& zero, const CostModel& costs);
    void markPipelinePlan(QCustomPlot* p, int microBatch);
    // A planner's own curves (Poplar's), drawn instead of the cost model's.
    void setPlannerCurves(const PlannerCurves& curves);
    void drawPlannerCurve(QCustomPlot* p, const PlannerCurve& curve, const QColor& colour);
    void includeInXRange(double microBatch);
    void applyRanges(QCPAxis* x, QCPAxis* y) const;

    std::vector<Curve> curves_;
    int markers_ = 0, outOfMemoryMarks_ = 0, profiledPoints_ = 0;
    bool plannerCurves_ = false;
    double xLo_ = 1, xHi_ = 64, yHi_ = 1;
};

} // namespace hetplan
