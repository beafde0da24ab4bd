#include "export_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace hetplan {

namespace {
constexpr int kMinSide = 100, kMaxSide = 10000; // pixels; beyond this a PNG gets unwieldy

QSpinBox* sideBox(int value, QWidget* parent)
{
    auto* box = new QSpinBox(parent);
    box->setRange(kMinSide, kMaxSide);
    box->setSuffix(QStringLiteral(" px"));
    box->setValue(value);
    return box;
}
} // namespace

ExportDialog::ExportDialog(const QString& basePath, const QSize& size, QWidget* parent) : QDialog(parent)
{
    setWindowTitle(tr("Export plot"));
    format_ = new QComboBox(this);
    format_->addItem(tr("PNG image"), int(PlotView::ExportFormat::Png));
    format_->addItem(tr("PDF document"), int(PlotView::ExportFormat::Pdf));
    format_->addItem(tr("SVG drawing"), int(PlotView::ExportFormat::Svg));
    width_ = sideBox(size.width(), this);
    height_ = sideBox(size.height(), this);
    file_ = new QLineEdit(basePath + QStringLiteral(".png"), this);
    file_->setMinimumWidth(360);
    auto* browse = new QPushButton(tr("Browse…"), this);

    auto* sizeRow = new QHBoxLayout;
    sizeRow->addWidget(width_);
    sizeRow->addWidget(new QLabel(QStringLiteral("×"), this));
    sizeRow->addWidget(height_);
    sizeRow->addStretch(1);
    auto* fileRow = new QHBoxLayout;
    fileRow->addWidget(file_, 1);
    fileRow->addWidget(browse);
    auto* form = new QFormLayout;
    form->addRow(tr("Format:"), format_);
    form->addRow(tr("Size:"), sizeRow);
    form->addRow(tr("File:"), fileRow);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel, this);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(buttons);

    connect(format_, &QComboBox::currentIndexChanged, this, &ExportDialog::onFormatChanged);
    connect(browse, &QPushButton::clicked, this, &ExportDialog::browse);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(file_, &QLineEdit::textChanged, this, [buttons](const QString& t) {
        buttons->button(QDialogButtonBox::Save)->setEnabled(!t.trimmed().isEmpty());
    });
}

QString ExportDialog::suffixOf(PlotView::ExportFormat format)
{
    switch (format) {
    case PlotView::ExportFormat::Pdf: return QStringLiteral("pdf");
    case PlotView::ExportFormat::Svg: return QStringLiteral("svg");
    case PlotView::ExportFormat::Png: break;
    }
    return QStringLiteral("png");
}

PlotView::ExportFormat ExportDialog::format() const { return PlotView::ExportFormat(format_->currentData().toInt()); }

void ExportDialog::setFormat(PlotView::ExportFormat format)
{
    format_->setCurrentIndex(format_->findData(int(format)));
}

QSize ExportDialog::exportSize() const { return {width_->value(), height_->value()}; }

// The file as typed, with the format's suffix added when it has none of its own.
QString ExportDialog::fileName() const
{
    const QString name = file_->text().trimmed();
    const QString suffix = suffixOf(format());
    if (name.isEmpty() || QFileInfo(name).suffix().compare(suffix, Qt::CaseInsensitive) == 0)
        return name;
    return name + QLatin1Char('.') + suffix;
}

void ExportDialog::setFileName(const QString& fileName) { file_->setText(fileName); }

// A known image suffix on the file name follows the format; other names are left alone.
void ExportDialog::onFormatChanged()
{
    const QString name = file_->text().trimmed();
    const QFileInfo info(name);
    for (auto f : {PlotView::ExportFormat::Png, PlotView::ExportFormat::Pdf, PlotView::ExportFormat::Svg})
        if (info.suffix().compare(suffixOf(f), Qt::CaseInsensitive) == 0) {
            file_->setText(name.left(name.size() - info.suffix().size()) + suffixOf(format()));
            return;
        }
}

void ExportDialog::browse()
{
    const QString suffix = suffixOf(format());
    const QString chosen = QFileDialog::getSaveFileName(this, tr("Export plot"), fileName(),
                                                        tr("%1 files (*.%2)").arg(suffix.toUpper(), suffix));
    if (!chosen.isEmpty())
        file_->setText(chosen);
}

} // namespace hetplan
