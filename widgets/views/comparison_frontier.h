#pragma once
// The comparison view's cost-throughput panel: every priced plan as a dot in its planner's colour at
// ($ per hour, tokens/s), the GPU subsets its selection tried as small grey dots, and the frontier (the
// plans no other plan beats on both: cheaper and at least as fast) as a staircase through them. Read it
// as "the most throughput a budget buys".
#include "core/planners/selection.h"

#include <QPointF>
#include <QString>

#include <vector>

class QCPAxisRect;
class QCustomPlot;

namespace hetplan {

struct FrontierPlan {
    QString name;        // the comparison's name for the plan
    std::string planner; // its colour
    double dollarsPerHour = 0, tokensPerSecond = 0;
    std::vector<FrontierPoint> tried; // its selection's other subsets (may be empty)
};

// The plans of `plans` that have a price, for the panel.
std::vector<FrontierPlan> frontierPlans(const std::vector<Plan>& plans, const QStringList& names);
// Draws the panel into `rect`; its labels (plan names) are QCPItemTexts clipped to the rect.
void drawFrontierPanel(QCustomPlot* plot, QCPAxisRect* rect, const std::vector<FrontierPlan>& plans);
// The names of the plans on the frontier, cheapest first (tests and the tooltip).
QStringList frontierNames(const std::vector<FrontierPlan>& plans);
// The tooltip at `pos` (pixels) in the panel: the nearest dot within 8 px, else empty.
QString frontierToolTip(const QCPAxisRect* rect, const std::vector<FrontierPlan>& plans, const QPointF& pos);

} // namespace hetplan
