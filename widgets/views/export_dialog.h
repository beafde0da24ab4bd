#pragma once
// Asks how to export a plot: format (PNG, PDF, SVG), size in pixels and file. The file name follows the
// format (its suffix is swapped when the format changes); "Browse…" picks a folder and name.
#include "plot_view.h"

#include <QDialog>

class QComboBox;
class QLineEdit;
class QSpinBox;

namespace hetplan {

class ExportDialog : public QDialog {
    Q_OBJECT
public:
    // `basePath`: folder and file name without suffix ("/home/me/lab-gpt2-gantt"); `size`: the default size.
    ExportDialog(const QString& basePath, const QSize& size, QWidget* parent = nullptr);

    PlotView::ExportFormat format() const;
    void setFormat(PlotView::ExportFormat format);
    QSize exportSize() const;
    QString fileName() const;
    void setFileName(const QString& fileName);

    static QString suffixOf(PlotView::ExportFormat format); // "png", "pdf", "svg"

private:
    void browse();
    void onFormatChanged();

    QComboBox* format_ = nullptr;
    QSpinBox* width_ = nullptr;
    QSpinBox* height_ = nullptr;
    QLineEdit* file_ = nullptr;
};

} // namespace hetplan
