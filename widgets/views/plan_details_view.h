#pragma once
// The "Plan details" tab: what the selected plan's planner wrote about its own decision (Ditto's folding,
// Oobleck's templates, HetHub's metrics, HAP's synthesized program, any other planner section), one tab
// per section, with tables, a monospace program listing and key/value trees. What it shows comes from
// layoutPlanDetails() (plan_details_layout.h); this widget only builds the widgets for it. "Copy section"
// puts the current section on the clipboard as text; Ctrl+C copies the selected table cells. Above the
// sections, a Summary table shows the plan summary (plan_summary_rows.h) for every plan.
#include "plan_details_layout.h"
#include "plan_view.h"

#include <QWidget>

class QLabel;
class QPushButton;
class QStackedWidget;
class QTabWidget;
class QTableWidget;

namespace hetplan {

class PlanDetailsView : public QWidget, public CurrentPlanView {
    Q_OBJECT
public:
    explicit PlanDetailsView(QWidget* parent = nullptr);
    void showCurrent(const CurrentPlan& current) override;
    void setPlan(const Plan& plan);
    void clear();

    bool isEmpty() const { return layout_.sections.empty(); }
    const PlanDetailsLayout& layout() const { return layout_; }
    QTabWidget* sectionTabs() const { return tabs_; }
    QString currentSectionText() const; // what "Copy section" copies
    QString summaryText() const;        // the line(s) above the sections: planner, inputs, options
    QTableWidget* summaryTable() const { return summaryTable_; } // quantity | value, one row per summary row

private:
    void showMessage(const QString& text);
    void copySection();
    void showSummary(const Plan* plan);
    void fitSummaryHeight();

    QLabel* summary_;
    QLabel* summaryHeading_;
    QTableWidget* summaryTable_;
    QPushButton* copy_;
    QStackedWidget* stack_;
    QLabel* message_;
    QTabWidget* tabs_;
    PlanDetailsLayout layout_;
};

} // namespace hetplan
