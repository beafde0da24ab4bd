// What the main window does: file operations, keeping widgets in step with the document, runs, exports
// and screenshots.
#include "main_window.h"

#include "core/base/errors.h"
#include "core/io/examples.h"
#include "core/io/exporters.h"
#include "core/io/json_io.h"
#include "widgets/canvas/cluster_editor.h"
#include "widgets/canvas/property_panel.h"
#include "widgets/common/export_folder.h"
#include "widgets/common/gui_errors.h"
#include "widgets/controller/live_controller.h"
#include "widgets/controller/replan_controller.h"
#include "widgets/controller/run_controller.h"
#include "widgets/models/project_tree.h"
#include "widgets/panels/example_picker.h"
#include "widgets/panels/job_panel.h"
#include "widgets/panels/model_panel.h"
#include "widgets/panels/run_panel.h"
#include "widgets/models/current_plan.h"
#include "widgets/views/plot_view.h"

#include <QApplication>
#include <QComboBox>
#include <QDateTime>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QStatusBar>
#include <QFileDialog>
#include <QFormLayout>
#include <QLabel>
#include <QMessageBox>
#include <QProgressBar>
#include <QTabWidget>
#include <QToolButton>
#include <QTreeView>

namespace hetplan {

// ---------------------------------------------------------------- files

bool MainWindow::maybeSave()
{
    if (!doc_->isDirty() || !interactive_)
        return true;
    const auto answer = QMessageBox::warning(this, tr("Unsaved changes"),
                                             tr("%1 has unsaved changes. Save them?").arg(doc_->displayName()),
                                             QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
    if (answer == QMessageBox::Save)
        return save();
    return answer == QMessageBox::Discard;
}

void MainWindow::newProject()
{
    if (maybeSave())
        doc_->newProject();
}

void MainWindow::openProject()
{
    if (!maybeSave())
        return;
    const QString path = QFileDialog::getOpenFileName(this, tr("Open project"), QString(),
                                                      tr("hetplan projects (*.hetplan);;All files (*)"));
    if (!path.isEmpty())
        openFile(path);
}

void MainWindow::reportFailure(const QString& status, const QString& dialogTitle, const std::exception& e,
                               bool critical)
{
    const QString reason = guiErrorText(e);
    showMessage(status.arg(reason), true);
    if (!interactive_)
        return;
    if (critical)
        QMessageBox::critical(this, dialogTitle, reason);
    else
        QMessageBox::warning(this, dialogTitle, reason);
}

bool MainWindow::openFile(const QString& path)
{
    try {
        doc_->open(path);
        addRecent(path);
        showMessage(tr("Opened %1").arg(path));
        return true;
    } catch (const std::exception& e) {
        // The document (and the file) are left as they were.
        reportFailure(tr("Cannot open: %1"), tr("Cannot open project"), e);
        return false;
    }
}

bool MainWindow::save()
{
    if (doc_->filePath().isEmpty())
        return saveAs();
    try {
        doc_->save();
        showMessage(tr("Saved %1").arg(doc_->filePath()));
        return true;
    } catch (const std::exception& e) {
        reportFailure(tr("Cannot save: %1"), tr("Cannot save project"), e);
        return false;
    }
}

bool MainWindow::saveAs()
{
    // An untitled project suggests a name from what it holds, in the folder the other dialogs use.
    const Cluster* c = doc_->cluster();
    const ProjectModel* m = doc_->model();
    const QString untitled = fileNamePart(c && m ? QString::fromStdString(c->name + "-" + m->model.name)
                                                 : QStringLiteral("project")) + QStringLiteral(".hetplan");
    QString path = QFileDialog::getSaveFileName(this, tr("Save project"),
                                                doc_->filePath().isEmpty() ? suggestedSavePath(untitled)
                                                                           : doc_->filePath(),
                                                tr("hetplan projects (*.hetplan)"));
    if (path.isEmpty())
        return false;
    if (!path.endsWith(".hetplan"))
        path += ".hetplan";
    try {
        doc_->saveAs(path);
        addRecent(path);
        showMessage(tr("Saved %1").arg(path));
        return true;
    } catch (const std::exception& e) {
        reportFailure(tr("Cannot save: %1"), tr("Cannot save project"), e);
        return false;
    }
}

void MainWindow::openExampleDialog()
{
    ExamplePicker picker(this);
    if (picker.exec() == QDialog::Accepted && !picker.cluster().empty())
        openExample(picker.cluster(), picker.model());
}

void MainWindow::openExample(const std::string& cluster, const std::string& model)
{
    if (!maybeSave())
        return;
    try {
        doc_->loadExample(cluster, model);
        tabs_->setCurrentWidget(editor_);
        showMessage(tr("Example %1 with %2").arg(QString::fromStdString(cluster), QString::fromStdString(model)));
    } catch (const std::exception& e) {
        showMessage(tr("Cannot open example: %1").arg(guiErrorText(e)), true);
    }
}

void MainWindow::newCluster()
{
    Cluster c;
    int n = 1;
    while (doc_->project().findCluster("cluster-" + std::to_string(n)))
        ++n;
    c.name = "cluster-" + std::to_string(n);
    doc_->setCluster(c); // one undo step, which also makes it current
    tabs_->setCurrentWidget(editor_);
    showMessage(
        tr("New cluster %1: drag device types from the palette onto the canvas").arg(QString::fromStdString(c.name)));
}

void MainWindow::updateExportMenu(QMenu* menu)
{
    const auto ref = doc_->currentPlan();
    const Plan* plan = ref ? doc_->plan(*ref) : nullptr;
    for (QAction* a : menu->actions()) {
        const ExportFormat* f = ExporterRegistry::instance().find(a->data().toString().toStdString());
        QString why = plan ? QString() : tr("No plan selected: run a planner first");
        // A launch file the plan's kind cannot have (ZeRO batches for a pipeline plan, a pipeline launch for
        // a ZeRO plan): its writer refuses; such files are small, so a trial write tells before the dialog.
        if (plan && f && f->launches) {
            try {
                f->write(*plan);
            } catch (const std::exception& e) {
                why = guiErrorText(e);
            }
        }
        a->setEnabled(why.isEmpty());
        a->setToolTip(why.isEmpty() ? a->text().chopped(1) : why);
    }
}

void MainWindow::exportPlan(const QString& format)
{
    const auto ref = doc_->currentPlan();
    const Plan* plan = ref ? doc_->plan(*ref) : nullptr;
    if (!plan) {
        showMessage(tr("No plan selected: run a planner first"), true);
        return;
    }
    const ExportFormat* found = ExporterRegistry::instance().find(format.toStdString());
    if (!found) {
        showMessage(tr("Unknown export format %1").arg(format), true);
        return;
    }
    const ExportFormat& f = *found;
    if (f.launches) {
        // A launch file for a plan that does not fit would start a job that runs out of memory: say why and
        // let the user decide, as the CLI's --force does.
        std::string why;
        try {
            why = launchRefusal(*plan);
        } catch (const std::exception& e) {
            why = e.what();
        }
        if (!why.empty() &&
            QMessageBox::warning(this, tr("Export plan"),
                                 tr("This plan should not be launched: %1.\n\nExport it anyway?")
                                     .arg(QString::fromStdString(why)),
                                 QMessageBox::Yes | QMessageBox::Cancel, QMessageBox::Cancel) != QMessageBox::Yes)
            return;
    }
    // Named like the plot exports: cluster, model, then what the file is.
    const QString name = fileNamePart(QString::fromStdString(plan->cluster.name + "-" + plan->model.name + "-" +
                                                             plan->planner + "-" + f.name)) +
                         QString::fromStdString(f.suffix);
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Export plan"), suggestedSavePath(name, doc_->filePath()),
                                     QString::fromStdString(f.nameFilter()) + ";;" + tr("All files (*)"));
    if (path.isEmpty())
        return;
    rememberSaveFolder(path);
    try {
        writeTextFile(path.toStdString(), f.write(*plan));
        showMessage(tr("Exported %1").arg(path));
    } catch (const std::exception& e) {
        reportFailure(tr("Cannot export: %1"), tr("Cannot export"), e, false);
    }
}

// ---------------------------------------------------------------- keeping widgets in step

void MainWindow::onDocumentChanged()
{
    treeModel_->rebuild(doc_->project());
    tree_->expandAll(); // the dock keeps its width: long rows are elided, whole in their tooltips
    onCurrentChanged();
}

void MainWindow::onCurrentChanged()
{
    const Cluster* c = doc_->cluster(); // the canvas follows the document by itself
    const NamedJob* j = doc_->job();
    jobPanel_->setJob(j ? j->job : Job{});
    modelPanel_->show(doc_->model(), c, j ? j->job : Job{});
}

void MainWindow::onCurrentPlanChanged()
{
    // The plan views follow the CurrentPlan (buildPlanViews); the tree shows which result it is.
    const auto ref = doc_->currentPlan();
    if (!ref)
        return;
    // A click in the tree already made the row current, with whatever selection its modifiers gave (a
    // Ctrl-click adds to it); only a plan made current elsewhere (a run, undo) moves the tree's selection.
    const QModelIndex idx = treeModel_->resultIndex(ref->runId, ref->resultIndex);
    if (idx.isValid() && idx != tree_->currentIndex())
        tree_->setCurrentIndex(idx);
}

void MainWindow::onProjectReplaced()
{
    // The Run tab shows the run of the restored plan, or nothing; the plan views follow
    // currentPlanChanged(), the panels and the canvas currentChanged().
    const auto ref = doc_->currentPlan();
    const Run* run = ref ? doc_->run(ref->runId) : nullptr;
    runPanel_->showRun(run ? *run : Run{});
    // The file's ticks; a project without any (new, an example, an older file) keeps the ones shown.
    if (doc_->tickedPlanners())
        runPanel_->setChecked(*doc_->tickedPlanners());
    doc_->setTickedPlanners(runPanel_->checkedPlanners());
    treeModel_->rebuild(doc_->project());
    tree_->expandAll();
}

void MainWindow::onTreeActivated(const QModelIndex& index)
{
    switch (TreeKind(index.data(kRoleKind).toInt())) {
    case TreeKind::Cluster:
        doc_->setCurrentCluster(index.data(kRoleName).toString().toStdString());
        tabs_->setCurrentWidget(editor_);
        break;
    case TreeKind::Model:
        doc_->setCurrentModel(index.data(kRoleName).toString().toStdString());
        tabs_->setCurrentWidget(modelPanel_);
        break;
    case TreeKind::Job: doc_->setCurrentJob(index.data(kRoleName).toString().toStdString()); break;
    case TreeKind::Run:
        if (const Run* r = doc_->run(index.data(kRoleRun).toInt()))
            runPanel_->showRun(*r);
        tabs_->setCurrentWidget(runPanel_);
        break;
    case TreeKind::Result: {
        const PlanRef ref{index.data(kRoleRun).toInt(), index.data(kRoleResult).toInt()};
        if (doc_->plan(ref)) {
            doc_->setCurrentPlan(ref);
            if (tabs_->currentIndex() < tabs_->indexOf(planViews_.front()))
                tabs_->setCurrentWidget(planViews_.front());
        }
        break;
    }
    case TreeKind::Group: break;
    }
}

void MainWindow::onJobEdited(const Job& job)
{
    const std::string name = doc_->job() ? doc_->job()->name : "default";
    doc_->setJob({name, job}); // one undo step (spin-box clicks on one field merge)
}

void MainWindow::onExampleModelChosen(const QString& name)
{
    // Choosing a model the project already has selects it (keeping its imported profile). Either is one
    // undo step.
    if (doc_->project().findModel(name.toStdString())) {
        doc_->chooseModel(name.toStdString());
    } else {
        doc_->addModel(ProjectModel{buildExampleModel(name.toStdString()), {}});
        showMessage(tr("Model %1 added to the project").arg(name));
    }
}

void MainWindow::onProfileImported(const Profile& profile)
{
    if (!doc_->model()) {
        showMessage(tr("Choose a model before importing its profile"), true);
        return;
    }
    const ModelSpec& model = doc_->model()->model;
    if (profile.layerCount() != model.layerCount()) {
        showMessage(tr("The profile has %1 layers but %2 has %3: not imported")
                        .arg(profile.layerCount())
                        .arg(QString::fromStdString(model.name))
                        .arg(model.layerCount()),
                    true);
        return;
    }
    Profile merged = doc_->model()->profile;
    merged.merge(profile);
    doc_->setProfile(model.name, merged);
    showMessage(tr("Imported %1 profile table(s)").arg(profile.tables().size()));
    onCurrentChanged();
}

void MainWindow::onResultActivated(int run, int result)
{
    if (doc_->plan({run, result}))
        doc_->setCurrentPlan(PlanRef{run, result});
}

// ---------------------------------------------------------------- runs

void MainWindow::startRun()
{
    std::vector<std::string> planners = runPanel_->checkedPlanners();
    if (planners.empty()) {
        showMessage(tr("Tick at least one planner in the Run tab"), true);
        tabs_->setCurrentWidget(runPanel_);
        return;
    }
    runPlanners(planners);
}

bool MainWindow::runPlanners(const std::vector<std::string>& planners,
                             const std::map<std::string, std::map<std::string, std::string>>& extraOptions)
{
    if (runner_->isRunning()) {
        showMessage(tr("A run is already going: cancel it first"), true);
        return false;
    }
    std::optional<PlanRequest> req = currentPlanRequest(*doc_);
    if (!req) {
        showMessage(tr("The project needs a cluster and a model before planning"), true);
        return false;
    }
    req->objective = runPanel_->objective();
    req->selectGpus = runPanel_->selectGpus();
    const Cluster* c = doc_->cluster();
    const ProjectModel* m = doc_->model();
    const NamedJob* j = doc_->job();
    Run run;
    run.cluster = c->name;
    run.model = m->model.name;
    run.job = j ? j->name : "default";
    run.started = QDateTime::currentDateTimeUtc().toString(Qt::ISODate).toStdString();
    activeRun_ = doc_->addRun(run);
    run.id = activeRun_;
    doc_->setCurrentPlan(std::nullopt);
    runPanel_->setChecked(planners); // the Run tab shows what is running
    doc_->setTickedPlanners(planners);
    runPanel_->showRun(run);
    runPanel_->setRunning(true);
    progress_->setValue(0);
    progress_->setVisible(true);
    cancel_->setVisible(true);
    auto options = runPanel_->options();
    for (const auto& [planner, kv] : extraOptions)
        for (const auto& [k, v] : kv)
            options[planner][k] = v;
    runner_->start(planners, *req, run, options);
    showMessage(tr("Running %1 planner(s)…").arg(planners.size()));
    return true;
}

void MainWindow::onRunProgress(double fraction, const QString& text)
{
    progress_->setValue(int(fraction * 1000));
    status_->setText(text);
}

void MainWindow::onRunResult(const RunResult& result)
{
    doc_->addRunResult(activeRun_, result);
    if (const Run* run = doc_->run(activeRun_))
        runPanel_->showRun(*run);
    // Show the first plan as soon as it exists; the best one is picked when the run ends.
    if (result.plan && !doc_->currentPlan())
        doc_->setCurrentPlan(PlanRef{activeRun_, int(doc_->run(activeRun_)->results.size()) - 1});
}

void MainWindow::onRunFinished()
{
    progress_->setVisible(false);
    cancel_->setVisible(false);
    runPanel_->setRunning(false);
    const Run* run = doc_->run(activeRun_);
    // A cancel is the user's choice, not a failure: it keeps the best plan found so far and is not red.
    const bool cancelled = runner_->wasCancelled();
    if (const int best = bestFeasibleResult(run); best >= 0) {
        const PlanRef ref{activeRun_, best};
        const bool shownAlready = doc_->currentPlan() == ref;
        doc_->setCurrentPlan(ref);
        if (shownAlready) {
            current_->refresh();   // the comparison view needs every result, not only the current plan
            onCurrentPlanChanged(); // and the tree, rebuilt by each result, shows which one it is
        }
        showMessage((cancelled ? tr("Run %1 cancelled — best plan so far by %2, %3 s per iteration")
                               : tr("Run %1 finished: best plan by %2, %3 s per iteration"))
                        .arg(activeRun_)
                        .arg(QString::fromStdString(run->results[best].planner))
                        .arg(run->results[best].plan->estimate.iterationSeconds, 0, 'f', 4));
    } else if (cancelled) {
        current_->showRun(activeRun_);
        showMessage(tr("Run %1 cancelled").arg(activeRun_));
    } else {
        current_->showRun(activeRun_); // the Comparison tab lists why each planner gave no plan
        showMessage(tr("Run %1 finished without a feasible plan: the Run and Comparison tabs say why").arg(activeRun_),
                    true);
    }
    emit runFinished();
}

// ---------------------------------------------------------------- screenshots

bool MainWindow::writeScreenshots(const QString& dir, QString* error)
{
    if (!QDir().mkpath(dir)) {
        if (error)
            *error = tr("cannot create %1").arg(dir);
        return false;
    }
    const QSize size(1200, 720);
    tabs_->setCurrentWidget(editor_);
    QApplication::processEvents();
    editor_->zoomToFit();
    QApplication::processEvents();
    // The canvas is shown with the whole window around it (project tree, properties, job).
    bool ok = grab().save(QDir(dir).filePath("canvas.png"));
    // A plot exports itself at a fixed size; a view of widgets is shown with the whole window, as a user sees it.
    for (size_t i = 0; i < planViews_.size(); ++i) {
        tabs_->setCurrentWidget(planViews_[i]);
        QApplication::processEvents();
        const QString file = QDir(dir).filePath(planViewIds_[i] + ".png");
        auto* plot = qobject_cast<PlotView*>(planViews_[i]);
        statusBar()->clearMessage(); // an export's "Saved … as /tmp/…" must not appear in a window shot
        ok = (plot ? plot->exportPng(file, size.width(), size.height()) : grab().save(file)) && ok;
    }
    statusBar()->clearMessage();
    // The Run and Model tabs too, as the whole window sees them.
    for (const auto& [tab, name] :
         {std::pair<QWidget*, const char*>{runPanel_, "run.png"}, {modelPanel_, "model.png"}}) {
        tabs_->setCurrentWidget(tab);
        QApplication::processEvents();
        ok = grab().save(QDir(dir).filePath(name)) && ok;
    }
    tabs_->setCurrentWidget(editor_);
    if (!ok && error)
        *error = tr("could not write every screenshot into %1").arg(dir);
    return ok;
}

} // namespace hetplan
