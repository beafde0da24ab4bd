#pragma once
// The Model tab: pick a model (examples or the project's), import a measured profile, browse the
// per-layer profile table (per device type of the current cluster) at a chosen micro-batch and tp.
#include "core/model/project.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QSortFilterProxyModel;
class QSpinBox;
class QTableView;

namespace hetplan {

class ProfileTableModel;

class ModelPanel : public QWidget {
    Q_OBJECT
public:
    explicit ModelPanel(QWidget* parent = nullptr);
    // Shows `model` with its profile for the device types of `cluster`.
    void show(const ProjectModel* model, const Cluster* cluster, const Job& job);
    QTableView* table() const { return table_; }
    // The flag over the table: the profile was measured at another sequence length / precision than the
    // job (profile_notice.h), "" when it matches.
    QString profileNotice() const;

signals:
    void exampleModelChosen(const QString& name);
    void profileImported(const hetplan::Profile& profile);

private:
    void refresh();
    void importProfile();

    QComboBox* models_;
    QSpinBox* mbs_;
    QSpinBox* tp_;
    QLabel* summary_;
    QLabel* profileNotice_;
    QTableView* table_;
    ProfileTableModel* tableModel_;
    QSortFilterProxyModel* proxy_;
    std::optional<ProjectModel> model_;
    std::optional<Cluster> cluster_;
    Job job_;
};

} // namespace hetplan
