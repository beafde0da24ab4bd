#pragma once
// The one plottable behind the Gantt chart: rows of coloured boxes. A plan can have 100k+ events, so this
// draws only what lies in the visible key range (per-row binary search) and collapses boxes narrower than a
// pixel into one pixel column per row; the cost of a replot is bounded by rows × visible pixels, not by
// the event count.
#include <qcustomplot.h>

#include <vector>

namespace hetplan {

struct GanttBox {
    double start = 0, end = 0; // key-axis units
    int row = 0;
    int style = 0;  // index into the style table
    int label = -1; // number drawn inside when it fits (the micro-batch); -1 = none
    int event = -1; // caller's id (index into its event list)
    bool critical = false; // outlined when the plottable highlights (the rest is dimmed)
    int chunk = 0;         // interleaved 1F1B: the model chunk; chunk c > 0 draws c bars along the bottom
};

struct GanttRow {
    double top = 0, height = 1; // value-axis units (the axis is reversed: top is drawn above)
};

struct GanttBand { // background band behind a group of rows (a pipeline stage)
    double top = 0, bottom = 0;
    QColor colour;
};

struct GanttLink { // a jump of the highlighted chain: (key0, value0) → (key1, value0) → (key1, value1)
    double key0 = 0, value0 = 0, key1 = 0, value1 = 0;
};

struct GanttStyle {
    QColor fill;
    Qt::BrushStyle hatch = Qt::NoBrush;
    QColor hatchColour;
    QColor outline;
    QColor text;
};

class GanttPlottable : public QCPAbstractPlottable {
    Q_OBJECT
public:
    GanttPlottable(QCPAxis* keyAxis, QCPAxis* valueAxis);

    void setRows(std::vector<GanttRow> rows, std::vector<GanttBand> bands);
    void setStyles(std::vector<GanttStyle> styles);
    // Takes the boxes; they are grouped per row and sorted by start here.
    void setBoxes(std::vector<GanttBox> boxes);
    void setLabelFont(const QFont& f) { labelFont_ = f; }
    // Idle stretches, drawn under the boxes in `style` where wider than a pixel column (row, start, end used).
    void setGaps(std::vector<GanttBox> gaps, const GanttStyle& style);
    // On: critical boxes get a thick outline and every other box is dimmed.
    void setHighlight(bool on) { highlight_ = on; }
    void setLinks(std::vector<GanttLink> links) { links_ = std::move(links); } // drawn while highlighting
    bool highlight() const { return highlight_; }
    size_t gapCount() const { return gapCount_; }
    // The gap under (key, value); nullptr if none.
    const GanttBox* gapAt(double key, double value) const;

    int rowAt(double value) const; // -1 if between rows
    // The box under (key, value), allowing `keyTolerance` either side; nullptr if none.
    const GanttBox* boxAt(double key, double value, double keyTolerance) const;
    size_t boxCount() const { return count_; }
    // Rectangles painted by the last draw() (for tests and the performance note).
    size_t lastPainted() const { return painted_; }

    double selectTest(const QPointF&, bool, QVariant* = nullptr) const override { return -1; }
    QCPRange getKeyRange(bool& found, QCP::SignDomain inSignDomain = QCP::sdBoth) const override;
    QCPRange getValueRange(bool& found, QCP::SignDomain inSignDomain = QCP::sdBoth,
                           const QCPRange& inKeyRange = QCPRange()) const override;

protected:
    void draw(QCPPainter* painter) override;
    void drawLegendIcon(QCPPainter*, const QRectF&) const override {}

private:
    // The first box of `row` that may still be running at `key` (boxes are sorted by start).
    std::vector<GanttBox>::const_iterator firstReaching(size_t row, double key) const;
    std::pair<double, double> yPixels(double top, double height) const;
    void drawBands(QCPPainter* painter, const QRect& clip) const;
    void drawTimeGrid(QCPPainter* painter, const QRect& clip) const;
    void drawRow(QCPPainter* painter, size_t r, const QRect& clip, const QFontMetrics& fm);
    void drawGaps(QCPPainter* painter, size_t r, const QRect& clip) const;
    void emphasise(QCPPainter* painter, const QRectF& box, bool critical) const;
    void drawLinks(QCPPainter* painter) const;
    void drawBox(QCPPainter* painter, const QRectF& box, const GanttStyle& st, int label, const QFontMetrics& fm,
                 int chunk) const;

    std::vector<GanttRow> rows_;
    std::vector<GanttBand> bands_;
    std::vector<GanttStyle> styles_;
    std::vector<std::vector<GanttBox>> byRow_;
    std::vector<double> maxDuration_; // per row: how far back a box may start and still be visible
    size_t count_ = 0;
    std::vector<std::vector<GanttBox>> gapsByRow_; // sorted by start; they do not overlap
    GanttStyle gapStyle_;
    size_t gapCount_ = 0;
    bool highlight_ = false;
    std::vector<GanttLink> links_;
    double keyMin_ = 0, keyMax_ = 0;
    QFont labelFont_;
    size_t painted_ = 0;
};

} // namespace hetplan
