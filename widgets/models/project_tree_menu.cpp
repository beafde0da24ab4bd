#include "project_tree_menu.h"

#include "project_tree.h"
#include "widgets/controller/project_document.h"

#include <QAction>
#include <QInputDialog>
#include <QLineEdit>

namespace hetplan {

namespace {

std::optional<ItemKind> itemKind(const QModelIndex& index)
{
    switch (TreeKind(index.data(kRoleKind).toInt())) {
    case TreeKind::Cluster: return ItemKind::Cluster;
    case TreeKind::Model: return ItemKind::Model;
    case TreeKind::Job: return ItemKind::Job;
    default: return std::nullopt;
    }
}

std::string nameAt(const QModelIndex& index) { return index.data(kRoleName).toString().toStdString(); }

QAction* makeAction(QObject* owner, const QString& text, const char* name)
{
    auto* a = new QAction(text, owner);
    a->setObjectName(name);
    return a;
}

// The Jobs group, or a job: where "New job" applies.
bool isJobsPlace(const QModelIndex& index)
{
    return itemKind(index) == ItemKind::Job ||
           (TreeKind(index.data(kRoleKind).toInt()) == TreeKind::Group && index.row() == 2 && !index.parent().isValid());
}

} // namespace

ProjectTreeActions::ProjectTreeActions(ProjectDocument* doc, QObject* parent) : QObject(parent), doc_(doc)
{
    askName = [](const QString& title, const QString& current) -> std::optional<QString> {
        bool ok = false;
        const QString name = QInputDialog::getText(nullptr, title, tr("New name:"), QLineEdit::Normal, current, &ok);
        return ok ? std::optional<QString>(name.trimmed()) : std::nullopt;
    };
    isRunning = [](int) { return false; };
}

QList<QAction*> ProjectTreeActions::actionsFor(const QModelIndex& index, QObject* owner)
{
    QList<QAction*> out;
    const QPersistentModelIndex at(index);
    if (const auto kind = itemKind(index)) {
        QAction* current = makeAction(owner, tr("Set as Current"), "setCurrent");
        connect(current, &QAction::triggered, this, [this, at, k = *kind] {
            const std::string name = nameAt(at);
            if (k == ItemKind::Cluster)
                doc_->setCurrentCluster(name);
            else if (k == ItemKind::Model)
                doc_->setCurrentModel(name);
            else
                doc_->setCurrentJob(name);
            emit madeCurrent(at);
        });
        QAction* rename = makeAction(owner, tr("Rename…"), "rename");
        connect(rename, &QAction::triggered, this, [this, at] { this->rename(at); });
        QAction* duplicate = makeAction(owner, tr("Duplicate"), "duplicate");
        connect(duplicate, &QAction::triggered, this, [this, at, k = *kind] {
            const std::string copy = doc_->duplicateItem(k, nameAt(at));
            if (!copy.empty())
                emit message(tr("Added %1").arg(QString::fromStdString(copy)), false);
        });
        out << current << rename << duplicate;
    }
    if (isJobsPlace(index)) {
        QAction* add = makeAction(owner, tr("New Job"), "newJob");
        connect(add, &QAction::triggered, this, &ProjectTreeActions::newJob);
        out << add;
    }
    const TreeKind k = TreeKind(index.data(kRoleKind).toInt());
    if (itemKind(index) || k == TreeKind::Run || k == TreeKind::Result) {
        // The key is only shown here: the tree's own action handles it, so no two actions share it.
        QAction* del = makeAction(
            owner, tr("Delete") + '\t' + QKeySequence(QKeySequence::Delete).toString(QKeySequence::NativeText),
            "delete");
        const int run = index.data(kRoleRun).toInt();
        del->setEnabled(!(k == TreeKind::Run || k == TreeKind::Result) || !isRunning(run));
        connect(del, &QAction::triggered, this, [this, at] { removeAt(at); });
        out << del;
    }
    return out;
}

bool ProjectTreeActions::removeAt(const QModelIndex& index)
{
    const TreeKind k = TreeKind(index.data(kRoleKind).toInt());
    if (const auto kind = itemKind(index))
        return doc_->removeItem(*kind, nameAt(index));
    const int run = index.data(kRoleRun).toInt();
    if ((k == TreeKind::Run || k == TreeKind::Result) && isRunning(run)) {
        emit message(tr("Run %1 is still going: cancel it before deleting it").arg(run), true);
        return false;
    }
    if (k == TreeKind::Run)
        return doc_->removeRun(run);
    if (k == TreeKind::Result)
        return doc_->removeRunResult(run, index.data(kRoleResult).toInt());
    return false;
}

void ProjectTreeActions::rename(const QModelIndex& index)
{
    const auto kind = itemKind(index);
    if (!kind)
        return;
    const QString from = QString::fromStdString(nameAt(index));
    const std::optional<QString> to = askName(tr("Rename %1").arg(from), from);
    if (!to || *to == from)
        return;
    if (to->isEmpty())
        emit message(tr("A name cannot be empty: %1 kept its name").arg(from), true);
    else if (doc_->hasItem(*kind, to->toStdString()))
        emit message(tr("%1 exists already: %2 kept its name").arg(*to, from), true);
    else
        doc_->renameItem(*kind, from.toStdString(), to->toStdString());
}

void ProjectTreeActions::newJob()
{
    // A copy of the current job's settings under a new name, made current (one undo step).
    NamedJob job{uniqueName("job", [this](const std::string& n) { return doc_->hasItem(ItemKind::Job, n); }),
                 doc_->job() ? doc_->job()->job : Job{}};
    doc_->setJob(job);
    emit message(tr("New job %1 (a copy of the current job's settings)").arg(QString::fromStdString(job.name)), false);
}

} // namespace hetplan
