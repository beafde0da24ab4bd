#include "import_dialog.h"

#include "core/base/errors.h"
#include "core/io/importers.h"
#include "core/model/device.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>

namespace hetplan {

ImportDialog::ImportDialog(QWidget* parent) : QDialog(parent)
{
    setWindowTitle(tr("Import profile"));
    auto* form = new QFormLayout(this);
    format_ = new QComboBox;
    format_->setObjectName("format");
    for (const ImportFormat& f : ImporterRegistry::instance().formats())
        format_->addItem(QString::fromStdString(f.description), QString::fromStdString(f.name));
    auto* pathRow = new QHBoxLayout;
    path_ = new QLineEdit;
    auto* browse = new QPushButton(tr("Browse…"));
    pathRow->addWidget(path_);
    pathRow->addWidget(browse);
    device_ = new QComboBox;
    for (const DeviceType& d : DeviceCatalog::builtin().all())
        device_->addItem(QString::fromStdString(d.name));
    tp_ = new QSpinBox;
    tp_->setRange(1, 64);
    compact_ = new QCheckBox(tr("fold AMP's GPT-2 no-op entries (30 → 26 layers)"));
    compact_->setChecked(true);
    error_ = new QLabel;
    error_->setWordWrap(true);
    error_->setStyleSheet("color: #b00020");
    form->addRow(tr("Format"), format_);
    form->addRow(tr("File"), pathRow);
    form->addRow(tr("Measured on"), device_);
    form->addRow(tr("Tensor parallel"), tp_);
    form->addRow(QString(), compact_);
    form->addRow(error_);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    form->addRow(buttons);
    connect(browse, &QPushButton::clicked, this, &ImportDialog::browse);
    connect(buttons, &QDialogButtonBox::accepted, this, [this] {
        if (tryImport())
            accept();
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto sync = [this] {
        const ImportNeeds needs = format() ? format()->needs : ImportNeeds{};
        device_->setEnabled(needs.device);
        tp_->setEnabled(needs.tp);
        compact_->setEnabled(needs.ampOptions);
    };
    connect(format_, &QComboBox::currentIndexChanged, this, sync);
    sync();
}

const ImportFormat* ImportDialog::format() const
{
    return ImporterRegistry::instance().find(format_->currentData().toString().toStdString());
}

void ImportDialog::browse()
{
    if (!format())
        return;
    const ImportFormat& f = *format();
    const QString filters = QString::fromStdString(f.nameFilter()) + ";;" + tr("All files (*)");
    const QString p = f.needs.directory ? QFileDialog::getExistingDirectory(this, QString::fromStdString(f.description))
                                        : QFileDialog::getOpenFileName(this, tr("Profile file"), QString(), filters);
    if (!p.isEmpty())
        path_->setText(p);
}

void ImportDialog::setInput(const QString& format, const QString& path, const QString& device, int tp)
{
    format_->setCurrentIndex(format_->findData(format));
    path_->setText(path);
    device_->setCurrentText(device);
    tp_->setValue(tp);
}

bool ImportDialog::tryImport()
{
    ImportOptions o;
    o.deviceType = device_->currentText().toStdString();
    o.tp = tp_->value();
    o.ampCompactGpt2 = format() && format()->needs.ampOptions && compact_->isChecked();
    try {
        profile_ = importProfile(format_->currentData().toString().toStdString(), path_->text().toStdString(), o);
        error_->clear();
        return true;
    } catch (const InputError& e) {
        error_->setText(QString::fromStdString(e.what()));
    } catch (const std::exception& e) {
        error_->setText(tr("Import failed: %1").arg(e.what()));
    }
    return false;
}

QString ImportDialog::error() const { return error_->text(); }

} // namespace hetplan
