// Managing what the project holds: the project tree's context menu and Delete key, File ▸ Import / Export
// of cluster, model and plan JSON (the CLI's formats), and the marks that follow the current items.
#include "main_window.h"

#include "widgets/canvas/cluster_editor.h"
#include "widgets/common/export_folder.h"
#include "widgets/controller/project_io.h"
#include "widgets/controller/run_controller.h"
#include "widgets/models/project_tree.h"
#include "widgets/models/project_tree_menu.h"
#include "widgets/panels/profile_notice.h"
#include "widgets/panels/run_panel.h"

#include <QAction>
#include <QFileDialog>
#include <QFont>
#include <QMenu>
#include <QMenuBar>
#include <QStandardItem>
#include <QTreeView>

namespace hetplan {

namespace {

struct JsonItemText {
    JsonItem kind;
    const char* label;      // menu entry
    const char* objectName; // for tests
};
constexpr JsonItemText kJsonItems[] = {{JsonItem::Cluster, QT_TRANSLATE_NOOP("MainWindow", "&Cluster…"), "cluster"},
                                       {JsonItem::Model, QT_TRANSLATE_NOOP("MainWindow", "&Model…"), "model"},
                                       {JsonItem::Plan, QT_TRANSLATE_NOOP("MainWindow", "&Plan…"), "plan"}};

QString kindName(JsonItem kind)
{
    switch (kind) {
    case JsonItem::Cluster: return MainWindow::tr("cluster");
    case JsonItem::Model: return MainWindow::tr("model");
    case JsonItem::Plan: return MainWindow::tr("plan");
    }
    return {};
}

// The name a JSON export suggests: the item's own name, the plan's as File ▸ Export Plan ▸ plan names it.
QString jsonFileName(const ProjectDocument& doc, JsonItem kind)
{
    std::string name = "untitled";
    if (kind == JsonItem::Cluster && doc.cluster())
        name = doc.cluster()->name;
    else if (kind == JsonItem::Model && doc.model())
        name = doc.model()->model.name;
    else if (const auto ref = doc.currentPlan(); kind == JsonItem::Plan && ref && doc.plan(*ref)) {
        const Plan& p = *doc.plan(*ref);
        name = p.cluster.name + "-" + p.model.name + "-" + p.planner + "-plan";
    }
    return fileNamePart(QString::fromStdString(name)) + QStringLiteral(".json");
}

} // namespace

void MainWindow::buildTreeActions()
{
    treeActions_ = new ProjectTreeActions(doc_, this);
    treeActions_->isRunning = [this](int runId) { return runner_->isRunning() && runId == activeRun_; };
    connect(treeActions_, &ProjectTreeActions::message, this, [this](const QString& text, bool error) {
        showMessage(text, error);
    });
    connect(treeActions_, &ProjectTreeActions::madeCurrent, this, &MainWindow::onTreeActivated);
    tree_->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(tree_, &QTreeView::customContextMenuRequested, this, [this](const QPoint& at) {
        if (QMenu* menu = treeMenu(tree_->indexAt(at)))
            menu->popup(tree_->viewport()->mapToGlobal(at));
    });
    // Delete acts on the tree's selection only while the tree has the focus, so it never competes with
    // the canvas's or another panel's Delete.
    auto* del = new QAction(tr("Delete Selected Item"), tree_);
    del->setObjectName("treeDelete");
    del->setShortcut(QKeySequence::Delete);
    del->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(del, &QAction::triggered, this, [this] { treeActions_->removeAt(tree_->currentIndex()); });
    tree_->addAction(del);
}

QMenu* MainWindow::treeMenu(const QModelIndex& index)
{
    auto* menu = new QMenu(this);
    menu->setAttribute(Qt::WA_DeleteOnClose);
    menu->addActions(treeActions_->actionsFor(index, menu));
    if (TreeKind(index.data(kRoleKind).toInt()) == TreeKind::Result) {
        menu->addSeparator();
        menu->addAction(compareSelectedAction(menu));
    }
    if (menu->isEmpty()) {
        delete menu;
        return nullptr;
    }
    return menu;
}

void MainWindow::buildJsonMenus(QMenu* file)
{
    QMenu* in = file->addMenu(tr("&Import JSON"));
    in->setObjectName("importJson");
    QMenu* out = file->addMenu(tr("E&xport JSON"));
    out->setObjectName("exportJson");
    for (const JsonItemText& item : kJsonItems) {
        in->addAction(tr(item.label), this, [this, k = item.kind] { askJsonImport(k); })->setObjectName(item.objectName);
        out->addAction(tr(item.label), this, [this, k = item.kind] { askJsonExport(k); })
            ->setObjectName(item.objectName);
    }
}

void MainWindow::askJsonImport(JsonItem kind)
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Import %1").arg(kindName(kind)), QString(),
                                                      tr("JSON files (*.json);;All files (*)"));
    if (!path.isEmpty())
        importJsonFile(kind, path);
}

