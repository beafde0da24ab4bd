// Managing the project from the main window: the tree's context menu and Delete key (only while the tree
// has the focus), File ▸ Import / Export JSON read by the CLI and reading what the CLI writes, bad files
// refused with the project unchanged, and the Run / Model tabs' flag for a profile measured at another
// sequence length or precision than the job.
#include "testutil.h"

#include "app/gui/main_window.h"
#include "core/io/examples.h"
#include "core/io/json_io.h"
#include "widgets/canvas/cluster_editor.h"
#include "widgets/canvas/property_panel.h"
#include "widgets/common/export_folder.h"
#include "widgets/controller/project_io.h"
#include "widgets/models/project_tree.h"
#include "widgets/models/project_tree_menu.h"
#include "widgets/panels/import_dialog.h"
#include "widgets/panels/model_panel.h"
#include "widgets/panels/run_panel.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QPainter>
#include <QSettings>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>
#include <QSignalSpy>
#include <QTreeView>
#include <QUndoStack>

using namespace hetplan;

namespace {

QModelIndex treeItem(QTreeView* tree, TreeKind kind, const std::string& name)
{
    QAbstractItemModel* m = tree->model();
    const QModelIndexList hits = m->match(m->index(0, 0), kRoleName, QString::fromStdString(name), -1,
                                          Qt::MatchExactly | Qt::MatchRecursive);
    for (const QModelIndex& i : hits)
        if (i.data(kRoleKind).toInt() == int(kind))
            return i;
    return {};
}

QStringList actionNames(const QMenu* menu)
{
    QStringList names;
    for (const QAction* a : menu->actions())
        names << a->objectName();
    return names;
}

// Where the screenshots of this suite go when HETPLAN_SCREENSHOTS is set (docs/screenshots).
QString screenshotDir() { return qEnvironmentVariable("HETPLAN_SCREENSHOTS"); }

} // namespace

class TestProjectWindow : public QObject {
    Q_OBJECT
    QTemporaryDir dir;

