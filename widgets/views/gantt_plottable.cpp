#include "gantt_plottable.h"

#include "widgets/common/palette.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hetplan {

GanttPlottable::GanttPlottable(QCPAxis* keyAxis, QCPAxis* valueAxis) : QCPAbstractPlottable(keyAxis, valueAxis)
{
    setSelectable(QCP::stNone);
    setAntialiased(false); // boxes are pixel aligned; antialiasing only blurs their edges and costs time
    labelFont_.setPointSizeF(7.5);
}

void GanttPlottable::setRows(std::vector<GanttRow> rows, std::vector<GanttBand> bands)
{
    rows_ = std::move(rows);
    bands_ = std::move(bands);
}

void GanttPlottable::setStyles(std::vector<GanttStyle> styles) { styles_ = std::move(styles); }

void GanttPlottable::setBoxes(std::vector<GanttBox> boxes)
{
    byRow_.assign(rows_.size(), {});
    maxDuration_.assign(rows_.size(), 0);
    count_ = 0;
    keyMin_ = std::numeric_limits<double>::max();
    keyMax_ = std::numeric_limits<double>::lowest();
    for (const GanttBox& b : boxes) {
        if (b.row < 0 || b.row >= int(rows_.size()) || !(b.end >= b.start))
            continue;
        byRow_[b.row].push_back(b);
        maxDuration_[b.row] = std::max(maxDuration_[b.row], b.end - b.start);
        keyMin_ = std::min(keyMin_, b.start);
        keyMax_ = std::max(keyMax_, b.end);
        ++count_;
    }
    for (auto& row : byRow_)
        std::stable_sort(row.begin(), row.end(),
                         [](const GanttBox& a, const GanttBox& b) { return a.start < b.start; });
    if (count_ == 0)
        keyMin_ = keyMax_ = 0;
}

void GanttPlottable::setGaps(std::vector<GanttBox> gaps, const GanttStyle& style)
{
    gapStyle_ = style;
    gapsByRow_.assign(rows_.size(), {});
    gapCount_ = 0;
    for (const GanttBox& g : gaps)
        if (g.row >= 0 && g.row < int(rows_.size()) && g.end > g.start) {
            gapsByRow_[g.row].push_back(g);
            ++gapCount_;
        }
    for (auto& row : gapsByRow_)
        std::sort(row.begin(), row.end(), [](const GanttBox& a, const GanttBox& b) { return a.start < b.start; });
}

const GanttBox* GanttPlottable::gapAt(double key, double value) const
{
    const int r = rowAt(value);
    if (r < 0 || size_t(r) >= gapsByRow_.size())
        return nullptr;
    const auto& row = gapsByRow_[r];
    auto it = std::upper_bound(row.begin(), row.end(), key, [](double k, const GanttBox& g) { return k < g.start; });
    if (it == row.begin() || key > std::prev(it)->end)
        return nullptr;
    return &*std::prev(it);
}

QCPRange GanttPlottable::getKeyRange(bool& found, QCP::SignDomain) const
{
    found = count_ > 0;
    return QCPRange(keyMin_, keyMax_);
}

QCPRange GanttPlottable::getValueRange(bool& found, QCP::SignDomain, const QCPRange&) const
{
    found = !rows_.empty();
    if (!found)
        return {};
    return QCPRange(rows_.front().top, rows_.back().top + rows_.back().height);
}

std::vector<GanttBox>::const_iterator GanttPlottable::firstReaching(size_t row, double key) const
{
    // No box of the row lasts longer than maxDuration_, so none starting before this can reach `key`.
    return std::lower_bound(byRow_[row].begin(), byRow_[row].end(), key - maxDuration_[row],
                            [](const GanttBox& b, double k) { return b.start < k; });
}

int GanttPlottable::rowAt(double value) const
{
    for (size_t r = 0; r < rows_.size(); ++r)
        if (value >= rows_[r].top && value < rows_[r].top + rows_[r].height)
            return int(r);
    return -1;
}

const GanttBox* GanttPlottable::boxAt(double key, double value, double keyTolerance) const
{
    const int r = rowAt(value);
    if (r < 0)
        return nullptr;
    const auto& row = byRow_[r];
    // Candidates start no later than key + tolerance and no earlier than key - tolerance - longest box.
    auto it = firstReaching(r, key - keyTolerance);
    const GanttBox* best = nullptr;
    double bestDistance = std::numeric_limits<double>::max();
    for (; it != row.end() && it->start <= key + keyTolerance; ++it) {
        const double d = key < it->start ? it->start - key : (key > it->end ? key - it->end : 0);
        if (d <= keyTolerance && d < bestDistance) {
            best = &*it;
            bestDistance = d;
        }
    }
    return best;
}

