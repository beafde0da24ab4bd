#include "model_panel.h"

#include "import_dialog.h"
#include "profile_notice.h"
#include "widgets/models/profile_table.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QTableView>
#include <QVBoxLayout>
#include <set>

namespace hetplan {

ModelPanel::ModelPanel(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    auto* bar = new QHBoxLayout;
    models_ = new QComboBox;
    models_->addItem(tr("Load example model…"));
    for (const std::string& n : exampleModelNames())
        models_->addItem(QString::fromStdString(n));
    auto* import = new QPushButton(tr("Import profile…"));
    import->setToolTip(tr("Import measured layer times (native, CSV, Oobleck, Sailor, AMP .npy)"));
    mbs_ = new QSpinBox;
    mbs_->setRange(1, 4096);
    mbs_->setPrefix(tr("micro-batch "));
    tp_ = new QSpinBox;
    tp_->setRange(1, 64);
    tp_->setPrefix(tr("tp "));
    // The combo may shrink below its longest entry (up to which it grows), so the bar does not set the
    // window's minimum width.
    models_->setMaximumWidth(models_->sizeHint().width());
    models_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    models_->setMinimumContentsLength(8);
    bar->addWidget(models_, 1);
    bar->addWidget(import);
    bar->addStretch();
    bar->addWidget(mbs_);
    bar->addWidget(tp_);
    layout->addLayout(bar);
    summary_ = new QLabel;
    summary_->setWordWrap(true);
    layout->addWidget(summary_);
    profileNotice_ = new QLabel;
    profileNotice_->setObjectName("profileNotice");
    profileNotice_->setWordWrap(true);
    profileNotice_->setVisible(false);
    layout->addWidget(profileNotice_);
    tableModel_ = new ProfileTableModel(this);
    proxy_ = new QSortFilterProxyModel(this);
    proxy_->setSourceModel(tableModel_);
    proxy_->setSortRole(Qt::EditRole);
    table_ = new QTableView;
    table_->setModel(proxy_);
    table_->setSortingEnabled(true);
    table_->sortByColumn(-1, Qt::AscendingOrder);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->setAlternatingRowColors(true);
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
    layout->addWidget(table_);

    connect(models_, &QComboBox::activated, this, [this](int i) {
        if (i > 0)
            emit exampleModelChosen(models_->itemText(i));
        models_->setCurrentIndex(0);
    });
    connect(import, &QPushButton::clicked, this, &ModelPanel::importProfile);
    connect(mbs_, &QSpinBox::valueChanged, this, &ModelPanel::refresh);
    connect(tp_, &QSpinBox::valueChanged, this, &ModelPanel::refresh);
}

void ModelPanel::show(const ProjectModel* model, const Cluster* cluster, const Job& job)
{
    model_ = model ? std::optional<ProjectModel>(*model) : std::nullopt;
    cluster_ = cluster ? std::optional<Cluster>(*cluster) : std::nullopt;
    job_ = job;
    refresh();
}

void ModelPanel::refresh()
{
    if (!model_) {
        summary_->setText(tr("No model yet: load an example model or open a project."));
        profileNotice_->clear();
        profileNotice_->setVisible(false);
        table_->setToolTip(QString());
        tableModel_->setData({}, job_, {}, {}, 1, 1);
        return;
    }
    const ModelSpec& m = model_->model;
    std::vector<std::string> devices;
    std::set<std::string> seen;
    if (cluster_)
        for (const Node& n : cluster_->nodes)
            if (seen.insert(n.deviceType).second)
                devices.push_back(n.deviceType);
    for (const std::string& d : model_->profile.deviceTypes())
        if (seen.insert(d).second)
            devices.push_back(d);
    QString text = tr("<b>%1</b>: %2 layers, %3 M parameters, %4 GFLOP per sample forward, sequence %5.")
                       .arg(QString::fromStdString(m.name))
                       .arg(m.layerCount())
                       .arg(m.totalParams() / 1e6, 0, 'f', 1)
                       .arg(m.totalForwardFlops() / 1e9, 0, 'f', 1)
                       .arg(m.arch.sequence);
    const QString source = QString::fromStdString(model_->profile.source);
    if (model_->profile.empty())
        text += tr(" Times are analytic estimates; import a measured profile to replace them.");
    else if (source.isEmpty()) // a profile that does not say where it came from
        text += tr(" Bold cells are measured; the rest are analytic.");
    else
        text += tr(" Bold cells are measured (%1 profile); the rest are analytic.").arg(source);
    summary_->setText(text);
    // The measured (bold) cells are flagged when they were measured at another sequence length or precision.
    const ProfileNotice notice = hetplan::profileNotice(job_, model_->profile);
    profileNotice_->setText(notice.text.isEmpty() ? QString() : tr("⚠ %1").arg(notice.text));
    profileNotice_->setStyleSheet(notice.refused ? "color: #b00020" : "color: #9a6700");
    profileNotice_->setVisible(!notice.text.isEmpty());
    table_->setToolTip(notice.text);
    tableModel_->setData(m, job_, model_->profile, devices, mbs_->value(), tp_->value());
}

void ModelPanel::importProfile()
{
    ImportDialog dialog(this);
    dialog.setTarget(model_ ? &model_->model : nullptr, model_ ? &model_->profile : nullptr);
    if (dialog.exec() != QDialog::Accepted)
        return;
    emit profileImported(dialog.profile());
}

QString ModelPanel::profileNotice() const { return profileNotice_->text(); }

} // namespace hetplan