    QString path(const char* name) const { return dir.filePath(name); }

private slots:
    void initTestCase()
    {
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, dir.path());
        QCoreApplication::setOrganizationName("hetplan-tests");
        QCoreApplication::setApplicationName("tst_project_window");
    }

    void firstRunPlansTheDefaultsAndTicksAreSavedWithTheProject()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("ticks.hetplan");
        {
            MainWindow w;
            w.setInteractive(false);
            // A new user's first F5 plans (no red "tick a planner"): AMP, its baseline and the reference.
            QCOMPARE(w.runPanel()->checkedPlanners(), (std::vector<std::string>{"amp", "megatron", "uniform"}));
            w.openExample("amp-het-cluster", "gpt2-amp");
            QSignalSpy finished(&w, &MainWindow::runFinished);
            emit w.runPanel()->runRequested();
            QVERIFY(finished.wait(test::kHangGuardMs));
            QVERIFY2(!w.lastMessageIsError(), qPrintable(w.lastMessage()));
            QCOMPARE(w.document()->project().runs.back().results.size(), size_t(3));
            // The user's ticks (a click on a box, as the Run tab's tree reports it) go with the project.
            QTreeWidget* planners = w.runPanel()->findChild<QTreeWidget*>("plannerList");
            QVERIFY(planners);
            for (int i = 0; i < planners->topLevelItemCount(); ++i)
                if (planners->topLevelItem(i)->text(0) == "hethub" || planners->topLevelItem(i)->text(0) == "uniform")
                    planners->topLevelItem(i)->setCheckState(
                        0, planners->topLevelItem(i)->text(0) == "hethub" ? Qt::Checked : Qt::Unchecked);
            QCOMPARE(*w.document()->tickedPlanners(), (std::vector<std::string>{"amp", "hethub", "megatron"}));
            w.document()->saveAs(path);
        }
        MainWindow w;
        w.setInteractive(false);
        w.runPanel()->setChecked({"poplar"}); // whatever another project had ticked
        w.openFile(path);
        QCOMPARE(w.runPanel()->checkedPlanners(), (std::vector<std::string>{"amp", "hethub", "megatron"}));
        // A project without saved ticks (new, an example) keeps what is ticked.
        w.openExample("ditto-ex3", "gpt2-xl");
        QCOMPARE(w.runPanel()->checkedPlanners(), (std::vector<std::string>{"amp", "hethub", "megatron"}));
    }

    // Every save dialog starts in one folder and suggests a name from the project.
    void saveDialogsShareAFolderAndSuggestNames()
    {
        QCOMPARE(fileNamePart("gpt2 xl/v2"), QStringLiteral("gpt2-xl-v2"));
        QCOMPARE(fileNamePart("../x"), QStringLiteral("x"));
        QTemporaryDir projectDir, exportDir;
        QSettings().remove("export/folder");
        const QString project = projectDir.filePath("p.hetplan");
        QCOMPARE(suggestedSavePath("a.json", project), projectDir.filePath("a.json")); // the project's folder
        QCOMPARE(suggestedSavePath("a.json"), QDir::home().filePath("a.json"));          // untitled: home
        rememberSaveFolder(exportDir.filePath("gantt.png"));
        QCOMPARE(suggestedSavePath("a.json", project), exportDir.filePath("a.json")); // the last one used
        QSettings().setValue("export/folder", exportDir.filePath("gone"));
        QCOMPARE(suggestedSavePath("a.json", project), projectDir.filePath("a.json")); // a folder since removed
        QSettings().remove("export/folder");
    }

    void contextMenuOffersWhatEachItemAllows()
    {
        MainWindow w;
        w.setInteractive(false);
        w.resize(1280, 800);
        w.openExample("amp-het-cluster", "gpt2-amp");
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        const QModelIndex cluster = treeItem(w.projectTree(), TreeKind::Cluster, "amp-het-cluster");
        QVERIFY(cluster.isValid());
        QMenu* menu = w.treeMenu(cluster);
        QVERIFY(menu);
        QCOMPARE(actionNames(menu), (QStringList{"setCurrent", "rename", "duplicate", "delete"}));
        if (!screenshotDir().isEmpty()) {
            // The popup is a window of its own: paint it over the window's picture where it would appear.
            w.projectTree()->setCurrentIndex(cluster);
            const QRect item = w.projectTree()->visualRect(cluster);
            const QPoint at = w.projectTree()->viewport()->mapToGlobal(item.center());
            menu->popup(at);
            QVERIFY(QTest::qWaitForWindowExposed(menu));
            QPixmap shot = w.grab();
            QPainter p(&shot);
            p.drawPixmap(w.mapFromGlobal(menu->pos()), menu->grab());
            p.end();
            QVERIFY(shot.save(QDir(screenshotDir()).filePath("tree-menu.png")));
            menu->close();
        }
        delete menu;
        const QModelIndex job = treeItem(w.projectTree(), TreeKind::Job, "default");
        QMenu* jobMenu = w.treeMenu(job);
        QVERIFY(actionNames(jobMenu).contains("newJob"));
        delete jobMenu;
        QVERIFY(!w.treeMenu(w.projectTree()->model()->index(0, 0))); // a group: nothing to do
    }

    void deleteKeyWorksOnTheTreeOnlyWhenItHasTheFocus()
    {
        MainWindow w;
        w.setInteractive(false);
        w.openExample("amp-het-cluster", "gpt2-amp");
        w.show();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        QTreeView* tree = w.projectTree();
        tree->setCurrentIndex(treeItem(tree, TreeKind::Model, "gpt2-amp"));
        // The canvas has the focus: Delete is not the tree's.
        w.clusterEditor()->setFocus();
        QVERIFY(!tree->hasFocus());
        QTest::keyClick(w.clusterEditor(), Qt::Key_Delete);
        QVERIFY(w.document()->project().findModel("gpt2-amp"));

        tree->setFocus();
        QVERIFY(tree->hasFocus());
        QTest::keyClick(tree, Qt::Key_Delete);
        QVERIFY(!w.document()->project().findModel("gpt2-amp"));
        QCOMPARE(w.document()->currentModel(), std::string()); // the only model: none is current
        QVERIFY(w.runPanel()->notice().contains("No model"));
        w.document()->undoStack()->undo();
        QVERIFY(w.document()->project().findModel("gpt2-amp"));
        QCOMPARE(w.document()->currentModel(), std::string("gpt2-amp"));
        QVERIFY(!w.runPanel()->notice().contains("No model"));
        tree->setCurrentIndex(treeItem(tree, TreeKind::Job, "default"));
        tree->setFocus();
        QTest::keyClick(tree, Qt::Key_Delete);
        QVERIFY(w.document()->project().jobs.empty());
        QVERIFY(w.runPanel()->notice().contains("No job"));
        w.document()->undoStack()->undo();
        QCOMPARE(w.document()->currentJob(), std::string("default"));
        QCOMPARE(w.runPanel()->notice(), QString());

        // Deleting the shown cluster empties the canvas and says why nothing can run; undo brings it back.
        const Cluster shown = w.clusterEditor()->cluster();
        tree->setCurrentIndex(treeItem(tree, TreeKind::Cluster, "amp-het-cluster"));
        tree->setFocus();
        QTest::keyClick(tree, Qt::Key_Delete);
        QVERIFY(w.document()->project().clusters.empty());
        QVERIFY(w.clusterEditor()->cluster().nodes.empty());
        QVERIFY(w.runPanel()->notice().contains("No cluster"));
        QVERIFY(!w.runPlanners({"amp"}));
        QVERIFY(w.document()->project().clusters.empty()); // the canvas did not bring it back
        w.document()->undoStack()->undo();
        QVERIFY(w.clusterEditor()->cluster() == shown);
        QCOMPARE(w.document()->currentCluster(), shown.name);
    }

    void fileMenuHasImportAndExport()
    {
        MainWindow w;
        for (const char* name : {"importJson", "exportJson"}) {
            auto* menu = w.menuBar()->findChild<QMenu*>(name);
            QVERIFY2(menu, name);
            QCOMPARE(actionNames(menu), (QStringList{"cluster", "model", "plan"}));
        }
    }

    void guiExportIsReadByTheCliAndBack()
    {
        MainWindow w;
        w.setInteractive(false);
        w.openExample("amp-het-cluster", "gpt2-amp");
        QVERIFY(w.exportJsonFile(JsonItem::Cluster, path("gui-cluster.json")));
        QVERIFY(w.exportJsonFile(JsonItem::Model, path("gui-model.json")));
        QVERIFY(!w.exportJsonFile(JsonItem::Plan, path("gui-plan.json"))); // no plan yet
        QVERIFY(w.lastMessage().contains("no plan"));

        // The CLI plans on the GUI's files...
        test::CliResult r = test::runCli({"plan", "--cluster", path("gui-cluster.json"), "--model",
                                          path("gui-model.json"), "--gbs", "32", "--planner", "amp", "--quiet", "--out",
                                          path("cli-plan.json")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const Plan cliPlan = readPlan(path("cli-plan.json").toStdString());
        QVERIFY(cliPlan.cluster == *w.document()->cluster());
        QCOMPARE(cliPlan.model.layerCount(), w.document()->model()->model.layerCount());

        // ...the GUI imports the CLI's plan as a run of its own and shows it...
        QVERIFY(w.importJsonFile(JsonItem::Plan, path("cli-plan.json")));
        const auto ref = w.document()->currentPlan();
        QVERIFY(ref);
        QCOMPARE(w.document()->run(ref->runId)->results.size(), size_t(1));
        QVERIFY(*w.document()->plan(*ref) == cliPlan);

        // ...and exports it again for the CLI, which re-scores it to the same iteration time.
        QVERIFY(w.exportJsonFile(JsonItem::Plan, path("gui-plan.json")));
        r = test::runCli({"simulate", "--plan", path("gui-plan.json"), "--out", path("rescored.json")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(qAbs(readPlan(path("rescored.json").toStdString()).estimate.iterationSeconds -
                     cliPlan.estimate.iterationSeconds) < 1e-12);

        // The cluster file imports back under a new name: same content.
        QVERIFY(w.importJsonFile(JsonItem::Cluster, path("gui-cluster.json")));
        Cluster copy = *w.document()->cluster();
        QCOMPARE(copy.name, std::string("amp-het-cluster (2)"));
        copy.name = "amp-het-cluster";
        QVERIFY(copy == *w.document()->project().findCluster("amp-het-cluster"));
    }

    void badImportKeepsTheProject()
    {
        MainWindow w;
        w.setInteractive(false);
        w.openExample("amp-het-cluster", "gpt2-amp");
        const Project before = w.document()->project();
        QFile bad(path("bad-model.json"));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write("{\"name\": \"m\", \"layers\": 12");
        bad.close();
        QVERIFY(!w.importJsonFile(JsonItem::Model, bad.fileName()));
        QVERIFY2(w.lastMessage().contains(bad.fileName() + ": json:"), qPrintable(w.lastMessage()));
        QVERIFY(!w.importJsonFile(JsonItem::Cluster, path("missing.json")));
        QVERIFY(w.document()->project() == before);
        QVERIFY(!w.document()->isDirty());
    }

    void profileAtAnotherSequenceOrPrecisionIsFlagged()
    {
        MainWindow w;
        w.setInteractive(false);
        w.openExample("amp-het-cluster", "gpt2-amp");
        const ProjectModel* m = w.document()->model();
        Profile p;
        LayerTiming t;
        t.forward = 1e-3;
        p.set(ProfileKey{"T4", 1, 1}, std::vector<LayerTiming>(size_t(m->model.layerCount()), t));
        p.sequenceLength = w.document()->job()->job.sequenceLength;
        p.precision = w.document()->job()->job.precision;
        w.document()->setProfile(m->model.name, p);
        QCOMPARE(w.runPanel()->notice(), QString()); // measured as the job runs: no flag
        QCOMPARE(w.modelPanel()->profileNotice(), QString());

        NamedJob job = *w.document()->job();
        job.job.sequenceLength = p.sequenceLength * 2;
        w.document()->setJob(job);
        const QString seq = QString("measured at sequence length %1, the job uses %2")
                                .arg(p.sequenceLength)
                                .arg(job.job.sequenceLength);
        QVERIFY2(w.runPanel()->notice().contains(seq), qPrintable(w.runPanel()->notice()));
        QVERIFY(w.modelPanel()->profileNotice().contains(seq));
        if (!screenshotDir().isEmpty()) {
            w.resize(1280, 800);
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            w.tabs()->setCurrentWidget(w.modelPanel());
            QApplication::processEvents();
            QVERIFY(w.grab().save(QDir(screenshotDir()).filePath("profile-flag.png")));
        }

        job.job.sequenceLength = p.sequenceLength;
        job.job.precision = Precision::FP32;
        w.document()->setJob(job);
        QVERIFY2(w.runPanel()->notice().contains("refuse") && w.runPanel()->notice().contains("fp32"),
                 qPrintable(w.runPanel()->notice()));
        QVERIFY(w.modelPanel()->profileNotice().contains("fp32"));
    }

    void importDialogErrorScreenshot()
    {
        if (screenshotDir().isEmpty())
            QSKIP("set HETPLAN_SCREENSHOTS to write docs/screenshots/import-error.png");
        ImportDialog d;
        const ModelSpec llama = buildExampleModel("llama2-7b"); // a GPT-2 file for a Llama: the layers differ
        d.setTarget(&llama, nullptr);
        d.setInput("amp-npy", QString::fromStdString(test::fixture("profiles/amp/gpt2_30.npy")), "T4", 1);
        d.show();
        QVERIFY(QTest::qWaitForWindowExposed(&d));
        QVERIFY(!d.tryAccept());
        QVERIFY(d.isVisible());
        QApplication::processEvents();
        QVERIFY(d.grab().save(QDir(screenshotDir()).filePath("import-error.png")));
    }
};

QTEST_MAIN(TestProjectWindow)
#include "tst_project_window.moc"
