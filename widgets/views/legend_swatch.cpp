#include "legend_swatch.h"

namespace hetplan {

LegendSwatch::LegendSwatch(QCPAxis* keyAxis, QCPAxis* valueAxis, const QString& name, const QColor& fill,
                           Qt::BrushStyle hatch, const QColor& hatchColor)
    : QCPAbstractPlottable(keyAxis, valueAxis),
      fill_(fill),
      hatch_(hatch),
      hatchColor_(hatchColor),
      outline_(QColor(0, 0, 0, 90))
{
    setName(name);
    setSelectable(QCP::stNone);
    addToLegend();
}

QCPRange LegendSwatch::getKeyRange(bool& found, QCP::SignDomain) const
{
    found = false; // no data: must not influence rescaleAxes()
    return {};
}

QCPRange LegendSwatch::getValueRange(bool& found, QCP::SignDomain, const QCPRange&) const
{
    found = false;
    return {};
}

void LegendSwatch::drawLegendIcon(QCPPainter* painter, const QRectF& rect) const
{
    if (hasMarker_) {
        painter->setAntialiasing(true);
        marker_.applyTo(painter, QPen(Qt::black));
        marker_.drawShape(painter, rect.center());
        return;
    }
    const QRectF box = rect.adjusted(1, 2, -1, -2);
    painter->setAntialiasing(false);
    if (!stripes_.isEmpty()) {
        const double w = box.width() / stripes_.size();
        for (int i = 0; i < stripes_.size(); ++i)
            painter->fillRect(QRectF(box.left() + i * w, box.top(), w + 0.5, box.height()), stripes_[i]);
    } else if (fill_.isValid() && fill_.alpha() > 0) {
        painter->fillRect(box, fill_);
    }
    if (hatch_ != Qt::NoBrush)
        painter->fillRect(box, QBrush(hatchColor_, hatch_));
    painter->setPen(outline_);
    painter->setBrush(Qt::NoBrush);
    painter->drawRect(box);
}

} // namespace hetplan
