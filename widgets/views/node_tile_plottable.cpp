#include "node_tile_plottable.h"

#include "widgets/common/palette.h"

#include <algorithm>

namespace hetplan {

NodeTilePlottable::NodeTilePlottable(QCPAxis* keyAxis, QCPAxis* valueAxis) : QCPAbstractPlottable(keyAxis, valueAxis)
{
    setSelectable(QCP::stNone);
}

void NodeTilePlottable::setLayout(const StageMapLayout* layout, std::vector<QColor> colours)
{
    layout_ = layout;
    colours_ = std::move(colours);
}

QString NodeTilePlottable::toolTipAt(double key, double value) const
{
    if (!layout_)
        return {};
    const QPointF p(key, value);
    for (const StageMapNodeTile& t : layout_->tiles) {
        if (!layout_->tileRect(t).contains(p))
            continue;
        for (size_t slot = 0; slot < t.cells.size(); ++slot)
            if (layout_->gpuRect(t, int(slot)).contains(p))
                return layout_->cells[size_t(t.cells[slot])].toolTip;
        return t.toolTip;
    }
    return {};
}

QCPRange NodeTilePlottable::getKeyRange(bool& found, QCP::SignDomain) const
{
    found = layout_ && layout_->tileColumns > 0;
    return QCPRange(0, found ? layout_->tileColumns : 1);
}

QCPRange NodeTilePlottable::getValueRange(bool& found, QCP::SignDomain, const QCPRange&) const
{
    found = layout_ && layout_->tileRows > 0;
    return QCPRange(0, found ? layout_->tileRows : 1);
}

QRectF NodeTilePlottable::toPixels(const QRectF& r) const
{
    return QRectF(coordsToPixels(r.left(), r.top()), coordsToPixels(r.right(), r.bottom())).normalized();
}

void NodeTilePlottable::draw(QCPPainter* painter)
{
    if (!layout_ || !mKeyAxis || !mValueAxis)
        return;
    QFont font = painter->font();
    font.setPointSizeF(7.5);
    painter->setFont(font);
    const QFontMetrics fm(font);
    for (const StageMapNodeTile& t : layout_->tiles)
        drawTile(painter, t, fm);
}

void NodeTilePlottable::drawTile(QCPPainter* painter, const StageMapNodeTile& t, const QFontMetrics& fm) const
{
    const QRectF tile = toPixels(layout_->tileRect(t));
    painter->setPen(QPen(palette::gridLine(), 1));
    painter->setBrush(palette::bandA());
    painter->drawRect(tile);
    // The label when the header strip holds a line of text; the tooltip always has the full name.
    const double headerPx = tile.height() * tilegeom::header / layout_->tileRect(t).height();
    if (headerPx >= fm.height() * 0.9) {
        QRectF header(tile.left() + 3, tile.top(), tile.width() - 6, headerPx);
        painter->setPen(QColor(40, 40, 40));
        if (layout_->mixedDevices) { // the device type first: it tells nodes apart at a glance
            const QFont regular = painter->font();
            QFont bold = regular;
            bold.setBold(true);
            painter->setFont(bold);
            painter->drawText(header, Qt::AlignRight | Qt::AlignVCenter, t.device);
            header.setRight(header.right() - QFontMetrics(bold).horizontalAdvance(t.device) - 4);
            painter->setFont(regular);
        }
        painter->drawText(header, Qt::AlignLeft | Qt::AlignVCenter,
                          fm.elidedText(t.label, Qt::ElideMiddle, int(header.width())));
    }
    for (size_t slot = 0; slot < t.cells.size(); ++slot) {
        const StageMapCell& c = layout_->cells[size_t(t.cells[slot])];
        const QColor fill = colours_.at(size_t(t.cells[slot]));
        const QRectF square = toPixels(layout_->gpuRect(t, int(slot)));
        painter->setPen(c.overCapacity() ? QPen(palette::overCapacity(), 2) : QPen(palette::shade(fill, 0.35), 1));
        painter->setBrush(fill);
        painter->drawRect(square);
    }
}

} // namespace hetplan
