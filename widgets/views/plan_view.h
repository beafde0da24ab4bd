#pragma once
// The plan views: one list (planViews()) of the tabs that show the current plan. The main window builds a
// tab per entry, in order, gives each view the CurrentPlan once (attachPlanView), names the PNG the
// screenshot mode writes after the entry's id, and reports each view's exports. Adding a view is its own
// files plus one line in plan_view.cpp.
#include <QString>

#include <functional>
#include <vector>

class QWidget;

namespace hetplan {

class CurrentPlan;

// What a plan view implements besides being a QWidget: draw `current` (also when it holds no plan).
class CurrentPlanView {
public:
    virtual ~CurrentPlanView() = default;
    virtual void showCurrent(const CurrentPlan& current) = 0;
};

struct PlanViewEntry {
    QString id;                     // the screenshot's file name without ".png"
    QString label;                  // the tab's label (translated)
    QString shortLabel;             // the label when the tabs do not fit; empty = the label
    std::function<QWidget*()> make; // a new view: a QWidget that is also a CurrentPlanView
};

// In tab order.
std::vector<PlanViewEntry> planViews();

// Shows `current` in `view` now and on every CurrentPlan::changed().
void attachPlanView(QWidget* view, CurrentPlan* current);

} // namespace hetplan
