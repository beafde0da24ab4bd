#pragma once
// The hetplan desktop app's main window: project tree (left dock), tabs for the cluster canvas, model and
// profile, runs, the plan views (planViews()) and What-if, properties and job settings (right docks), status bar with
// progress and Cancel. It wires the widgets to the ProjectDocument and the RunController; the logic it
// holds is only that wiring.
#include "widgets/controller/project_document.h"

#include <QMainWindow>
#include <QPointer>
#include <exception>
#include <functional>

class QAction;
class QLabel;
class QProgressBar;
class QTabWidget;
class QToolBar;
class QToolButton;
class QTreeView;
class QMenu;
class QAction;
class QDialog;

namespace hetplan {

class ClusterEditor;
class ComparisonView;
class CurrentPlan;
class CurvesView;
class GanttView;
class JobPanel;
class LiveController;
class ModelPanel;
class PlanDetailsView;
class PlanPairView;
class ProjectTreeActions;
class ProjectTreeModel;
enum class JsonItem;
class ReplanController;
class RunController;
class RunPanel;
class StageMapView;
class WhatIfPanel;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    ProjectDocument* document() const { return doc_; }
    RunController* runner() const { return runner_; }
    ReplanController* replanner() const { return replan_; }
    LiveController* live() const { return live_; }
    // Live re-planning (main_window_live.cpp): Run ▸ Live Re-planning and the Run tab's Live box, in step.
    bool isLive() const;
    void setLive(bool on);
    ClusterEditor* clusterEditor() const { return editor_; }
    // The plan views (tabs built from planViews(), in that order) and the one CurrentPlan they show.
    CurrentPlan* currentPlan() const { return current_; }
    GanttView* gantt() const;
    StageMapView* stageMap() const;
    CurvesView* curves() const;
    ComparisonView* comparison() const;
    PlanDetailsView* planDetails() const;
    RunPanel* runPanel() const { return runPanel_; }
    ModelPanel* modelPanel() const { return modelPanel_; }
    QTabWidget* tabs() const { return tabs_; }
    WhatIfPanel* whatIf() const { return whatIf_; } // the What-if tab (main_window_whatif.cpp)

    // Opens an example cluster + model (replacing the project; asks to save unsaved changes when interactive).
    void openExample(const std::string& cluster, const std::string& model);
    // Opens a project file; on failure shows the error, keeps the current project and returns false.
    bool openFile(const QString& path);
    // Starts the planners on the current cluster/model/job; false (with a status message) if it cannot.
    // `options` (planner → key → value) add to what the Run tab says.
    bool runPlanners(const std::vector<std::string>& planners,
                     const std::map<std::string, std::map<std::string, std::string>>& options = {});
    // Writes canvas.png, one PNG per plan view named after its id (gantt.png, stage-map.png, ...), run.png
    // and model.png into dir.
    bool writeScreenshots(const QString& dir, QString* error = nullptr);
    // Tests: no modal dialogs (errors go to the status bar, unsaved changes are discarded on close).
    void setInteractive(bool on) { interactive_ = on; }
    QString lastMessage() const { return lastMessage_; }
    bool lastMessageIsError() const { return lastMessageIsError_; } // shown red in the status bar
    // Default dock sizes (the saved window state is ignored), e.g. for reproducible screenshots.
    void resetLayout();

    // The project tree, its context menu's actions and File ▸ Import / Export JSON (main_window_project.cpp).
    QTreeView* projectTree() const { return tree_; }
    // Reads / writes a cluster, model or plan JSON file (the CLI's formats); false with the reason shown.
    bool importJsonFile(JsonItem kind, const QString& path);
    bool exportJsonFile(JsonItem kind, const QString& path);
    // The context menu the tree shows for `index` (tests look at it).
    QMenu* treeMenu(const QModelIndex& index);

    // Two plans side by side (main_window_pair.cpp): the results selected in the project tree (Ctrl-click),
    // and a window with their summaries and Gantt charts; false with the reason in the status bar.
    std::vector<PlanRef> selectedPlans() const;
    bool comparePlans(const PlanRef& left, const PlanRef& right);
    PlanPairView* planPair() const; // the open comparison window's view, or null

signals:
    void runFinished();

protected:
    void closeEvent(QCloseEvent* e) override;
    void showEvent(QShowEvent* e) override;

private:
    void buildTabs();
    void buildPlanViews();
    void setFullLabelTips(); // each tab's full label as its tooltip, for tabs that have none yet
    template <class View>
    View* planView() const;
    void buildDocks();
    void buildActions();
    void buildStatusBar();
    void connectDocument();
    void connectPanels();
    void connectRunner();
    void restoreSettings();
    void saveSettings();
    void addRecent(const QString& path);
    void rebuildRecentMenu();