// Pixel span [top, bottom] of a value range (the axis may be reversed).
std::pair<double, double> GanttPlottable::yPixels(double top, double height) const
{
    double a = mValueAxis->coordToPixel(top), b = mValueAxis->coordToPixel(top + height);
    if (a > b)
        std::swap(a, b);
    return {a, b};
}

void GanttPlottable::draw(QCPPainter* painter)
{
    painted_ = 0;
    if (!mKeyAxis || !mValueAxis)
        return;
    const QRect clip = clipRect();
    painter->setAntialiasing(false);
    drawBands(painter, clip);
    drawTimeGrid(painter, clip);
    painter->setFont(labelFont_);
    const QFontMetrics fm(labelFont_);
    for (size_t r = 0; r < gapsByRow_.size(); ++r)
        drawGaps(painter, r, clip);
    for (size_t r = 0; r < rows_.size(); ++r)
        drawRow(painter, r, clip, fm);
    if (highlight_)
        drawLinks(painter);
}

void GanttPlottable::drawLinks(QCPPainter* painter) const
{
    painter->setPen(QPen(QColor(15, 15, 15), 1.5));
    for (const GanttLink& l : links_) {
        const QPointF a(mKeyAxis->coordToPixel(l.key0), mValueAxis->coordToPixel(l.value0));
        const QPointF corner(mKeyAxis->coordToPixel(l.key1), a.y());
        const QPointF b(corner.x(), mValueAxis->coordToPixel(l.value1));
        painter->drawLine(QLineF(a, corner));
        painter->drawLine(QLineF(corner, b));
    }
}

// A row's idle gaps in the visible range; those under a pixel and a half wide are not worth a mark.
void GanttPlottable::drawGaps(QCPPainter* painter, size_t r, const QRect& clip) const
{
    const auto& row = gapsByRow_[r];
    if (row.empty())
        return;
    const QCPRange visible = mKeyAxis->range();
    auto [y0, y1] = yPixels(rows_[r].top, rows_[r].height);
    auto it = std::upper_bound(row.begin(), row.end(), visible.lower,
                               [](double k, const GanttBox& g) { return k < g.start; });
    if (it != row.begin())
        --it; // the gap running into the visible range
    for (; it != row.end() && it->start <= visible.upper; ++it) {
        double x0 = mKeyAxis->coordToPixel(it->start), x1 = mKeyAxis->coordToPixel(it->end);
        if (x0 > x1)
            std::swap(x0, x1);
        x0 = std::max(x0, double(clip.left()) - 2);
        x1 = std::min(x1, double(clip.right()) + 2);
        if (x1 - x0 < 1.5)
            continue;
        const QRectF box(x0, y0, x1 - x0, std::max(1.0, y1 - y0));
        painter->fillRect(box, gapStyle_.fill);
        painter->fillRect(box, QBrush(gapStyle_.hatchColour, gapStyle_.hatch));
    }
}

// Highlight mode: a critical box gets a thick dark outline, any other box a white veil.
void GanttPlottable::emphasise(QCPPainter* painter, const QRectF& box, bool critical) const
{
    if (!critical) {
        painter->fillRect(box, QColor(255, 255, 255, 170));
        return;
    }
    painter->setPen(QPen(QColor(15, 15, 15), 2.5));
    painter->setBrush(Qt::NoBrush);
    painter->drawRect(box.adjusted(0.5, 0.5, -1, -1));
}

// Stage bands behind everything, across the full visible width.
void GanttPlottable::drawBands(QCPPainter* painter, const QRect& clip) const
{
    for (const GanttBand& band : bands_) {
        auto [y0, y1] = yPixels(band.top, band.bottom - band.top);
        painter->fillRect(QRectF(clip.left(), y0, clip.width(), y1 - y0), band.colour);
    }
}

