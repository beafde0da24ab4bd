#include "row_ticker.h"

#include <algorithm>
#include <cmath>

namespace hetplan {

void RowTicker::generate(const QCPRange& range, const QLocale&, QChar, int, QVector<double>& ticks,
                         QVector<double>* subTicks, QVector<QString>* tickLabels)
{
    ticks.clear();
    if (subTicks)
        subTicks->clear();
    if (tickLabels)
        tickLabels->clear();

    if (axis_)
        pixelsUsed_ = axis_->orientation() == Qt::Vertical ? axis_->axisRect()->height() : axis_->axisRect()->width();
    std::vector<int> visible;
    for (int i = 0; i < int(ticks_.size()); ++i)
        if (range.contains(ticks_[i].first))
            visible.push_back(i);
    if (visible.empty())
        return;

    // Smallest gap between neighbouring ticks in pixels against the label's height (or width on a
    // horizontal axis) decides how many labels to skip.
    stride_ = 1;
    if (axis_ && visible.size() > 1) {
        const bool vertical = axis_->orientation() == Qt::Vertical;
        const double pixels = vertical ? axis_->axisRect()->height() : axis_->axisRect()->width();
        const QFontMetrics fm(axis_->tickLabelFont());
        double need = fm.height() * 1.05;
        if (!vertical) {
            need = 0;
            for (int i : visible)
                need = std::max<double>(need, fm.horizontalAdvance(ticks_[i].second) + 8);
        }
        double minGap = std::numeric_limits<double>::max();
        for (size_t k = 1; k < visible.size(); ++k)
            minGap = std::min(minGap, ticks_[visible[k]].first - ticks_[visible[k - 1]].first);
        const double gapPixels = pixels > 0 ? minGap / range.size() * pixels : 0;
        if (gapPixels > 0 && gapPixels < need)
            stride_ = int(std::ceil(need / gapPixels));
        else if (gapPixels <= 0)
            stride_ = std::max(1, int(visible.size() / 8));
    }
    for (size_t k = 0; k < visible.size(); k += stride_) {
        ticks.push_back(ticks_[visible[k]].first);
        if (tickLabels)
            tickLabels->push_back(ticks_[visible[k]].second);
    }
}

} // namespace hetplan
