#include "plot_view.h"

#include "core/base/output_file.h"
#include "widgets/common/export_folder.h"
#include "widgets/common/palette.h"

#include <qcustomplot.h>

#include "export_dialog.h"

#include <QAction>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QMessageBox>
#include <QRegularExpression>
#include <QSvgGenerator>
#include <QLabel>
#include <QStackedWidget>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QToolBar>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <vector>

namespace hetplan {

PlotView::PlotView(const QString& placeholder, QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);

    toolBar_ = new QToolBar(this);
    toolBar_->setIconSize(QSize(16, 16));
    toolBar_->setToolButtonStyle(Qt::ToolButtonTextOnly);
    resetAction_ = toolBar_->addAction(tr("Reset zoom"), this, &PlotView::resetZoom);
    resetAction_->setToolTip(tr("Show the whole plot again"));
    exportAction_ = toolBar_->addAction(tr("Export…"), this, &PlotView::exportWithDialog);
    exportAction_->setToolTip(tr("Save the plot as PNG, PDF or SVG at a size you choose"));
    layout->addWidget(toolBar_);

    stack_ = new QStackedWidget(this);
    placeholder_ = new QLabel(placeholder, stack_);
    placeholder_->setAlignment(Qt::AlignCenter);
    placeholder_->setWordWrap(true);
    placeholder_->setAutoFillBackground(true);
    QPalette pal = placeholder_->palette();
    pal.setColor(QPalette::Window, Qt::white);
    pal.setColor(QPalette::WindowText, palette::placeholderText());
    placeholder_->setPalette(pal);
    QFont f = placeholder_->font();
    f.setPointSizeF(f.pointSizeF() * 1.25);
    placeholder_->setFont(f);
    stack_->addWidget(placeholder_);
    layout->addWidget(stack_, 1);

    newPlot();
    setHasContent(false);
}

PlotView::~PlotView() = default;

QCustomPlot* PlotView::newPlot()
{
    auto* fresh = new QCustomPlot(stack_);
    fresh->setMouseTracking(true); // hover tooltips need moves without a pressed button
    fresh->setNoAntialiasingOnDrag(true);
    fresh->setBackground(Qt::white);
    fresh->setPlottingHints(QCP::phCacheLabels);
    QFont base = font();
    base.setPointSizeF(9);
    fresh->setFont(base);
    for (QCPAxis* axis : fresh->axisRect()->axes()) {
        axis->setTickLabelFont(base);
        QFont lf = base;
        lf.setPointSizeF(9.5);
        axis->setLabelFont(lf);
        axis->grid()->setPen(QPen(palette::gridLine(), 0, Qt::DotLine));
    }
    fresh->legend->setFont(base);
    fresh->legend->setBorderPen(Qt::NoPen);
    fresh->legend->setBrush(QColor(255, 255, 255, 230));
    connect(fresh, &QCustomPlot::mouseMove, this, &PlotView::onMouseMove);
    fresh->installEventFilter(this);

    if (plot_) {
        stack_->removeWidget(plot_);
        plot_->deleteLater();
    }
    plot_ = fresh;
    stack_->addWidget(plot_);
    stack_->setCurrentWidget(empty_ ? static_cast<QWidget*>(placeholder_) : plot_);
    return plot_;
}

void PlotView::setHasContent(bool hasContent)
{
    empty_ = !hasContent;
    stack_->setCurrentWidget(empty_ ? static_cast<QWidget*>(placeholder_) : plot_);
    resetAction_->setEnabled(hasContent);
    exportAction_->setEnabled(hasContent);
    if (hasContent) {
        adaptToSize(currentPlotSize());
        plot_->replot();
    }
}

QSize PlotView::currentPlotSize() const
{
    if (!plot_->isVisible() || plot_->width() < 200 || plot_->height() < 150)
        return {1000, 600};
    return plot_->size();
}

bool PlotView::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == plot_ && event->type() == QEvent::Resize && !empty_)
        adaptToSize(static_cast<QResizeEvent*>(event)->size());
    return QWidget::eventFilter(watched, event);
}

