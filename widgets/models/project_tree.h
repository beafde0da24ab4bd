#pragma once
// The project tree (clusters, models, jobs, runs and their plans) as a QStandardItemModel, rebuilt from
// the Project whenever it changes. Items carry what they stand for in kRoleKind / kRoleName / kRoleRun /
// kRoleResult so the main window can react to clicks.
#include "core/model/project.h"

#include <QStandardItemModel>

namespace hetplan {

enum class TreeKind { Group = 0, Cluster, Model, Job, Run, Result };

constexpr int kRoleKind = Qt::UserRole + 1;
constexpr int kRoleName = Qt::UserRole + 2;
constexpr int kRoleRun = Qt::UserRole + 3;
constexpr int kRoleResult = Qt::UserRole + 4;

class ProjectTreeModel : public QStandardItemModel {
    Q_OBJECT
public:
    explicit ProjectTreeModel(QObject* parent = nullptr);
    void rebuild(const Project& project);
    // Index of the item for a run result (invalid if absent).
    QModelIndex resultIndex(int runId, int result) const;
};

// "0.292 s", "infeasible", ... — the short status a result shows in lists.
QString resultSummary(const RunResult& r);
// The name each result of `run` goes by in lists: its planner, or where one run holds plans on different
// node sets (a re-plan after a node failure) the planner and its node set, "amp, 12 GPUs without g4dn-0".
QStringList resultNames(const Run& run);

} // namespace hetplan
