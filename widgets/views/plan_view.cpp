#include "plan_view.h"

#include "comparison_view.h"
#include "curves_view.h"
#include "gantt_view.h"
#include "plan_details_view.h"
#include "stage_map_view.h"
#include "widgets/models/current_plan.h"

#include <QCoreApplication>

#include <stdexcept>

namespace hetplan {

namespace {
QString tr(const char* text) { return QCoreApplication::translate("PlanViews", text); }
} // namespace

std::vector<PlanViewEntry> planViews()
{
    return {
        {"gantt", tr("Gantt"), {}, [] { return new GanttView; }},
        {"stage-map", tr("Stage map"), tr("Stages"), [] { return new StageMapView; }},
        {"curves", tr("Batch → speed"), tr("Speed"), [] { return new CurvesView; }},
        {"comparison", tr("Comparison"), tr("Compare"), [] { return new ComparisonView; }},
        {"details", tr("Plan details"), tr("Details"), [] { return new PlanDetailsView; }},
    };
}

void attachPlanView(QWidget* view, CurrentPlan* current)
{
    auto* shows = dynamic_cast<CurrentPlanView*>(view);
    if (!shows)
        throw std::logic_error("a plan view must implement CurrentPlanView");
    QObject::connect(current, &CurrentPlan::changed, view, [shows, current] { shows->showCurrent(*current); });
    shows->showCurrent(*current);
}

} // namespace hetplan
