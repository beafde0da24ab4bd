#pragma once
// A grid of labelled cells (one per GPU) with a memory bar in each; the text shrinks and drops trailing
// lines to fit the cell's current pixel size, so the map stays readable from 4 to a few hundred GPUs.
#include <qcustomplot.h>

#include <vector>

namespace hetplan {

struct GridCell {
    int row = 0, column = 0;
    QColor fill;
    QStringList lines; // most important first; trailing lines are dropped when space runs out
    double used = -1;  // memory bar: used / capacity bytes (used < 0: no bar)
    double capacity = 0;
    QString memoryText; // drawn above the bar, e.g. "9.1/16 GiB"
    bool dim = false;   // unused GPU: lighter text
    QString toolTip;
};

class CellGridPlottable : public QCPAbstractPlottable {
    Q_OBJECT
public:
    CellGridPlottable(QCPAxis* keyAxis, QCPAxis* valueAxis);
    void setCells(std::vector<GridCell> cells, int rows, int columns);
    const std::vector<GridCell>& cells() const { return cells_; }
    const GridCell* cellAt(double key, double value) const;

    double selectTest(const QPointF&, bool, QVariant* = nullptr) const override { return -1; }
    QCPRange getKeyRange(bool& found, QCP::SignDomain = QCP::sdBoth) const override;
    QCPRange getValueRange(bool& found, QCP::SignDomain = QCP::sdBoth, const QCPRange& = QCPRange()) const override;

protected:
    void draw(QCPPainter* painter) override;
    void drawLegendIcon(QCPPainter*, const QRectF&) const override {}

private:
    QRectF cellPixels(const GridCell& c) const;
    QFont fittingFont() const;
    std::vector<GridCell> cells_;
    int rows_ = 0, columns_ = 0;
};

} // namespace hetplan
