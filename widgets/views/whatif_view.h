#pragma once
// The What-if tab's plot: one line per planner over the swept parameter's values (x ticks at exactly the
// values swept; log scale for batch and sequence when they span 4× or more), or bars side by side per node
// left out (categories); y the chosen metric: simulated iteration time in ms, tokens/s or $ per million
// tokens. A combination a planner found no plan for (or one that does not fit memory) leaves a gap in its
// line (no bar); the table below the plot (WhatIfPanel) says why. Planners keep their colour
// (palette::plannerColor) from sweep to sweep and in every other view.
#include "plot_view.h"

#include "core/planners/sweep.h"

#include <string>
#include <vector>

class QComboBox;

namespace hetplan {

class WhatIfView : public PlotView {
    Q_OBJECT
public:
    enum class Metric { IterationTime, TokensPerSecond, DollarsPerMillionTokens };

    explicit WhatIfView(QWidget* parent = nullptr);

    // What was swept: the axis (its values in order), the planners (one line each) and runSweep's rows.
    struct Sweep {
        SweepAxis axis;
        std::vector<std::string> planners;
        std::vector<SweepRow> rows;
        std::string cluster, model;
    };
    void setSweep(Sweep sweep);
    void clear() override;
    const Sweep& sweep() const { return sweep_; }

    void setMetric(Metric metric);
    Metric metric() const { return metric_; }
    QComboBox* metricBox() const { return metricBox_; }
    // A row's value of `metric`; NaN when the row has no usable value (no plan, does not fit, no price).
    static double value(const SweepRow& row, Metric metric);
    static QString metricLabel(Metric metric);
    // The parameter in GUI words: "global batch size", ...
    static QString axisLabel(const std::string& axis);

protected:
    QString toolTipAt(const QPointF& pos) const override;

private:
    void redraw();
    // Where value `i` of the axis sits on the x axis: the number itself, or its index for a node name.
    double xOf(size_t i) const;
    // The hover text for the row at x of planner number `planner`.
    QString rowToolTip(double x, size_t planner) const;

    Sweep sweep_;
    Metric metric_ = Metric::IterationTime;
    QComboBox* metricBox_ = nullptr;
};

} // namespace hetplan