void PlotView::adaptToSize(const QSize& size)
{
    // Legend in a row of its own: as many columns as fit the width (items keep their full text).
    QCPLegend* legend = plot_->legend;
    if (!legend || !legend->visible() || legend->itemCount() == 0 || legend->layout() != plot_->plotLayout())
        return;
    std::vector<int> widths;
    for (int i = 0; i < legend->itemCount(); ++i) // cells in fill order; a wrapped grid may have empty ones
        if (QCPAbstractLegendItem* item = legend->item(i))
            widths.push_back(item->minimumOuterSizeHint().width());
    const int available = size.width() - legend->margins().left() - legend->margins().right() - 8;
    int columns = int(widths.size());
    for (; columns > 1; --columns) {
        int total = (columns - 1) * legend->columnSpacing();
        for (int c = 0; c < columns; ++c) {
            int widest = 0;
            for (size_t i = c; i < widths.size(); i += columns)
                widest = std::max(widest, widths[i]);
            total += widest;
        }
        if (total <= available)
            break;
    }
    if (legend->wrap() != columns) {
        legend->setWrap(columns);
        legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
    }
}

void PlotView::zoomBy(double factor)
{
    if (empty_ || !(factor > 0) || !plot_->interactions().testFlag(QCP::iRangeZoom))
        return;
    for (QCPAxisRect* rect : plot_->axisRects())
        for (Qt::Orientation o : {Qt::Horizontal, Qt::Vertical})
            if (rect->rangeZoom().testFlag(o))
                for (QCPAxis* axis : rect->rangeZoomAxes(o))
                    axis->scaleRange(1.0 / factor);
    plot_->replot();
}

void PlotView::clear()
{
    newPlot();
    setHasContent(false);
}

QString PlotView::placeholderText() const { return placeholder_->text(); }
void PlotView::setPlaceholderText(const QString& text) { placeholder_->setText(text); }

void PlotView::resetZoom()
{
    if (empty_)
        return;
    plot_->rescaleAxes();
    plot_->replot();
}

void PlotView::addTitle(const QString& title, const QString& subtitle)
{
    // Two short lines rather than one long one, so narrow exports do not clip the title.
    if (!subtitle.isEmpty()) {
        plot_->plotLayout()->insertRow(0);
        QFont sf = plot_->font();
        sf.setPointSizeF(9);
        auto* sub = new QCPTextElement(plot_, subtitle, sf);
        sub->setTextColor(QColor(70, 70, 70));
        sub->setMargins(QMargins(6, 0, 6, 2));
        plot_->plotLayout()->addElement(0, 0, sub);
        plot_->plotLayout()->setRowStretchFactor(0, 0.001);
    }
    plot_->plotLayout()->insertRow(0);
    QFont f = plot_->font();
    f.setPointSizeF(10.5);
    f.setBold(true);
    auto* element = new QCPTextElement(plot_, title, f);
    element->setMargins(QMargins(6, 6, 6, subtitle.isEmpty() ? 2 : 0));
    plot_->plotLayout()->addElement(0, 0, element);
    plot_->plotLayout()->setRowStretchFactor(0, 0.001);
}

void PlotView::placeLegendInRow(QCPLegend* legend, int row, int columns)
{
    if (auto* inset = legend->layout(); inset && inset != plot_->plotLayout()) {
        if (auto* grid = qobject_cast<QCPLayoutInset*>(inset))
            grid->take(legend);
    }
    plot_->plotLayout()->insertRow(row);
    plot_->plotLayout()->addElement(row, 0, legend);
    plot_->plotLayout()->setRowStretchFactor(row, 0.001); // as tall as its entries, no more
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    legend->setWrap(columns);
    legend->setMargins(QMargins(6, 2, 6, 2));
    legend->setRowSpacing(0);
    legend->setColumnSpacing(12);
    legend->setBrush(Qt::NoBrush);
    legend->setVisible(true);
}

QString PlotView::toolTipAt(const QPointF&) const { return {}; }

