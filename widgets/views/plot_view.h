#pragma once
// Base of the plan views: a QCustomPlot with a small toolbar (reset zoom, export as PNG, PDF or SVG at a
// chosen size), a placeholder shown while there is nothing to draw, and hover tooltips routed to the subclass.
#include <QPointF>
#include <QString>
#include <QWidget>

class QCustomPlot;
class QCPLegend;
class QLabel;
class QMouseEvent;
class QStackedWidget;
class QToolBar;
class QAction;

namespace hetplan {

class PlotView : public QWidget {
    Q_OBJECT
public:
    explicit PlotView(const QString& placeholder, QWidget* parent = nullptr);
    ~PlotView() override;

    // The current plot (replaced by a fresh one whenever the view is given new data).
    QCustomPlot* plot() const { return plot_; }
    QToolBar* toolBar() const { return toolBar_; }

    enum class ExportFormat { Png, Pdf, Svg };
    // Renders the plot to a file; w/h 0 = the widget's size (or 1000×600 while it has never been laid out).
    // Returns false when the view is empty or the file cannot be written; emits exported() on success.
    bool exportPng(const QString& fileName, int width = 0, int height = 0);
    bool exportPdf(const QString& fileName, int width = 0, int height = 0);
    bool exportSvg(const QString& fileName, int width = 0, int height = 0);
    bool exportTo(const QString& fileName, ExportFormat format, int width = 0, int height = 0);
    // Why the last export returned false, when it got as far as writing ("" otherwise).
    QString lastExportError() const { return lastExportError_; }
    // The size an export gets by default: the plot's size on screen (1000×600 before it was ever shown).
    QSize defaultExportSize() const { return exportSize(0, 0); }
    // "<cluster>-<model>-gantt" (without a suffix); the export dialog proposes it.
    QString exportBaseName() const;
    // What the view is called in messages: "gantt", "stage map", ...
    QString viewName() const { return viewName_; }

    // Drops the data and shows the placeholder again.
    virtual void clear();
    bool isEmpty() const { return empty_; }
    QString placeholderText() const;
    void setPlaceholderText(const QString& text);

    QSize sizeHint() const override { return {1000, 600}; }
    QSize minimumSizeHint() const override { return {320, 200}; }

public slots:
    virtual void resetZoom();
    // Keyboard zoom (View ▸ Zoom In/Out): scales the ranges the mouse wheel zooms, about their centres;
    // factor > 1 zooms in. Views without wheel zoom (the comparison) stay as they are.
    void zoomBy(double factor);
    // Asks for format, size and file (ExportDialog), then exports.
    void exportWithDialog();

signals:
    void exported(const QString& fileName); // the status bar says "Saved <viewName> as <fileName>"

protected:
    void setViewName(const QString& name) { viewName_ = name; }
    void setExportBaseName(const QString& name) { exportBaseName_ = name; }
    // A fresh plot with the project's look (fonts, colours, mouse tracking); the old one is deleted.
    QCustomPlot* newPlot();
    // Shows the plot (true) or the placeholder (false) and replots.
    void setHasContent(bool hasContent);
    // Adds a bold title row above the current layout.
    void addTitle(const QString& title, const QString& subtitle = {});
    // Moves the legend out of the axis rect into a row of its own at `row` of the main layout (wrapping
    // after `columns` entries), so it never hides data.
    void placeLegendInRow(QCPLegend* legend, int row, int columns);
    // Called before the plot is drawn at a new size (widget resize, export): fits the legend's columns to
    // the width; subclasses may also adapt labels. Call the base implementation.
    virtual void adaptToSize(const QSize& size);
    bool eventFilter(QObject* watched, QEvent* event) override;
    // Subclasses answer hover questions (pixel position inside the plot); empty = no tooltip.
    virtual QString toolTipAt(const QPointF& pos) const;

private:
    void onMouseMove(QMouseEvent* event);
    QSize exportSize(int width, int height) const;
    bool renderTo(const QString& fileName, ExportFormat format, const QSize& size);
    QSize currentPlotSize() const;

    QToolBar* toolBar_ = nullptr;
    QAction* resetAction_ = nullptr;
    QAction* exportAction_ = nullptr;
    QStackedWidget* stack_ = nullptr;
    QLabel* placeholder_ = nullptr;
    QCustomPlot* plot_ = nullptr;
    bool empty_ = true;
    QString lastExportError_; // why the last export failed, when the file system said
    QString viewName_ = QStringLiteral("plot");
    QString exportBaseName_;
};

} // namespace hetplan
