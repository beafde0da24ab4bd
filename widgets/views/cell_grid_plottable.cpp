#include "cell_grid_plottable.h"

#include "widgets/common/palette.h"

#include <algorithm>
#include <cmath>

namespace hetplan {

namespace {
constexpr double kInset = 0.04;   // gap around each cell, in cell units
}

CellGridPlottable::CellGridPlottable(QCPAxis* keyAxis, QCPAxis* valueAxis) : QCPAbstractPlottable(keyAxis, valueAxis)
{
    setSelectable(QCP::stNone);
}

void CellGridPlottable::setCells(std::vector<GridCell> cells, int rows, int columns)
{
    cells_ = std::move(cells);
    rows_ = rows;
    columns_ = columns;
}

const GridCell* CellGridPlottable::cellAt(double key, double value) const
{
    for (const GridCell& c : cells_)
        if (key >= c.column + kInset && key < c.column + 1 - kInset && value >= c.row + kInset &&
            value < c.row + 1 - kInset)
            return &c;
    return nullptr;
}

QCPRange CellGridPlottable::getKeyRange(bool& found, QCP::SignDomain) const
{
    found = columns_ > 0;
    return QCPRange(0, columns_);
}

QCPRange CellGridPlottable::getValueRange(bool& found, QCP::SignDomain, const QCPRange&) const
{
    found = rows_ > 0;
    return QCPRange(0, rows_);
}

QRectF CellGridPlottable::cellPixels(const GridCell& c) const
{
    const QPointF a = coordsToPixels(c.column + kInset, c.row + kInset);
    const QPointF b = coordsToPixels(c.column + 1 - kInset, c.row + 1 - kInset);
    return QRectF(a, b).normalized();
}

void CellGridPlottable::draw(QCPPainter* painter)
{
    if (cells_.empty())
        return;
    // One font size for all cells (a map with mixed sizes looks untidy): the largest of 9..6.5 pt at which
    // the longest text line fits the cell width.
    const QRectF sample = cellPixels(cells_.front());
    QFont font = mParentPlot->font();
    double longest = 0;
    int maxLines = 0;
    for (const GridCell& c : cells_)
        maxLines = std::max<int>(maxLines, c.lines.size() + (c.memoryText.isEmpty() ? 0 : 1));
    double size = 9.0;
    for (; size > 6.5; size -= 0.5) {
        font.setPointSizeF(size);
        const QFontMetricsF fm(font);
        longest = 0;
        for (const GridCell& c : cells_)
            for (const QString& l : c.lines)
                longest = std::max(longest, fm.horizontalAdvance(l));
        if (longest <= sample.width() - 8 && fm.height() * maxLines + 10 <= sample.height())
            break;
    }
    font.setPointSizeF(size);
    QFont bold = font;
    bold.setBold(true);
    const QFontMetricsF fm(font);
    const double lineH = fm.height();

    for (const GridCell& c : cells_) {
        const QRectF r = cellPixels(c);
        const bool over = c.used >= 0 && c.capacity > 0 && c.used > c.capacity;
        painter->setAntialiasing(true);
        painter->setPen(over ? QPen(palette::overCapacity(), 2.5) : QPen(palette::shade(c.fill, 0.3), 1));
        painter->setBrush(c.fill);
        painter->drawRoundedRect(r.adjusted(1, 1, -1, -1), 4, 4);
        if (r.width() < 20 || r.height() < lineH)
            continue;

        // Memory bar along the bottom (its label sits just above it).
        double textBottom = r.bottom() - 4;
        if (c.used >= 0 && c.capacity > 0 && r.height() > lineH + 10) {
            const double barH = std::clamp(r.height() * 0.08, 4.0, 8.0);
            const QRectF track(r.left() + 6, r.bottom() - 5 - barH, r.width() - 12, barH);
            painter->setPen(Qt::NoPen);
            painter->setBrush(QColor(255, 255, 255, 200));
            painter->drawRect(track);
            QRectF fill = track;
            fill.setWidth(track.width() * std::clamp(c.used / c.capacity, 0.0, 1.0));
            painter->setBrush(over ? palette::overCapacity() : palette::memoryOk());
            painter->drawRect(fill);
            painter->setPen(QPen(palette::shade(c.fill, 0.45), 1));
            painter->setBrush(Qt::NoBrush);
            painter->drawRect(track);
            textBottom = track.top() - 1;
            if (!c.memoryText.isEmpty() && textBottom - lineH >= r.top() + 2) {
                const QRectF area(r.left() + 3, textBottom - lineH, r.width() - 6, lineH);
                if (over) {
                    // White pill with red bold text: readable on every stage colour.
                    const QString text = QFontMetricsF(bold).elidedText(c.memoryText + tr(" — over"),
                                                                        Qt::ElideRight, r.width() - 14);
                    const double w = QFontMetricsF(bold).horizontalAdvance(text) + 10;
                    const QRectF pill(area.center().x() - w / 2, area.top(), w, area.height());
                    painter->setPen(Qt::NoPen);
                    painter->setBrush(Qt::white);
                    painter->drawRoundedRect(pill, 3, 3);
                    painter->setFont(bold);
                    painter->setPen(palette::overCapacity());
                    painter->drawText(pill, Qt::AlignCenter, text);
                } else {
                    painter->setFont(font);
                    painter->setPen(palette::textOn(c.fill));
                    painter->drawText(area, Qt::AlignCenter, fm.elidedText(c.memoryText, Qt::ElideRight, area.width()));
                }
                textBottom -= lineH + 1;
            }
        }

        // Text lines, centred in the space left; keep as many leading lines as fit.
        const int fit = std::clamp(int((textBottom - r.top() - 2) / lineH), 0, int(c.lines.size()));
        const double top = r.top() + 2 + std::max(0.0, (textBottom - r.top() - 2 - fit * lineH) / 2);
        QColor text = palette::textOn(c.fill);
        if (c.dim)
            text = QColor(110, 110, 110);
        for (int i = 0; i < fit; ++i) {
            painter->setFont(i == 0 ? bold : font);
            painter->setPen(text);
            painter->drawText(QRectF(r.left() + 3, top + i * lineH, r.width() - 6, lineH), Qt::AlignCenter,
                              QFontMetricsF(i == 0 ? bold : font).elidedText(c.lines[i], Qt::ElideRight, r.width() - 6));
        }
    }
}

} // namespace hetplan
