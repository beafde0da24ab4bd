#include "example_picker.h"

#include "core/base/qstrings.h"
#include "core/io/examples.h"
#include "core/model/model.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace hetplan {

namespace {
enum PickerColumn { kName, kGpus, kDescription };

// "124.4 M params, 14 layers, seq 1024", as `hetplan-cli list examples` says it.
QString modelSummary(const ModelSpec& m)
{
    return QObject::tr("%1 M params, %2 layers, seq %3")
        .arg(m.totalParams() / 1e6, 0, 'f', 1)
        .arg(m.layerCount())
        .arg(m.arch.sequence);
}
} // namespace

ExamplePicker::ExamplePicker(QWidget* parent) : QDialog(parent)
{
    setWindowTitle(tr("Open example"));
    auto* layout = new QVBoxLayout(this);
    clusters_ = new QTreeWidget;
    clusters_->setHeaderLabels({tr("Cluster"), tr("GPUs"), tr("Description")});
    clusters_->setRootIsDecorated(false);
    clusters_->setAlternatingRowColors(true);
    clusters_->setWordWrap(false);
    clusters_->header()->setStretchLastSection(true);
    description_ = new QLabel;
    description_->setWordWrap(true);
    description_->setTextFormat(Qt::PlainText);
    description_->setMinimumHeight(3 * fontMetrics().height());
    description_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    models_ = new QComboBox;
    modelInfo_ = new QLabel;
    auto* form = new QFormLayout;
    form->addRow(tr("Model"), models_);
    form->addRow(QString(), modelInfo_);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Open | QDialogButtonBox::Cancel);
    layout->addWidget(new QLabel(tr("Cluster")));
    layout->addWidget(clusters_, 1);
    layout->addWidget(description_);
    layout->addLayout(form);
    layout->addWidget(buttons);
    fillClusters();
    fillModels();
    connect(clusters_, &QTreeWidget::currentItemChanged, this, &ExamplePicker::showSelected);
    connect(clusters_, &QTreeWidget::itemDoubleClicked, this, &QDialog::accept);
    connect(models_, &QComboBox::currentIndexChanged, this, &ExamplePicker::showSelected);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    select("amp-het-cluster", "gpt2-amp");
    resize(760, 460); // fits a 1024×700 screen
}

void ExamplePicker::fillClusters()
{
    for (const ExampleClusterInfo& e : exampleClusterInfos()) {
        auto* it = new QTreeWidgetItem(clusters_, {toQString(e.name), QString::number(e.gpus), toQString(e.description)});
        it->setTextAlignment(kGpus, Qt::AlignRight | Qt::AlignVCenter);
        it->setToolTip(kDescription, toQString(e.description));
    }
    clusters_->resizeColumnToContents(kName);
    clusters_->resizeColumnToContents(kGpus);
}

void ExamplePicker::fillModels()
{
    for (const std::string& n : exampleModelNames())
        models_->addItem(toQString(n), modelSummary(buildExampleModel(n)));
}

void ExamplePicker::showSelected()
{
    const QTreeWidgetItem* it = clusters_->currentItem();
    description_->setText(it ? it->text(kDescription) : QString());
    modelInfo_->setText(models_->currentData().toString());
}

std::string ExamplePicker::cluster() const
{
    const QTreeWidgetItem* it = clusters_->currentItem();
    return it ? it->text(kName).toStdString() : std::string();
}

std::string ExamplePicker::model() const { return models_->currentText().toStdString(); }

void ExamplePicker::select(const std::string& cluster, const std::string& model)
{
    const auto found = clusters_->findItems(toQString(cluster), Qt::MatchExactly, kName);
    if (!found.isEmpty())
        clusters_->setCurrentItem(found.front());
    models_->setCurrentText(toQString(model));
    showSelected();
}

QString ExamplePicker::descriptionText() const { return description_->text(); }

} // namespace hetplan
