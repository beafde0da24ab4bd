#pragma once
// The Run tab: planners from the registry as checkboxes with their options (editable values), Run and
// Cancel, and a results table filled as each planner finishes. New planners appear here without changes.
#include "core/model/project.h"

#include <QWidget>
#include <map>

class QPushButton;
class QTreeWidget;
class QTreeWidgetItem;

namespace hetplan {

class RunPanel : public QWidget {
    Q_OBJECT
public:
    explicit RunPanel(QWidget* parent = nullptr);

    std::vector<std::string> checkedPlanners() const;
    void setChecked(const std::vector<std::string>& planners);
    std::map<std::string, std::map<std::string, std::string>> options() const;   // only values changed from default
    void setRunning(bool running);
    // Shows the results of one run (replacing what was shown).
    void showRun(const Run& run);
    QTreeWidget* results() const { return results_; }

signals:
    void runRequested();
    void cancelRequested();
    void resultActivated(int runId, int result);

private:
    QTreeWidget* planners_;
    QTreeWidget* results_;
    QPushButton* run_;
    QPushButton* cancel_;
};

} // namespace hetplan
