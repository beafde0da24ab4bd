// Construction of the main window: widgets, docks, menus, toolbar, status bar, settings.
#include "main_window.h"

#include "core/io/exporters.h"
#include "widgets/canvas/cluster_editor.h"
#include "widgets/canvas/property_panel.h"
#include "widgets/common/tab_labels.h"
#include "widgets/controller/run_controller.h"
#include "widgets/models/current_plan.h"
#include "widgets/models/project_tree.h"
#include "widgets/panels/job_panel.h"
#include "widgets/panels/model_panel.h"
#include "widgets/panels/run_panel.h"
#include "widgets/views/comparison_view.h"
#include "widgets/views/curves_view.h"
#include "widgets/views/gantt_view.h"
#include "widgets/views/plan_details_view.h"
#include "widgets/views/plan_view.h"
#include "widgets/views/stage_map_view.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QScrollArea>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QMenuBar>
#include <QProgressBar>
#include <QScrollBar>
#include <QScreen>
#include <QSettings>
#include <QTimer>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <QToolBar>
#include <QToolButton>
#include <QTreeView>
#include <QUndoStack>

#include <algorithm>

namespace hetplan {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent)
{
    setObjectName("MainWindow");
    doc_ = new ProjectDocument(this);
    runner_ = new RunController(this);
    buildTabs();
    buildDocks();
    buildActions();
    buildStatusBar();
    connectDocument();
    connectPanels();
    connectRunner();
    buildReplan();
    doc_->newProject();
    restoreSettings();
    updateTitle();
}

MainWindow::~MainWindow() = default;

void MainWindow::buildDocks()
{
    treeModel_ = new ProjectTreeModel(this);
    tree_ = new QTreeView;
    tree_->setModel(treeModel_);
    tree_->header()->hide();
    tree_->setSelectionMode(QAbstractItemView::ExtendedSelection); // Ctrl-click two plans to compare them
    connect(tree_, &QTreeView::activated, this, &MainWindow::onTreeActivated);
    connect(tree_, &QTreeView::clicked, this, &MainWindow::onTreeActivated);
    buildTreeActions();
    auto* treeDock = new QDockWidget(tr("Project"), this);
    treeDock->setObjectName("ProjectDock");
    treeDock->setWidget(tree_);
    addDockWidget(Qt::LeftDockWidgetArea, treeDock);

    auto* propDock = new QDockWidget(tr("Properties"), this);
    propDock->setObjectName("PropertiesDock");
    propDock->setWidget(editor_->propertyPanel());
    addDockWidget(Qt::RightDockWidgetArea, propDock);

    jobPanel_ = new JobPanel;
    auto* jobDock = new QDockWidget(tr("Job"), this);
    jobDock->setObjectName("JobDock");
    auto* jobScroll = new QScrollArea; // a short window scrolls the form rather than squashing its rows
    jobScroll->setWidget(jobPanel_);
    jobScroll->setWidgetResizable(true);
    jobScroll->setFrameShape(QFrame::NoFrame);
    jobDock->setWidget(jobScroll);
    addDockWidget(Qt::RightDockWidgetArea, jobDock);
    resetLayout();
}

void MainWindow::buildTabs()
{
    tabs_ = new QTabWidget;
    tabs_->setDocumentMode(true);
    // Nine tabs between the two docks do not fit a narrow window: the long labels get short ones (see the
    // TabLabels below). Only a window narrower still (about 1100 pixels with both docks) scrolls the tabs:
    // whole short labels behind arrows read better than every label elided to two letters.
    tabs_->setElideMode(Qt::ElideNone);
    editor_ = new ClusterEditor(doc_->clusterDocument(), doc_->undoStack());
    modelPanel_ = new ModelPanel;
    runPanel_ = new RunPanel;
    tabs_->addTab(editor_, tr("Cluster"));
    tabs_->addTab(modelPanel_, tr("Model && profile"));
    tabs_->addTab(runPanel_, tr("Run"));
    setFullLabelTips();
    auto* labels = new TabLabels(tabs_);
    labels->setShortLabel(modelPanel_, tr("Model"));
    buildPlanViews();
    buildWhatIfTab();
    setFullLabelTips();
    setCentralWidget(tabs_);
}

