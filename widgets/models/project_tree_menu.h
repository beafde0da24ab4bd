#pragma once
// What the project tree's context menu and Delete key do to the item they point at: rename, duplicate,
// delete and "Set as current" for clusters, models and jobs, "New job", delete for runs and results. Every
// edit is one undo step on the document (ProjectDocument::renameItem & co.). The main window builds the
// menu from actionsFor() and maps Delete to removeAt().
#include <QList>
#include <QModelIndex>
#include <QObject>
#include <functional>
#include <optional>

class QAction;

namespace hetplan {

class ProjectDocument;

class ProjectTreeActions : public QObject {
    Q_OBJECT
public:
    explicit ProjectTreeActions(ProjectDocument* doc, QObject* parent = nullptr);

    // The actions for the tree item at `index` (of a ProjectTreeModel), parented to `owner`; object names
    // "rename", "duplicate", "delete", "setCurrent", "newJob". Empty for an item nothing applies to.
    QList<QAction*> actionsFor(const QModelIndex& index, QObject* owner);
    // Deletes what `index` stands for (one undo step); false if it is nothing deletable.
    bool removeAt(const QModelIndex& index);

    // Asks for a new name (the dialog; tests set their own). nullopt = cancelled.
    std::function<std::optional<QString>(const QString& title, const QString& current)> askName;
    // True while the run with this id is still going: it cannot be deleted then.
    std::function<bool(int runId)> isRunning;

signals:
    // After an action: what happened, or why nothing did.
    void message(const QString& text, bool error);
    // "Set as current" chose an item: the window shows its tab (as a click in the tree does).
    void madeCurrent(const QModelIndex& index);

private:
    void rename(const QModelIndex& index);
    void newJob();
    ProjectDocument* doc_;
};

} // namespace hetplan
