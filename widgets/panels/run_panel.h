#pragma once
// The Run tab: planners from the registry as checkboxes with their options (one typed editor each, see
// OptionEditor), Run and Cancel, and a results table filled as each planner finishes. New planners and
// options appear here without changes.
#include "option_editor.h"

#include "core/model/project.h"

#include <QWidget>
#include <map>

class QLabel;
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
    // Planner → key → canonical value, only for values changed from the default.
    std::map<std::string, std::map<std::string, std::string>> options() const;
    // The editor of one option (nullptr if there is none), e.g. for tests.
    QWidget* optionEditor(const std::string& planner, const std::string& key) const;
    void setRunning(bool running);
    // Shows the results of one run (replacing what was shown).
    void showRun(const Run& run);
    QTreeWidget* results() const { return results_; }
    // A warning above the planners (nothing current to plan on, a profile that does not match the job);
    // hidden when empty.
    void setNotice(const QString& text);
    QString notice() const;
    // The header line: what a run would plan for ("cluster-1 · opt-350m · gbs 64 · seq 2048").
    void setContext(const QString& text);
    QString context() const;

signals:
    void runRequested();
    void cancelRequested();
    void resultActivated(int runId, int result);

private:
    void addPlanner(const Planner& planner);
    QLabel* notice_ = nullptr;

    QLabel* context_;
    QTreeWidget* planners_;
    std::map<std::string, std::vector<OptionEditor>> editors_; // per planner, in declaration order
    QTreeWidget* results_;
    QPushButton* run_;
    QPushButton* cancel_;
};

} // namespace hetplan