void MainWindow::setFullLabelTips()
{
    for (int i = 0; i < tabs_->count(); ++i) // the whole name, where the label is short or elided
        if (tabs_->tabToolTip(i).isEmpty())
            tabs_->setTabToolTip(i, tabs_->tabText(i).replace(QStringLiteral("&&"), QStringLiteral("&")));
}

// One tab per plan view, each given the CurrentPlan once; the window only hears that they were updated.
void MainWindow::buildPlanViews()
{
    current_ = new CurrentPlan(doc_, this);
    auto* labels = tabs_->findChild<TabLabels*>();
    for (const PlanViewEntry& entry : planViews()) {
        QWidget* view = entry.make();
        const int tab = tabs_->addTab(view, QString(entry.label).replace(QStringLiteral("&"), QStringLiteral("&&")));
        tabs_->setTabToolTip(tab, entry.label); // before a short label may replace the text
        if (!entry.shortLabel.isEmpty())
            labels->setShortLabel(view, entry.shortLabel);
        attachPlanView(view, current_);
        planViews_.push_back(view);
        planViewIds_.push_back(entry.id);
    }
    connect(current_, &CurrentPlan::changed, this, [this] {
        if (current_->plan() && !current_->error().isEmpty())
            showMessage(tr("Cannot show this plan: %1").arg(current_->error()), true);
    });
}

template <class View>
View* MainWindow::planView() const
{
    for (QWidget* w : planViews_)
        if (auto* v = qobject_cast<View*>(w))
            return v;
    return nullptr;
}

GanttView* MainWindow::gantt() const { return planView<GanttView>(); }
StageMapView* MainWindow::stageMap() const { return planView<StageMapView>(); }
CurvesView* MainWindow::curves() const { return planView<CurvesView>(); }
ComparisonView* MainWindow::comparison() const { return planView<ComparisonView>(); }
PlanDetailsView* MainWindow::planDetails() const { return planView<PlanDetailsView>(); }

void MainWindow::buildStatusBar()
{
    status_ = new QLabel(tr("Ready"));
    progress_ = new QProgressBar;
    progress_->setRange(0, 1000);
    progress_->setMaximumWidth(220);
    progress_->setVisible(false);
    cancel_ = new QToolButton;
    cancel_->setText(tr("Cancel"));
    cancel_->setVisible(false);
    statusBar()->addWidget(status_, 1);
    statusBar()->addPermanentWidget(progress_);
    statusBar()->addPermanentWidget(cancel_);
    // A plot export says where it went ("Saved gantt as …").
    for (QWidget* w : planViews_)
        if (auto* view = qobject_cast<PlotView*>(w))
            connect(view, &PlotView::exported, this, [this, view](const QString& file) {
                statusBar()->showMessage(tr("Saved %1 as %2").arg(view->viewName(), QDir::toNativeSeparators(file)),
                                         15000);
            });
}

void MainWindow::connectDocument()
{
    connect(doc_, &ProjectDocument::changed, this, &MainWindow::onDocumentChanged);
    connect(doc_, &ProjectDocument::currentChanged, this, &MainWindow::onCurrentChanged);
    connect(doc_, &ProjectDocument::currentPlanChanged, this, &MainWindow::onCurrentPlanChanged);
    connect(doc_, &ProjectDocument::dirtyChanged, this, &MainWindow::updateTitle);
    connect(doc_, &ProjectDocument::fileChanged, this, &MainWindow::updateTitle);
    connect(doc_, &ProjectDocument::changed, this, &MainWindow::updateCurrentMarks);
    connect(doc_, &ProjectDocument::currentChanged, this, &MainWindow::updateCurrentMarks);
    connect(doc_, &ProjectDocument::changed, this, &MainWindow::updateContext); // renames, undo
    connect(doc_, &ProjectDocument::currentChanged, this, &MainWindow::updateContext);
    connect(doc_, &ProjectDocument::projectReplaced, this, &MainWindow::onProjectReplaced);
}

