#pragma once
// Two plans side by side: their summaries in two columns (rows that differ in bold on a tinted
// background, times and rates with their ratio right / left) above both Gantt charts on one time axis:
// both axes reach the longer iteration, and zooming or panning one moves the other to the same seconds.
#include "plan_summary_rows.h"

#include <QWidget>

class QLabel;
class QTableWidget;

namespace hetplan {

class GanttView;

class PlanPairView : public QWidget {
    Q_OBJECT
public:
    explicit PlanPairView(QWidget* parent = nullptr);

    // Shows `left` and `right` under their names ("amp", "ditto · run 2"). False, with the reason in
    // `error`, when one cannot be simulated; the view then keeps what it showed.
    bool setPlans(const Plan& left, const Plan& right, const QString& leftName, const QString& rightName,
                  QString* error = nullptr);

    const std::vector<ComparedRow>& rows() const { return rows_; }
    QTableWidget* table() const { return table_; } // quantity | left | right | ratio
    GanttView* leftGantt() const { return gantts_[0]; }
    GanttView* rightGantt() const { return gantts_[1]; }

protected:
    void resizeEvent(QResizeEvent* e) override; // the columns' widths change: rows wrap anew

private:
    void fillTable(const QString& leftName, const QString& rightName);
    void linkTimeAxes();
    void fitTableHeight(); // rows re-wrapped to the column widths, the table as high as they are

    QLabel* heading_;
    QTableWidget* table_;
    GanttView* gantts_[2];
    std::vector<ComparedRow> rows_;
    bool syncing_ = false;
};

} // namespace hetplan
