#pragma once
// A data-less plottable whose only job is a legend entry: a filled swatch, optionally hatched and/or
// outlined, or a marker. The views draw their data with a few custom plottables, so their legends are made
// of these.
#include <qcustomplot.h>

namespace hetplan {

class LegendSwatch : public QCPAbstractPlottable {
    Q_OBJECT
public:
    // Adds the swatch to `plot` (and its legend) on the given axes.
    LegendSwatch(QCPAxis* keyAxis, QCPAxis* valueAxis, const QString& name, const QColor& fill,
                 Qt::BrushStyle hatch = Qt::NoBrush, const QColor& hatchColor = QColor(60, 60, 60));
    // Marker-style entry (e.g. a scatter symbol) instead of a box.
    void setMarker(const QCPScatterStyle& style)
    {
        marker_ = style;
        hasMarker_ = true;
    }
    void setOutline(const QPen& pen) { outline_ = pen; }
    // Several colours side by side in one swatch ("colour = micro-batch").
    void setStripes(QList<QColor> colours) { stripes_ = std::move(colours); }

    double selectTest(const QPointF&, bool, QVariant* = nullptr) const override { return -1; }
    QCPRange getKeyRange(bool& found, QCP::SignDomain = QCP::sdBoth) const override;
    QCPRange getValueRange(bool& found, QCP::SignDomain = QCP::sdBoth, const QCPRange& = QCPRange()) const override;

protected:
    void draw(QCPPainter*) override {}
    void drawLegendIcon(QCPPainter* painter, const QRectF& rect) const override;

private:
    QColor fill_;
    Qt::BrushStyle hatch_;
    QColor hatchColor_;
    QPen outline_;
    QCPScatterStyle marker_;
    bool hasMarker_ = false;
    QList<QColor> stripes_;
};

} // namespace hetplan