// Edits in the canvas and the panels flow into the project (their undo commands are on the document's
// stack); the run buttons go to the run controller.
void MainWindow::connectPanels()
{
    // Marked failed or healthy (or such a step undone): re-plan the current plan, unless Live re-plans
    // every edit anyway.
    connect(doc_, &ProjectDocument::failedNodesChanged, this, [this] {
        if (!isLive())
            replanAfterFailure();
    });
    connect(jobPanel_, &JobPanel::jobEdited, this, &MainWindow::onJobEdited);
    connect(modelPanel_, &ModelPanel::exampleModelChosen, this, &MainWindow::onExampleModelChosen);
    connect(modelPanel_, &ModelPanel::profileImported, this, &MainWindow::onProfileImported);
    connect(runPanel_, &RunPanel::runRequested, this, &MainWindow::startRun);
    connect(runPanel_, &RunPanel::plannersTicked, this,
            [this](const std::vector<std::string>& ticked) { doc_->setTickedPlanners(ticked); });
    connect(runPanel_, &RunPanel::cancelRequested, runner_, &RunController::cancel);
    connect(cancel_, &QToolButton::clicked, runner_, &RunController::cancel);
    connect(runPanel_, &RunPanel::resultActivated, this, &MainWindow::onResultActivated);
}

void MainWindow::connectRunner()
{
    connect(runner_, &RunController::progress, this, &MainWindow::onRunProgress);
    // The Run tab lists the planner still searching, with its progress and elapsed time.
    connect(runner_, &RunController::plannerStarted, runPanel_, &RunPanel::startPlanner);
    connect(runner_, &RunController::progress, runPanel_,
            [this](double, const QString& text) { runPanel_->setPlannerProgress(text); });
    connect(runner_, &RunController::resultReady, this, &MainWindow::onRunResult);
    connect(runner_, &RunController::finished, this, &MainWindow::onRunFinished);
}

