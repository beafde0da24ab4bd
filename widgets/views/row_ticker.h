#pragma once
// Ticks at fixed positions with fixed labels (like QCPAxisTickerText) that drops labels which would
// overlap at the axis's current pixel size, keeping an evenly thinned subset (every k-th label).
#include <qcustomplot.h>

#include <QPointer>

#include <vector>

namespace hetplan {

class RowTicker : public QCPAxisTicker {
public:
    explicit RowTicker(QCPAxis* axis) : axis_(axis) {}
    void setTicks(std::vector<std::pair<double, QString>> ticks) { ticks_ = std::move(ticks); }
    const std::vector<std::pair<double, QString>>& ticks() const { return ticks_; }
    // The axis length in pixels the last labels were thinned for.
    double pixelsUsed() const { return pixelsUsed_; }

    void generate(const QCPRange& range, const QLocale& locale, QChar formatChar, int precision, QVector<double>& ticks,
                  QVector<double>* subTicks, QVector<QString>* tickLabels) override;

private:
    QPointer<QCPAxis> axis_;
    std::vector<std::pair<double, QString>> ticks_; // sorted by position
    int stride_ = 1;
    double pixelsUsed_ = -1;
};

} // namespace hetplan
