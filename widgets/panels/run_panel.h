#pragma once
// The Run tab: planners from the registry as checkboxes with their options (one typed editor each, see
// OptionEditor), Run and Cancel, and a results table filled as each planner finishes. New planners and
// options appear here without changes.
#include "option_editor.h"

#include "core/model/project.h"
#include "core/planners/planner.h"

#include <QElapsedTimer>
#include <QWidget>
#include <map>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QHBoxLayout;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTimer;
class QTreeWidget;
class QTreeWidgetItem;

namespace hetplan {

class RunPanel : public QWidget {
    Q_OBJECT
public:
    explicit RunPanel(QWidget* parent = nullptr);

    std::vector<std::string> checkedPlanners() const;
    // Ticks exactly these (names the registry lacks are ignored); emits nothing.
    void setChecked(const std::vector<std::string>& planners);
    // What a first run plans with: AMP's search, the Megatron heuristic it improves on and the uniform
    // reference. All three answer in well under a second on the bundled examples and at 256 GPUs, so F5
    // gives a comparison at once; the others are one tick away.
    static std::vector<std::string> defaultPlanners() { return {"amp", "megatron", "uniform"}; }
    // The goal and constraints every ticked planner's plan is held to (objective.h), and whether GPU
    // subsets are tried (implied by any goal other than the fastest plan on every GPU).
    Objective objective() const;
    void setObjective(const Objective& o);
    bool selectGpus() const;
    void setSelectGpus(bool on);
    // The Live check box (live re-planning, see LiveController); setLive() emits liveToggled on a change.
    bool isLive() const;
    void setLive(bool on);
    QCheckBox* liveBox() const { return live_; }
    // Planner → key → canonical value, only for values changed from the default.
    std::map<std::string, std::map<std::string, std::string>> options() const;
    // The editor of one option (nullptr if there is none), e.g. for tests.
    QWidget* optionEditor(const std::string& planner, const std::string& key) const;
    // true: the run shown now is the one that runs (call after showRun() of the new run).
    void setRunning(bool running);
    // Shows the results of one run (replacing what was shown), then, when it is the running run, the
    // running planner's row if its result is not among them yet.
    void showRun(const Run& run);
    QTreeWidget* results() const { return results_; }
    // A warning above the planners (nothing current to plan on, a profile that does not match the job);
    // hidden when empty.
    void setNotice(const QString& text);
    QString notice() const;
    // The header line: what a run would plan for ("cluster-1 · opt-350m · gbs 64 · seq 2048").
    void setContext(const QString& text);
    QString context() const;
    // The selected result's planner, status and whole message (messages are never cut off).
    QPlainTextEdit* details() const { return details_; }

    // The planner at `index` of the run starts: a "running" row with its progress and elapsed time
    // follows the finished ones until its result arrives (showRun) or the run ends (setRunning(false)).
    void startPlanner(int index, const QString& planner);
    // Progress text from the run ("amp: trying pp=4" or "trying pp=4") for the running row.
    void setPlannerProgress(const QString& text);
    // The running row (nullptr when no planner runs), e.g. for tests.
    QTreeWidgetItem* runningRow() const { return runningItem_; }
    // Elapsed time as the running row shows it: "0.4 s", "12.0 s", "2 min 05 s".
    static QString elapsedText(double seconds);

signals:
    void runRequested();
    void cancelRequested();
    void liveToggled(bool on);
    // The user ticked or unticked a planner (not emitted by setChecked).
    void plannersTicked(const std::vector<std::string>& planners);
    void resultActivated(int runId, int result);

private:
    void addPlanner(const Planner& planner);
    QHBoxLayout* objectiveRow();
    QLabel* notice_ = nullptr;
    void refreshRunningRow();
    void showDetails(QTreeWidgetItem* item);

    QLabel* context_;
    QTreeWidget* planners_;
    std::map<std::string, std::vector<OptionEditor>> editors_; // per planner, in declaration order
    QTreeWidget* results_;
    QPushButton* run_;
    QPushButton* cancel_;
    QCheckBox* live_;
    QComboBox* goal_ = nullptr;
    QDoubleSpinBox* budget_ = nullptr;
    QDoubleSpinBox* floor_ = nullptr;
    QCheckBox* select_ = nullptr;
    bool userSelect_ = false; // the user's own tick, kept while a constraint forces the box on
    QPlainTextEdit* details_;
    // The running planner: its position in the run, name, latest progress text and clock.
    int runningIndex_ = -1;
    int runningRunId_ = -1, shownRunId_ = -1;
    size_t shownResults_ = 0;
    QString runningPlanner_, runningText_;
    QElapsedTimer runningClock_;
    QTimer* tick_;
    QTreeWidgetItem* runningItem_ = nullptr;
};

} // namespace hetplan