// Time grid over the bands (QCustomPlot's own grid layer would sit under them).
void GanttPlottable::drawTimeGrid(QCPPainter* painter, const QRect& clip) const
{
    painter->setPen(QPen(QColor(0, 0, 0, 45), 1, Qt::DotLine));
    for (double tick : mKeyAxis->tickVector()) {
        const double px = std::round(mKeyAxis->coordToPixel(tick));
        painter->drawLine(QLineF(px, clip.top(), px, clip.bottom()));
    }
}

// The row's boxes in the visible key range. Boxes narrower than 1.5 px become one pixel column each, and
// a column already painted in this row is skipped.
void GanttPlottable::drawRow(QCPPainter* painter, size_t r, const QRect& clip, const QFontMetrics& fm)
{
    const auto& row = byRow_[r];
    if (row.empty())
        return;
    const QCPRange visible = mKeyAxis->range();
    auto [y0, y1] = yPixels(rows_[r].top, rows_[r].height);
    const double h = std::max(1.0, y1 - y0);
    const bool roomForText = h >= fm.height() - 1;
    double lastPixel = -std::numeric_limits<double>::max(); // right edge of the last sub-pixel column drawn
    for (auto it = firstReaching(r, visible.lower); it != row.end() && it->start <= visible.upper; ++it) {
        if (it->end < visible.lower)
            continue;
        double x0 = mKeyAxis->coordToPixel(it->start), x1 = mKeyAxis->coordToPixel(it->end);
        if (x0 > x1)
            std::swap(x0, x1);
        x0 = std::max(x0, double(clip.left()) - 2);
        x1 = std::min(x1, double(clip.right()) + 2);
        const GanttStyle& st = styles_[std::clamp(it->style, 0, int(styles_.size()) - 1)];
        if (x1 - x0 < 1.5) {
            const double col = std::floor(x0);
            if (col < lastPixel)
                continue;
            QColor colour = st.hatch != Qt::NoBrush ? st.hatchColour : st.outline;
            if (highlight_)
                colour = it->critical ? QColor(15, 15, 15) : palette::tint(colour, 0.7);
            painter->fillRect(QRectF(col, y0, 1, h), colour);
            lastPixel = col + 1;
        } else {
            drawBox(painter, QRectF(x0, y0, x1 - x0, h), st, roomForText ? it->label : -1, fm, it->chunk);
            if (highlight_)
                emphasise(painter, QRectF(x0, y0, x1 - x0, h), it->critical);
            lastPixel = x1;
        }
        ++painted_;
    }
}

// One box of at least 1.5 px: fill, hatch, an outline from 4 px, and its label (>= 0) where it fits.
void GanttPlottable::drawBox(QCPPainter* painter, const QRectF& box, const GanttStyle& st, int label,
                             const QFontMetrics& fm, int chunk) const
{
    painter->fillRect(box, st.fill);
    if (st.hatch != Qt::NoBrush)
        painter->fillRect(box, QBrush(st.hatchColour, st.hatch));
    // Interleaved 1F1B: chunk c > 0 gets c thin bars along its bottom edge (chunk 0 none), so the passes of
    // one micro-batch through a stage's chunks tell apart at a glance.
    if (chunk > 0 && box.height() >= 8) {
        const double bar = std::max(1.0, box.height() / 10);
        for (int c = 0; c < chunk && (2 * c + 2) * bar < box.height() / 2; ++c)
            painter->fillRect(QRectF(box.left(), box.bottom() - (2 * c + 2) * bar, box.width(), bar), st.outline);
    }
    if (box.width() >= 4) {
        painter->setPen(QPen(st.outline, 1));
        painter->setBrush(Qt::NoBrush);
        painter->drawRect(box.adjusted(0, 0, -1, -1));
    }
    if (label < 0)
        return;
    const QString text = QString::number(label);
    if (fm.horizontalAdvance(text) + 4 <= box.width()) {
        painter->setPen(st.text);
        painter->drawText(box, Qt::AlignCenter, text);
    } else if (label >= 10 && box.width() >= 9) {
        // Two digits in a box made for one: a smaller font, so micro-batches past the ninth keep their
        // number where the colours have started over.
        QFont small = painter->font();
        small.setPixelSize(std::max(6, fm.height() * 3 / 4));
        if (QFontMetrics(small).horizontalAdvance(text) + 2 <= box.width()) {
            const QFont before = painter->font();
            painter->setFont(small);
            painter->setPen(st.text);
            painter->drawText(box, Qt::AlignCenter, text);
            painter->setFont(before);
        }
    }
}

} // namespace hetplan