void PlotView::onMouseMove(QMouseEvent* event)
{
    if (empty_ || (event->buttons() != Qt::NoButton))
        return;
    const QString text = toolTipAt(event->position());
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(event->globalPosition().toPoint(), text, plot_);
}

QSize PlotView::exportSize(int width, int height) const
{
    if (width > 0 && height > 0)
        return {width, height};
    // A view that was never shown has no useful size; use the screenshot size instead.
    if (!plot_->isVisible() || plot_->width() < 200 || plot_->height() < 150)
        return {1000, 600};
    return plot_->size();
}

bool PlotView::exportPng(const QString& fileName, int width, int height)
{
    return exportTo(fileName, ExportFormat::Png, width, height);
}

bool PlotView::exportPdf(const QString& fileName, int width, int height)
{
    return exportTo(fileName, ExportFormat::Pdf, width, height);
}

bool PlotView::exportSvg(const QString& fileName, int width, int height)
{
    return exportTo(fileName, ExportFormat::Svg, width, height);
}

bool PlotView::exportTo(const QString& fileName, ExportFormat format, int width, int height)
{
    if (empty_ || fileName.isEmpty())
        return false;
    const QSize size = exportSize(width, height);
    adaptToSize(size);
    // The first render lays the plot out at the export size (axis ticks are prepared from the previous
    // layout), the second one is the one written.
    plot_->toPixmap(size.width(), size.height());
    // Rendered into a private temporary file first, then written to the user's path the way every output
    // is (core/base/output_file.h): a regular file is replaced whole, /dev/null or a FIFO is written
    // through, and a directory or block device is refused instead of written over.
    bool ok = false;
    lastExportError_.clear();
    QTemporaryDir scratch;
    const QString rendered = scratch.filePath(QStringLiteral("plot"));
    if (scratch.isValid() && renderTo(rendered, format, size)) {
        QFile file(rendered);
        const QByteArray bytes = file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
        try {
            if (!bytes.isEmpty()) {
                writeOutputFile(fileName.toStdString(), std::string_view(bytes.constData(), size_t(bytes.size())));
                ok = true;
            }
        } catch (const std::exception& e) {
            lastExportError_ = QString::fromStdString(e.what());
        }
    }
    adaptToSize(currentPlotSize());
    plot_->replot();
    if (ok)
        emit exported(fileName);
    return ok;
}

bool PlotView::renderTo(const QString& fileName, ExportFormat format, const QSize& size)
{
    switch (format) {
    case ExportFormat::Png: return plot_->savePng(fileName, size.width(), size.height());
    case ExportFormat::Pdf: return plot_->savePdf(fileName, size.width(), size.height());
    case ExportFormat::Svg: break;
    }
    QSvgGenerator svg;
    svg.setFileName(fileName);
    svg.setSize(size);
    svg.setViewBox(QRect(QPoint(0, 0), size));
    svg.setResolution(96); // CSS pixels: the drawing's width and height in mm match its pixel size on screen
    svg.setTitle(viewName_);
    QCPPainter painter;
    if (!painter.begin(&svg))
        return false;
    plot_->toPainter(&painter, size.width(), size.height());
    return painter.end();
}

QString PlotView::exportBaseName() const
{
    return fileNamePart(exportBaseName_.isEmpty() ? viewName_ : exportBaseName_); // no characters shells trip over
}

void PlotView::exportWithDialog()
{
    if (empty_)
        return;
    ExportDialog dialog(suggestedSavePath(exportBaseName()), defaultExportSize(), this);
    if (dialog.exec() != QDialog::Accepted)
        return;
    rememberSaveFolder(dialog.fileName());
    if (!exportTo(dialog.fileName(), dialog.format(), dialog.exportSize().width(), dialog.exportSize().height()))
        QMessageBox::warning(this, tr("Export"),
                             lastExportError_.isEmpty() ? tr("Could not write %1.").arg(dialog.fileName())
                                                        : tr("Could not write %1: %2").arg(dialog.fileName(),
                                                                                          lastExportError_));
}

} // namespace hetplan