void MainWindow::askJsonExport(JsonItem kind)
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Export %1").arg(kindName(kind)),
                                                      suggestedSavePath(jsonFileName(*doc_, kind), doc_->filePath()),
                                                      tr("JSON files (*.json)"));
    if (path.isEmpty())
        return;
    rememberSaveFolder(path);
    exportJsonFile(kind, path);
}

bool MainWindow::importJsonFile(JsonItem kind, const QString& path)
{
    try {
        const std::string name = importJson(*doc_, kind, path.toStdString());
        showMessage(tr("Imported %1 %2 from %3").arg(kindName(kind), QString::fromStdString(name), path));
        return true;
    } catch (const std::exception& e) { // the project is as it was
        reportFailure(tr("Cannot import: %1"), tr("Cannot import %1").arg(kindName(kind)), e);
        return false;
    }
}

bool MainWindow::exportJsonFile(JsonItem kind, const QString& path)
{
    try {
        exportJson(*doc_, kind, path.toStdString());
        showMessage(tr("Exported the %1 to %2").arg(kindName(kind), path));
        return true;
    } catch (const std::exception& e) {
        reportFailure(tr("Cannot export: %1"), tr("Cannot export %1").arg(kindName(kind)), e, false);
        return false;
    }
}

void MainWindow::updateCurrentMarks()
{
    const std::string current[] = {doc_->currentCluster(), doc_->currentModel(), doc_->currentJob()};
    const TreeKind kinds[] = {TreeKind::Cluster, TreeKind::Model, TreeKind::Job};
    for (int g = 0; g < 3 && g < treeModel_->rowCount(); ++g) { // the Clusters, Models and Jobs groups
        QStandardItem* group = treeModel_->item(g);
        for (int r = 0; r < group->rowCount(); ++r) {
            QStandardItem* it = group->child(r);
            QFont f = it->font();
            f.setBold(it->data(kRoleKind).toInt() == int(kinds[g]) &&
                      it->data(kRoleName).toString().toStdString() == current[g]);
            it->setFont(f);
        }
    }
    QStringList notes;
    if (!doc_->cluster())
        notes << tr("No cluster is current: add one (File ▸ New Cluster, or File ▸ Import JSON ▸ Cluster) or "
                    "pick one in the project tree.");
    if (!doc_->model())
        notes << tr("No model is current: choose one in the Model tab or import a model JSON.");
    if (!doc_->job())
        notes << tr("No job is current: runs use the default job settings (New Job in the project tree's Jobs "
                    "menu adds one).");
    if (doc_->model()) {
        const ProfileNotice n = profileNotice(doc_->job() ? doc_->job()->job : Job{}, doc_->model()->profile);
        if (!n.text.isEmpty())
            notes << (n.refused ? tr("⚠ The planners will refuse this model's measured profile: %1") : tr("⚠ %1"))
                         .arg(n.text);
    }
    runPanel_->setNotice(notes.join('\n'));
}

} // namespace hetplan