void MainWindow::buildActions()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&New"), QKeySequence::New, this, &MainWindow::newProject);
    file->addAction(tr("&Open…"), QKeySequence::Open, this, &MainWindow::openProject);
    file->addAction(tr("Open &Example…"), QKeySequence(Qt::CTRL | Qt::Key_E), this, &MainWindow::openExampleDialog);
    file->addAction(tr("New &Cluster"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_N), this, &MainWindow::newCluster);
    recentMenu_ = file->addMenu(tr("Open &Recent"));
    file->addSeparator();
    file->addAction(tr("&Save"), QKeySequence::Save, this, &MainWindow::save);
    file->addAction(tr("Save &As…"), QKeySequence::SaveAs, this, &MainWindow::saveAs);
    QMenu* exp = file->addMenu(tr("&Export Plan"));
    for (const ExportFormat& f : ExporterRegistry::instance().formats())
        exp->addAction(QString::fromStdString(f.description) + "…", this,
                       [this, name = QString::fromStdString(f.name)] { exportPlan(name); })
            ->setData(QString::fromStdString(f.name));
    exp->setToolTipsVisible(true); // a greyed-out format says why
    connect(exp, &QMenu::aboutToShow, this, [this, exp] { updateExportMenu(exp); });
    buildJsonMenus(file);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* undo = doc_->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    QAction* redo = doc_->undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setShortcut(QKeySequence::Redo);
    edit->addAction(undo);
    edit->addAction(redo);

    // Zoom acts on the current tab: the canvas, or the plot of a plan view (main_window_shortcuts.cpp).
    QMenu* view = menuBar()->addMenu(tr("&View"));
    QAction* zoomIn = view->addAction(tr("Zoom &In"), this, [this] { zoomActiveView(1.25); });
    zoomIn->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_Equal), QKeySequence::ZoomIn});
    view->addAction(tr("Zoom &Out"), QKeySequence::ZoomOut, this, [this] { zoomActiveView(1 / 1.25); });
    view->addAction(tr("Zoom to &Fit"), QKeySequence(Qt::CTRL | Qt::Key_0), this, &MainWindow::resetActiveView);
    view->addAction(tr("&Auto Layout"), QKeySequence(Qt::CTRL | Qt::Key_L), editor_, &ClusterEditor::autoLayout);
    view->addSeparator();
    for (QDockWidget* d : findChildren<QDockWidget*>())
        view->addAction(d->toggleViewAction());

    QMenu* run = menuBar()->addMenu(tr("&Run"));
    run->addAction(tr("&Run Planners"), QKeySequence(Qt::Key_F5), this, &MainWindow::startRun);
    run->addAction(tr("&Cancel"), QKeySequence(Qt::Key_Escape), runner_, &RunController::cancel);
    buildLive(run);
    // The tree's context menu has the same action; here it is visible without knowing where to right-click.
    run->addSeparator();
    QAction* compare = run->addAction(tr("Compare the Two &Selected Plans"), this, [this] {
        const std::vector<PlanRef> refs = selectedPlans();
        if (refs.size() == 2)
            comparePlans(refs[0], refs[1]);
        else
            showMessage(tr("Select two plans (Ctrl-click two results in the project tree) to compare them."), true);
    });
    compare->setObjectName("compareSelected");
    compare->setStatusTip(tr("Ctrl-click two results in the project tree, then compare them side by side"));
    connect(run, &QMenu::aboutToShow, compare, [this, compare] { compare->setEnabled(selectedPlans().size() == 2); });

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&User Guide"), this, &MainWindow::showUserGuide);
    help->addAction(tr("&Keyboard Shortcuts"), QKeySequence(Qt::Key_F1), this, &MainWindow::showKeyboardShortcuts);
    help->addAction(tr("&About hetplan"), this, [this] {
        showMessage(tr("hetplan %1 — plans training on heterogeneous GPU clusters (GPL-3.0-or-later)")
                        .arg(QApplication::applicationVersion()));
    });

    QToolBar* tb = addToolBar(tr("Main"));
    tb->setObjectName("MainToolBar");
    tb->addAction(tr("Open Example"), this, &MainWindow::openExampleDialog);
    tb->addAction(tr("Open"), this, &MainWindow::openProject);
    tb->addAction(tr("Save"), this, &MainWindow::save);
    tb->addSeparator();
    addUndoButtons(tb);
    tb->addSeparator();
    tb->addAction(tr("Run"), this, &MainWindow::startRun);
}

void MainWindow::resetLayout()
{
    // Default widths leave the centre to the canvas and plots (restoreState() overrides them).
    auto* tree = findChild<QDockWidget*>("ProjectDock");
    auto* props = findChild<QDockWidget*>("PropertiesDock");
    // At 1024 pixels a narrow tree (rows elided, whole in tooltips) leaves the tabs and the canvas about 600
    // pixels, every tab on the bar; Properties keeps 260, where its form wraps no more rows than at first.
    if (tree && props)
        resizeDocks({tree, props}, {width() >= 1280 ? 260 : 160, width() >= 1280 ? 320 : 260}, Qt::Horizontal);
}

void MainWindow::restoreSettings()
{
    QSettings s;
    hasSavedGeometry_ = restoreGeometry(s.value("window/geometry").toByteArray());
    restoreState(s.value("window/state").toByteArray());
    rebuildRecentMenu();
    restoreLive();
}

