#include "plot_view.h"

#include "widgets/common/palette.h"

#include <qcustomplot.h>

#include <QAction>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QStackedWidget>
#include <QStandardPaths>
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
    pngAction_ = toolBar_->addAction(tr("Export PNG…"), this, &PlotView::exportPngWithDialog);
    pdfAction_ = toolBar_->addAction(tr("Export PDF…"), this, &PlotView::exportPdfWithDialog);
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

    lastDir_ = QStandardPaths::writableLocation(QStandardPaths::PicturesLocation);
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
    pngAction_->setEnabled(hasContent);
    pdfAction_->setEnabled(hasContent);
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
    if (empty_)
        return false;
    const QSize size = exportSize(width, height);
    adaptToSize(size);
    // The first render lays the plot out at the export size (axis ticks are prepared from the previous
    // layout), the second one is the one written.
    plot_->toPixmap(size.width(), size.height());
    const bool ok = plot_->savePng(fileName, size.width(), size.height());
    adaptToSize(currentPlotSize());
    plot_->replot();
    if (ok)
        emit exported(fileName);
    return ok && QFileInfo(fileName).size() > 0;
}

bool PlotView::exportPdf(const QString& fileName, int width, int height)
{
    if (empty_)
        return false;
    const QSize size = exportSize(width, height);
    adaptToSize(size);
    plot_->toPixmap(size.width(), size.height());
    const bool ok = plot_->savePdf(fileName, size.width(), size.height());
    adaptToSize(currentPlotSize());
    plot_->replot();
    if (ok)
        emit exported(fileName);
    return ok && QFileInfo(fileName).size() > 0;
}

void PlotView::exportPngWithDialog()
{
    QString file = QFileDialog::getSaveFileName(this, tr("Export PNG"), lastDir_, tr("PNG images (*.png)"));
    if (file.isEmpty())
        return;
    if (!file.endsWith(QLatin1String(".png"), Qt::CaseInsensitive))
        file += QLatin1String(".png");
    lastDir_ = QFileInfo(file).absolutePath();
    exportPng(file);
}

void PlotView::exportPdfWithDialog()
{
    QString file = QFileDialog::getSaveFileName(this, tr("Export PDF"), lastDir_, tr("PDF documents (*.pdf)"));
    if (file.isEmpty())
        return;
    if (!file.endsWith(QLatin1String(".pdf"), Qt::CaseInsensitive))
        file += QLatin1String(".pdf");
    lastDir_ = QFileInfo(file).absolutePath();
    exportPdf(file);
}

} // namespace hetplan