    bool maybeSave();
    void newProject();
    void openProject();
    bool save();
    bool saveAs();
    void openExampleDialog();
    void newCluster();
    void exportPlan(const QString& format);
    // Export Plan's formats: greyed out, with the reason as tooltip, where the current plan cannot have one.
    void updateExportMenu(QMenu* menu);

    void onDocumentChanged();
    void onCurrentChanged();
    void onCurrentPlanChanged();
    void onTreeActivated(const QModelIndex& index);
    void onJobEdited(const Job& job);
    void onExampleModelChosen(const QString& name);
    void onProfileImported(const Profile& profile);
    void onResultActivated(int run, int result);

    void startRun();
    void onRunProgress(double fraction, const QString& text);
    void onRunResult(const RunResult& result);
    void onRunFinished();
    void showMessage(const QString& text, bool error = false);

    // Re-planning when nodes fail or recover (main_window_replan.cpp).
    void buildReplan();
    void replanAfterFailure();
    void onReplanned(const PlanRef& before, const PlanRef& after);
    void onReplanFailed(const QString& reason);
    // Live re-planning (main_window_live.cpp).
    void buildLive(QMenu* runMenu);
    void restoreLive();
    void onLiveUpdated(int runId);
    // A failed action: `status` (with %1 = the reason) in the status bar and, when interactive, the reason
    // in a dialog titled `dialogTitle` (critical, or a warning).
    void reportFailure(const QString& status, const QString& dialogTitle, const std::exception& e,
                       bool critical = true);
    void updateTitle();
    // main_window_project.cpp
    void buildTreeActions();
    void buildJsonMenus(QMenu* file);
    void askJsonImport(JsonItem kind);
    void askJsonExport(JsonItem kind);
    // After each change: the current items in bold in the tree, an empty canvas when no cluster is current,
    // and the Run tab's notice (no cluster / model; a profile measured at another sequence or precision).
    void updateCurrentMarks();
    // The current cluster · model · job in the window title and the Run tab's header (main_window.cpp).
    void updateContext();
    // A new, opened or example project: no view keeps the previous one's run or plan.
    void onProjectReplaced();
    // Widens the project dock (up to a third of the window) when its longest name would be cut off.
    // Undo/Redo tool buttons with fixed text ("Undo"/"Redo"): the step's name goes to the tooltip, so
    // the buttons after them do not move when it changes.
    void addUndoButtons(QToolBar* toolBar);
    // Keyboard zoom, Help ▸ Keyboard Shortcuts and Help ▸ User Guide (main_window_shortcuts.cpp).
    void zoomActiveView(double factor);
    void resetActiveView();
    void showKeyboardShortcuts();
    void showUserGuide();
    QAction* compareSelectedAction(QObject* owner); // enabled when two plans are selected
    void buildWhatIfTab(); // main_window_whatif.cpp

    ProjectDocument* doc_;
    RunController* runner_;
    ReplanController* replan_ = nullptr;
    LiveController* live_ = nullptr;
    QAction* liveAction_ = nullptr;
    ProjectTreeModel* treeModel_;
    ProjectTreeActions* treeActions_ = nullptr;
    QTreeView* tree_;
    QTabWidget* tabs_;
    ClusterEditor* editor_;
    ModelPanel* modelPanel_;
    RunPanel* runPanel_;
    CurrentPlan* current_ = nullptr;
    std::vector<QWidget*> planViews_;
    std::vector<QString> planViewIds_; // the screenshot names, one per plan view
    WhatIfPanel* whatIf_ = nullptr;
    QPointer<QDialog> pairDialog_;
    JobPanel* jobPanel_;
    QLabel* status_;
    QProgressBar* progress_;
    QToolButton* cancel_;
    QMenu* recentMenu_ = nullptr;
    int activeRun_ = 0;
    bool interactive_ = true;
    bool hasSavedGeometry_ = false; // restoreSettings() found a window geometry from an earlier session
    bool shownOnce_ = false;
    QString lastMessage_;
    bool lastMessageIsError_ = false;
};

} // namespace hetplan
