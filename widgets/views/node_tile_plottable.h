#pragma once
// The stage map of a large cluster: one tile per node, its name (and in mixed clusters its device type) on
// top and its GPUs as coloured squares inside (geometry from StageMapLayout, so drawing and hit tests agree). Squares
// of GPUs over their memory capacity get a red frame; everything else is in the tooltips.
#include "stage_map_layout.h"

#include <qcustomplot.h>

#include <vector>

namespace hetplan {

class NodeTilePlottable : public QCPAbstractPlottable {
    Q_OBJECT
public:
    NodeTilePlottable(QCPAxis* keyAxis, QCPAxis* valueAxis);
    // `colours`: per cell of the layout, its fill.
    void setLayout(const StageMapLayout* layout, std::vector<QColor> colours);
    // The tooltip at plot coordinates: a GPU square's, else its tile's; empty between tiles.
    QString toolTipAt(double key, double value) const;

    double selectTest(const QPointF&, bool, QVariant* = nullptr) const override { return -1; }
    QCPRange getKeyRange(bool& found, QCP::SignDomain = QCP::sdBoth) const override;
    QCPRange getValueRange(bool& found, QCP::SignDomain = QCP::sdBoth, const QCPRange& = QCPRange()) const override;

protected:
    void draw(QCPPainter* painter) override;
    void drawLegendIcon(QCPPainter*, const QRectF&) const override {}

private:
    QRectF toPixels(const QRectF& r) const;
    void drawTile(QCPPainter* painter, const StageMapNodeTile& t, const QFontMetrics& fm) const;

    const StageMapLayout* layout_ = nullptr;
    std::vector<QColor> colours_;
};

} // namespace hetplan
