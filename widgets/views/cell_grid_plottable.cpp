#include "cell_grid_plottable.h"

#include "widgets/common/palette.h"

#include <algorithm>
#include <cmath>

namespace hetplan {

namespace {
constexpr double kInset = 0.04; // gap around each cell, in cell units
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

namespace {
// The cell text fonts, one size for all cells: regular, and bold for each cell's first line.
struct CellFonts {
    QFont font, bold;
    double lineHeight = 0;
};

bool overCapacity(const GridCell& c) { return c.used >= 0 && c.capacity > 0 && c.used > c.capacity; }

// The memory bar's track and fill along the bottom of cell rect `r`; returns the track.
QRectF drawMemoryBar(QCPPainter* painter, const GridCell& c, const QRectF& r)
{
    const double barH = std::clamp(r.height() * 0.08, 4.0, 8.0);
    const QRectF track(r.left() + 6, r.bottom() - 5 - barH, r.width() - 12, barH);
    painter->setPen(Qt::NoPen);
    painter->setBrush(QColor(255, 255, 255, 200));
    painter->drawRect(track);
    QRectF fill = track;
    fill.setWidth(track.width() * std::clamp(c.used / c.capacity, 0.0, 1.0));
    painter->setBrush(overCapacity(c) ? palette::overCapacity() : palette::memoryOk());
    painter->drawRect(fill);
    painter->setPen(QPen(palette::shade(c.fill, 0.45), 1));
    painter->setBrush(Qt::NoBrush);
    painter->drawRect(track);
    return track;
}

// The memory text in `area` (just above the bar); over capacity as a white pill with red bold text,
// readable on every stage colour.
void drawMemoryText(QCPPainter* painter, const GridCell& c, const QRectF& r, const QRectF& area, const CellFonts& f)
{
    if (overCapacity(c)) {
        const QFontMetricsF bm(f.bold);
        const QString text =
            bm.elidedText(c.memoryText + CellGridPlottable::tr(" — over"), Qt::ElideRight, r.width() - 14);
        const double w = bm.horizontalAdvance(text) + 10;
        const QRectF pill(area.center().x() - w / 2, area.top(), w, area.height());
        painter->setPen(Qt::NoPen);
        painter->setBrush(Qt::white);
        painter->drawRoundedRect(pill, 3, 3);
        painter->setFont(f.bold);
        painter->setPen(palette::overCapacity());
        painter->drawText(pill, Qt::AlignCenter, text);
    } else {
        painter->setFont(f.font);
        painter->setPen(palette::textOn(c.fill));
        painter->drawText(area, Qt::AlignCenter,
                          QFontMetricsF(f.font).elidedText(c.memoryText, Qt::ElideRight, area.width()));
    }
}

// The memory bar and its label, if the cell has a bar and room for it; returns how far down the text
// lines may reach.
double drawMemory(QCPPainter* painter, const GridCell& c, const QRectF& r, const CellFonts& f)
{
    const double lineH = f.lineHeight;
    if (!(c.used >= 0 && c.capacity > 0 && r.height() > lineH + 10))
        return r.bottom() - 4;
    double textBottom = drawMemoryBar(painter, c, r).top() - 1;
    if (!c.memoryText.isEmpty() && textBottom - lineH >= r.top() + 2) {
        drawMemoryText(painter, c, r, QRectF(r.left() + 3, textBottom - lineH, r.width() - 6, lineH), f);
        textBottom -= lineH + 1;
    }
    return textBottom;
}

// Text lines, centred in the space above `textBottom`; keeps as many leading lines as fit.
void drawLines(QCPPainter* painter, const GridCell& c, const QRectF& r, double textBottom, const CellFonts& f)
{
    const double lineH = f.lineHeight;
    const int fit = std::clamp(int((textBottom - r.top() - 2) / lineH), 0, int(c.lines.size()));
    const double top = r.top() + 2 + std::max(0.0, (textBottom - r.top() - 2 - fit * lineH) / 2);
    const QColor text = c.dim ? QColor(110, 110, 110) : palette::textOn(c.fill);
    for (int i = 0; i < fit; ++i) {
        const QFont& font = i == 0 ? f.bold : f.font;
        painter->setFont(font);
        painter->setPen(text);
        painter->drawText(QRectF(r.left() + 3, top + i * lineH, r.width() - 6, lineH), Qt::AlignCenter,
                          QFontMetricsF(font).elidedText(c.lines[i], Qt::ElideRight, r.width() - 6));
    }
}
} // namespace

// One font size for all cells (a map with mixed sizes looks untidy): the largest of 9..6.5 pt at which
// the longest text line fits the cell width.
QFont CellGridPlottable::fittingFont() const
{
    const QRectF sample = cellPixels(cells_.front());
    QFont font = mParentPlot->font();
    int maxLines = 0;
    for (const GridCell& c : cells_)
        maxLines = std::max<int>(maxLines, c.lines.size() + (c.memoryText.isEmpty() ? 0 : 1));
    double size = 9.0;
    for (; size > 6.5; size -= 0.5) {
        font.setPointSizeF(size);
        const QFontMetricsF fm(font);
        double longest = 0;
        for (const GridCell& c : cells_)
            for (const QString& l : c.lines)
                longest = std::max(longest, fm.horizontalAdvance(l));
        if (longest <= sample.width() - 8 && fm.height() * maxLines + 10 <= sample.height())
            break;
    }
    font.setPointSizeF(size);
    return font;
}

void CellGridPlottable::draw(QCPPainter* painter)
{
    if (cells_.empty())
        return;
    CellFonts f;
    f.font = fittingFont();
    f.bold = f.font;
    f.bold.setBold(true);
    f.lineHeight = QFontMetricsF(f.font).height();

    for (const GridCell& c : cells_) {
        const QRectF r = cellPixels(c);
        painter->setAntialiasing(true);
        painter->setPen(overCapacity(c) ? QPen(palette::overCapacity(), 2.5) : QPen(palette::shade(c.fill, 0.3), 1));
        painter->setBrush(c.fill);
        painter->drawRoundedRect(r.adjusted(1, 1, -1, -1), 4, 4);
        if (r.width() < 20 || r.height() < f.lineHeight)
            continue;
        drawLines(painter, c, r, drawMemory(painter, c, r, f), f);
    }
}

} // namespace hetplan
