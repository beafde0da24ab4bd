// What a new user sees of the open project in the main window (offscreen): the current cluster · model ·
// job in the title and the Run tab's header, following every change and undo; a reopened project restores
// that selection and the selected run; another project or example leaves nothing of the previous one in
// any view; the window works at 1024×700; the Undo/Redo tool buttons keep their width; the example picker
// shows each cluster's GPU count and description; the Megatron export is named as the launch script it is.
#include "testutil.h"

#include "app/gui/main_window.h"
#include "core/io/examples.h"
#include "widgets/canvas/cluster_editor.h"
#include "widgets/canvas/property_panel.h"
#include "widgets/commands/cluster_fields.h"
#include "widgets/panels/example_picker.h"
#include "widgets/panels/job_panel.h"
#include "widgets/panels/run_panel.h"
#include "widgets/views/comparison_view.h"
#include "widgets/views/gantt_view.h"
#include "widgets/models/project_tree.h"
#include "widgets/views/plan_details_view.h"
#include "widgets/views/plan_pair_view.h"
#include "widgets/views/stage_map_view.h"

#include <QComboBox>
#include <functional>
#include <QItemSelectionModel>
#include <QTableWidget>
#include <QDockWidget>
#include <QMenu>
#include <QMenuBar>
#include <QScrollArea>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QToolBar>
#include <QTreeView>
#include <QTreeWidget>
#include <QUndoStack>

using namespace hetplan;

namespace {
bool waitForRun(MainWindow& w, int ms = test::kHangGuardMs)
{
    QSignalSpy spy(&w, &MainWindow::runFinished);
    return spy.wait(ms);
}

// Runs `planners` on the current project and waits for the run to end.
bool runAndWait(MainWindow& w, const std::vector<std::string>& planners)
{
    return w.runPlanners(planners) && waitForRun(w);
}

// Every item text of a tree view with its depth (the tree is expanded).
struct TreeText {
    QString text, toolTip;
    int depth = 0;
};

void collectTexts(const QAbstractItemModel* m, const QModelIndex& parent, int depth, std::vector<TreeText>& out)
{
    for (int r = 0; r < m->rowCount(parent); ++r) {
        const QModelIndex i = m->index(r, 0, parent);
        out.push_back({i.data().toString(), i.data(Qt::ToolTipRole).toString(), depth});
        collectTexts(m, i, depth + 1, out);
    }
}
} // namespace