void MainWindow::saveSettings()
{
    QSettings s;
    s.setValue("window/geometry", saveGeometry());
    s.setValue("window/state", saveState());
}

void MainWindow::addRecent(const QString& path)
{
    QSettings s;
    QStringList files = s.value("recentFiles").toStringList();
    files.removeAll(path);
    files.prepend(path);
    while (files.size() > 8)
        files.removeLast();
    s.setValue("recentFiles", files);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu()
{
    if (!recentMenu_)
        return;
    recentMenu_->clear();
    const QStringList files = QSettings().value("recentFiles").toStringList();
    for (const QString& f : files)
        recentMenu_->addAction(QFileInfo(f).fileName(), this, [this, f] { openFile(f); })->setToolTip(f);
    recentMenu_->setEnabled(!files.isEmpty());
}

void MainWindow::closeEvent(QCloseEvent* e)
{
    if (!maybeSave()) {
        e->ignore();
        return;
    }
    runner_->cancel();
    runner_->wait();
    saveSettings();
    e->accept();
}

void MainWindow::addUndoButtons(QToolBar* tb)
{
    QUndoStack* stack = doc_->undoStack();
    const auto add = [&](const QString& text, void (QUndoStack::*trigger)(), bool (QUndoStack::*can)() const,
                         void (QUndoStack::*canChanged)(bool), void (QUndoStack::*textChanged)(const QString&),
                         QString (QUndoStack::*stepText)() const, const QString& objectName) {
        QAction* a = tb->addAction(text, stack, trigger);
        a->setObjectName(objectName);
        a->setEnabled((stack->*can)());
        const auto tip = [a, stack, text, stepText] {
            const QString step = (stack->*stepText)();
            a->setToolTip(step.isEmpty() ? text : text + QLatin1Char(' ') + step);
        };
        tip();
        connect(stack, canChanged, a, &QAction::setEnabled);
        connect(stack, textChanged, a, tip);
    };
    add(tr("Undo"), &QUndoStack::undo, &QUndoStack::canUndo, &QUndoStack::canUndoChanged, &QUndoStack::undoTextChanged,
        &QUndoStack::undoText, "ToolBarUndo");
    add(tr("Redo"), &QUndoStack::redo, &QUndoStack::canRedo, &QUndoStack::canRedoChanged, &QUndoStack::redoTextChanged,
        &QUndoStack::redoText, "ToolBarRedo");
}

void MainWindow::updateTitle()
{
    setWindowTitle(doc_->displayName() + "[*] — " + doc_->contextText() + " — hetplan");
    setWindowModified(doc_->isDirty());
}

void MainWindow::updateContext()
{
    runPanel_->setContext(doc_->contextText());
    updateTitle();
}

void MainWindow::showEvent(QShowEvent* e)
{
    // First launch: no saved geometry and nobody sized the window, so its size hint (about 780×490) would
    // set it; take most of the screen instead.
    const bool firstLaunch = !shownOnce_ && !hasSavedGeometry_ && !testAttribute(Qt::WA_Resized);
    if (firstLaunch) {
        const QRect screen = this->screen()->availableGeometry();
        resize(std::min(1400, screen.width() * 9 / 10), std::min(900, screen.height() * 9 / 10));
    }
    QMainWindow::showEvent(e);
    if (shownOnce_)
        return;
    shownOnce_ = true;
    // Under a window manager the window gets its final size after this event, and docks resized now are
    // laid out again and lose their width: fit them once the event loop has settled the geometry.
    QTimer::singleShot(0, this, [this, firstLaunch] {
        if (firstLaunch)
            resetLayout();
    });
}

void MainWindow::showMessage(const QString& text, bool error)
{
    lastMessage_ = text;
    lastMessageIsError_ = error;
    status_->setText(text);
    status_->setToolTip(text); // a long message does not fit the status bar: the tooltip has it whole
    status_->setStyleSheet(error ? "color: #b00020" : QString());
}

} // namespace hetplan