class TestWindowContext : public QObject {
    Q_OBJECT
    QTemporaryDir dir;

private slots:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName("hetplan-tests"); // keep the user's QSettings out of it
        QCoreApplication::setApplicationName("tst_window_context");
    }

    void titleAndHeaderFollowEdits()
    {
        MainWindow w;
        w.setInteractive(false);
        // Nothing open: the header says so rather than showing nothing.
        QCOMPARE(w.runPanel()->context(), QStringLiteral("no cluster · no model"));
        w.openExample("amp-het-cluster", "gpt2-amp");
        // gpt2-amp's sequence is 1024; a new job has a global batch of 32.
        const QString start = QStringLiteral("amp-het-cluster · gpt2-amp · gbs 32 · seq 1024");
        QCOMPARE(w.runPanel()->context(), start);
        QVERIFY2(w.windowTitle().contains(start), qPrintable(w.windowTitle()));

        // A job edit (what the Job dock sends), and its undo.
        Job job = w.document()->job()->job;
        job.globalBatchSize = 64;
        job.sequenceLength = 2048;
        w.document()->setJob({"default", job});
        // gpt2-amp is built for 1024 tokens: the line says so beside the job's 2048.
        const QString edited = QStringLiteral("amp-het-cluster · gpt2-amp · gbs 64 · seq 2048 (the model's own: 1024)");
        QCOMPARE(w.runPanel()->context(), edited);
        QVERIFY(w.windowTitle().contains(edited));
        w.document()->undoStack()->undo();
        QCOMPARE(w.runPanel()->context(), start);
        QVERIFY(w.windowTitle().contains(start));

        // Another model, and its undo: the job follows the model's own length (bert-base: 512) in the same step.
        w.document()->addModel(ProjectModel{buildExampleModel("bert-base"), {}});
        QCOMPARE(w.runPanel()->context(), QStringLiteral("amp-het-cluster · bert-base · gbs 32 · seq 512"));
        w.document()->undoStack()->undo();
        QCOMPARE(w.runPanel()->context(), start);

        // Renaming the cluster on the canvas, and its undo.
        ClusterEditor* ed = w.clusterEditor();
        ed->undoStack()->push(changeValue(ed->document(), 0, clusterField::name, std::string("lab")));
        QCOMPARE(w.runPanel()->context(), QStringLiteral("lab · gpt2-amp · gbs 32 · seq 1024"));
        QVERIFY(w.windowTitle().contains(QStringLiteral("lab · gpt2-amp")));
        ed->undoStack()->undo();
        QCOMPARE(w.runPanel()->context(), start);
        QVERIFY(w.windowTitle().contains(start));
    }

    // Ctrl-click two results in the tree: the context menu compares them side by side.
    void twoSelectedPlansSideBySide()
    {
        MainWindow w;
        w.setInteractive(false);
        w.openExample("amp-het-cluster", "gpt2-amp");
        QVERIFY(runAndWait(w, {"uniform", "megatron"}));
        const int run = w.document()->project().runs.back().id;
        QVERIFY(w.document()->plan(PlanRef{run, 0}) && w.document()->plan(PlanRef{run, 1}));
        std::vector<QModelIndex> results;
        const QAbstractItemModel* m = w.projectTree()->model();
        std::function<void(const QModelIndex&)> find = [&](const QModelIndex& parent) {
            for (int r = 0; r < m->rowCount(parent); ++r) {
                const QModelIndex i = m->index(r, 0, parent);
                if (TreeKind(i.data(kRoleKind).toInt()) == TreeKind::Result && i.data(kRoleRun).toInt() == run)
                    results.push_back(i);
                find(i);
            }
        };
        find({});
        QCOMPARE(results.size(), size_t(2));
        // Real clicks: a plain click, then a Ctrl-click. Clicking a result makes its plan current, which once
        // re-selected the clicked row alone and dropped the first.
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QTreeView* tree = w.projectTree();
        auto click = [&](int i, Qt::KeyboardModifiers mods) {
            // Whatever the window still has queued (layouts, the run's last updates) is done before the
            // click, so on a busy machine it cannot land between two clicks and move or reset the rows.
            QCoreApplication::sendPostedEvents();
            QCoreApplication::processEvents();
            const QModelIndex index = results[size_t(i)];
            QTest::mouseClick(tree->viewport(), Qt::LeftButton, mods, tree->visualRect(index).center());
            results.clear();
            find({}); // the indexes again, in case the tree was rebuilt
        };
        click(0, Qt::NoModifier);
        QCOMPARE(w.selectedPlans().size(), size_t(1));
        QMenu* one = w.treeMenu(results[0]);
        QVERIFY(one);
        QAction* compareOne = one->findChild<QAction*>("comparePlans");
        QVERIFY(compareOne && !compareOne->isEnabled()); // one plan selected: nothing to compare with
        delete one;
        click(1, Qt::ControlModifier);
        QCOMPARE(w.selectedPlans().size(), size_t(2));
        QCOMPARE(*w.document()->currentPlan(), (PlanRef{run, 1})); // the Ctrl-clicked plan is shown
        // The Run menu has the comparison too, enabled when two plans are selected.
        QAction* fromMenu = w.findChild<QAction*>("compareSelected");
        QVERIFY(fromMenu);
        for (QMenu* m : w.menuBar()->findChildren<QMenu*>())
            if (m->actions().contains(fromMenu))
                emit m->aboutToShow();
        QVERIFY(fromMenu->isEnabled());
        QMenu* menu = w.treeMenu(results[1]);
        QAction* compare = menu->findChild<QAction*>("comparePlans");
        QVERIFY(compare && compare->isEnabled());
        compare->trigger();
        delete menu;
        PlanPairView* pair = w.planPair();
        QVERIFY(pair);
        QStringList names{pair->table()->horizontalHeaderItem(1)->text(), pair->table()->horizontalHeaderItem(2)->text()};
        names.sort();
        QVERIFY2(names[0].startsWith("megatron") && names[1].startsWith("uniform"), qPrintable(names.join(", ")));
        QVERIFY(pair->table()->rowCount() >= 8);
        QVERIFY(!pair->leftGantt()->isEmpty() && !pair->rightGantt()->isEmpty());
    }
    void reopenRestoresSelectionAndRun()
    {
        const QString file = dir.filePath("selection.hetplan");
        ProjectSelection saved;
        int resultsOfRun1 = 0;
        {
            MainWindow w;
            w.setInteractive(false);
            w.openExample("hethub-pair", "gpt2-amp");
            ProjectDocument* doc = w.document();
            // A second cluster, model and job, so the restored ones are not simply the first.
            Cluster second = exampleCluster("amp-homogeneous");
            doc->setCluster(second);
            QVERIFY(runAndWait(w, {"uniform", "data-parallel"}));
            resultsOfRun1 = int(doc->project().runs.back().results.size());
            doc->addModel(ProjectModel{buildExampleModel("bert-base"), {}});
            Job job;
            job.globalBatchSize = 16;
            job.sequenceLength = 512;
            doc->setJob({"small", job});
            QVERIFY(runAndWait(w, {"uniform"}));
            QCOMPARE(doc->project().runs.size(), size_t(2));
            const int run1 = doc->project().runs.front().id;
            doc->setCurrentPlan(PlanRef{run1, 1}); // the first run's second result
            QVERIFY(doc->plan(PlanRef{run1, 1}));
            doc->saveAs(file);
            saved = {"amp-homogeneous", "bert-base", "small", run1, 1, std::nullopt}; // the ticks are not checked here
        }
        MainWindow w;
        w.setInteractive(false);
        w.openFile(file);
        ProjectDocument* doc = w.document();
        QCOMPARE(doc->currentCluster(), saved.cluster);
        QCOMPARE(doc->currentModel(), saved.model);
        QCOMPARE(doc->currentJob(), saved.job);
        QVERIFY(doc->currentPlan());
        QCOMPARE(*doc->currentPlan(), (PlanRef{saved.run, saved.resultIndex}));
        QCOMPARE(w.runPanel()->context(), QStringLiteral("amp-homogeneous · bert-base · gbs 16 · seq 512"));
        // The Run tab shows the selected run (two planners), the views its selected plan.
        QCOMPARE(w.runPanel()->results()->topLevelItemCount(), resultsOfRun1);
        QCOMPARE(w.runPanel()->results()->topLevelItemCount(), 2);
        QVERIFY(w.gantt()->rowCount() > 0);
        QCOMPARE(w.clusterEditor()->cluster().name, std::string("amp-homogeneous"));
    }

    void otherProjectClearsEveryView()
    {
        MainWindow w;
        w.setInteractive(false);
        w.show();
        w.openExample("amp-het-cluster", "gpt2-amp");
        QVERIFY(runAndWait(w, {"uniform", "data-parallel"}));
        QCOMPARE(w.runPanel()->results()->topLevelItemCount(), 2);
        QVERIFY(w.gantt()->rowCount() > 0);
        QVERIFY(w.stageMap()->cellCount() > 0);
        QVERIFY(!w.comparison()->names().isEmpty());

        w.openExample("hethub-pair", "bert-base");
        QCOMPARE(w.runPanel()->results()->topLevelItemCount(), 0);
        QVERIFY(!w.document()->currentPlan());
        QCOMPARE(w.gantt()->rowCount(), 0);
        QCOMPARE(w.stageMap()->cellCount(), 0);
        QVERIFY(w.comparison()->names().isEmpty());
        QVERIFY(w.planDetails()->isEmpty());
        QVERIFY(w.planDetails()->summaryText().isEmpty());
        QCOMPARE(w.clusterEditor()->cluster().name, std::string("hethub-pair"));
        QCOMPARE(w.runPanel()->context(), QStringLiteral("hethub-pair · bert-base · gbs 32 · seq 512"));

        // File ▸ New: no cluster at all, so an empty canvas (not the previous example's nodes).
        QVERIFY(runAndWait(w, {"uniform"}));
        QCOMPARE(w.runPanel()->results()->topLevelItemCount(), 1);
        w.document()->newProject();
        QCOMPARE(w.runPanel()->results()->topLevelItemCount(), 0);
        QVERIFY(w.clusterEditor()->cluster().nodes.empty());
        QCOMPARE(w.gantt()->rowCount(), 0);
        QCOMPARE(w.runPanel()->context(), QStringLiteral("no cluster · no model"));
        QVERIFY(w.findChild<JobPanel*>()->job() == Job{});
    }

    void fitsA1024x700Screen()
    {
        MainWindow w;
        w.setInteractive(false);
        w.resize(1024, 700);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.resetLayout();
        QCoreApplication::processEvents();
        const auto* projectDock = w.findChild<QDockWidget*>("ProjectDock");
        QVERIFY(projectDock);
        const int treeWidth = projectDock->width(), centreWidth = w.tabs()->width();
        w.openExample("amp-het-cluster", "gpt2-amp");
        QVERIFY(runAndWait(w, {"uniform", "data-parallel"})); // the tree holds runs and results too
        QCoreApplication::processEvents();
        // The layout does not jump under the pointer: the tree and the centre keep their widths after a run.
        QCOMPARE(projectDock->width(), treeWidth);
        QCOMPARE(w.tabs()->width(), centreWidth);
        QVERIFY2(w.minimumSizeHint().width() <= 1024, qPrintable(QString::number(w.minimumSizeHint().width())));
        QVERIFY(w.minimumSizeHint().height() <= 700);
        QCOMPARE(w.size(), QSize(1024, 700));

        // Every tool bar action is visible and inside the tool bar (none pushed into an overflow menu).
        for (QToolBar* tb : w.findChildren<QToolBar*>()) {
            if (!tb->isVisible())
                continue;
            for (QAction* a : tb->actions()) {
                if (a->isSeparator())
                    continue;
                QWidget* button = tb->widgetForAction(a);
                QVERIFY2(button && button->isVisible(), qPrintable(tb->objectName() + ": " + a->text()));
                QVERIFY2(tb->rect().contains(button->geometry()), qPrintable(tb->objectName() + ": " + a->text()));
            }
        }
        // Docks are at least as wide as they need, and what scrolls inside them needs no sideways scrolling.
        for (QDockWidget* d : w.findChildren<QDockWidget*>()) {
            if (!d->isVisible())
                continue;
            QVERIFY2(d->width() >= d->minimumSizeHint().width(), qPrintable(d->objectName()));
            for (QScrollArea* area : d->findChildren<QScrollArea*>())
                if (area->widget() && area->widgetResizable())
                    QVERIFY2(area->widget()->minimumSizeHint().width() <= area->viewport()->width(),
                             qPrintable(d->objectName()));
        }
        // The project tree keeps its width (the canvas comes first on a small screen): a row longer than the
        // dock is elided, and its tooltip starts with the whole text; nothing scrolls sideways.
        QTreeView* tree = w.projectTree();
        std::vector<TreeText> texts;
        collectTexts(tree->model(), {}, 0, texts);
        QVERIFY(texts.size() > 4);
        const QFontMetrics fm = tree->fontMetrics();
        int elided = 0;
        for (const TreeText& t : texts)
            if (tree->indentation() * (t.depth + 1) + fm.horizontalAdvance(t.text) > tree->viewport()->width()) {
                ++elided;
                QVERIFY2(t.toolTip.startsWith(t.text), qPrintable(t.text));
            }
        QVERIFY(elided > 0); // at 1024 pixels some rows are longer than the dock: the case being checked
        QVERIFY(tree->columnWidth(0) <= tree->viewport()->width());
        const QString shots = qEnvironmentVariable("HETPLAN_SCREENSHOTS", dir.path());
        QVERIFY(w.grab().save(QDir(shots).filePath("window-1024x700.png")));
    }

    void projectTreeWidthIsRemembered()
    {
        int chosen = 0;
        {
            MainWindow w;
            w.setInteractive(false);
            w.resize(1024, 700);
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            auto* dock = w.findChild<QDockWidget*>("ProjectDock");
            chosen = dock->width() + 37;
            w.resizeDocks({dock}, {chosen}, Qt::Horizontal);
            QCoreApplication::processEvents();
            chosen = dock->width();
            w.close(); // saves the layout
        }
        MainWindow w;
        w.setInteractive(false);
        w.resize(1024, 700);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QCOMPARE(w.findChild<QDockWidget*>("ProjectDock")->width(), chosen);
    }

    void undoButtonsKeepTheirWidth()
    {
        MainWindow w;
        w.setInteractive(false);
        w.resize(1024, 700);
        w.show();
        w.openExample("amp-het-cluster", "gpt2-amp");
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        auto* tb = w.findChild<QToolBar*>("MainToolBar");
        QAction* undo = w.findChild<QAction*>("ToolBarUndo");
        QVERIFY(tb && undo);
        QWidget* undoButton = tb->widgetForAction(undo);
        QWidget* last = tb->widgetForAction(tb->actions().last()); // Run, after Undo/Redo
        const QRect undoBefore = undoButton->geometry(), lastBefore = last->geometry();
        QVERIFY(!undo->isEnabled());
        // A step with a long name.
        ClusterEditor* ed = w.clusterEditor();
        ed->undoStack()->push(changeValue(ed->document(), 0, nodeField::nicBandwidth, 99e9));
        QCoreApplication::processEvents();
        QVERIFY(undo->isEnabled());
        QCOMPARE(undo->text(), QStringLiteral("Undo"));
        QCOMPARE(undo->toolTip(), QStringLiteral("Undo Change NIC bandwidth of p3-0"));
        QCOMPARE(undoButton->geometry(), undoBefore);
        QCOMPARE(last->geometry(), lastBefore);
        // The tool button undoes like the menu's Undo.
        undo->trigger();
        QCOMPARE(ed->cluster().nodes[0].nicBandwidth, exampleCluster("amp-het-cluster").nodes[0].nicBandwidth);
        QCOMPARE(undo->toolTip(), QStringLiteral("Undo"));
        QCOMPARE(w.findChild<QAction*>("ToolBarRedo")->toolTip(), QStringLiteral("Redo Change NIC bandwidth of p3-0"));
    }

    void examplePickerShowsDescriptionsAndGpus()
    {
        ExamplePicker picker;
        QTreeWidget* list = picker.clusters();
        QCOMPARE(list->topLevelItemCount(), int(exampleClusterNames().size()));
        // amp-het-cluster: 3 nodes of 4 V100 + 1 node of 4 T4; hethub-pair: 8 A100 + 8 MI210.
        const auto row = [&](const char* name) { return list->findItems(name, Qt::MatchExactly, 0).value(0); };
        QVERIFY(row("amp-het-cluster") && row("hethub-pair"));
        QCOMPARE(row("amp-het-cluster")->text(1), QStringLiteral("16"));
        QVERIFY(row("amp-het-cluster")->text(2).startsWith("AMP heterogeneous-cluster setup"));
        QCOMPARE(row("hethub-pair")->text(1), QStringLiteral("16"));
        QVERIFY(row("hethub-pair")->text(2).startsWith("HetHub"));
        for (int i = 0; i < list->topLevelItemCount(); ++i) {
            QVERIFY(list->topLevelItem(i)->text(1).toInt() > 0);
            QVERIFY2(!list->topLevelItem(i)->text(2).isEmpty(), qPrintable(list->topLevelItem(i)->text(0)));
        }
        QCOMPARE(picker.cluster(), std::string("amp-het-cluster"));
        QVERIFY(picker.descriptionText().contains("g4dn.12xlarge"));
        picker.select("hethub-pair", "bert-base");
        QCOMPARE(picker.cluster(), std::string("hethub-pair"));
        QCOMPARE(picker.model(), std::string("bert-base"));
        QVERIFY(picker.descriptionText().startsWith("HetHub"));
    }

    void megatronExportIsALaunchScript()
    {
        MainWindow w;
        QMenu* exportMenu = nullptr;
        for (QAction* a : w.menuBar()->actions())
            if (a->menu())
                for (QAction* b : a->menu()->actions())
                    if (b->menu() && b->text().contains("Export Plan"))
                        exportMenu = b->menu();
        QVERIFY(exportMenu);
        QStringList texts;
        for (QAction* a : exportMenu->actions())
            texts << a->text();
        QVERIFY2(texts.contains(QStringLiteral("Megatron-LM launch script (.sh)…")), qPrintable(texts.join('|')));
    }
};

QTEST_MAIN(TestWindowContext)
#include "tst_window_context.moc"
