#include "speed_curve.h"

#include <algorithm>
#include <cmath>

namespace hetplan::poplar {

SpeedCurve::SpeedCurve(const DeviceProfile& profile)
{
    for (const ProfiledPoint& p : profile.points)
        if (p.microBatch >= 1 && p.seconds > 0) {
            knotX_.push_back(p.microBatch);
            knotY_.push_back(p.microBatch / p.seconds);
        }
    if (knotX_.size() >= 2)
        spline_ = std::make_shared<const NaturalCubicSpline>(knotX_, knotY_);
    const int mbs = std::max(1, profile.maxMicroBatch);
    time_.assign(size_t(mbs) + 1, 0.0);
    rising_.assign(size_t(mbs) + 1, 0.0);
    double best = -1;
    for (int b = 1; b <= mbs; ++b) {
        const double s = speedAt(b);
        time_[size_t(b)] = b / s;
        rising_[size_t(b)] = std::max(rising_[size_t(b) - 1], time_[size_t(b)]);
        if (s > best) {
            best = s;
            peak_ = b;
        }
    }
}

double SpeedCurve::speedAt(double b) const
{
    if (knotX_.empty())
        return 1.0; // no profile: one sample per second (never used: profiling always runs b = 1)
    if (!spline_)
        return knotY_.front();
    const auto it = std::upper_bound(knotX_.begin(), knotX_.end(), b);
    const size_t i = std::clamp<size_t>(size_t(it - knotX_.begin()), 1, knotX_.size() - 1);
    const double s = (*spline_)(b);
    if (s > 0 && std::isfinite(s)) {
        // Between two measured sizes the speed stays between their speeds: a natural spline overshoots
        // past a measured peak, and the allocation would then favour a size nobody measured.
        const double lo = std::min(knotY_[i - 1], knotY_[i]), hi = std::max(knotY_[i - 1], knotY_[i]);
        return std::clamp(s, lo, hi);
    }
    const double w = (b - knotX_[i - 1]) / (knotX_[i] - knotX_[i - 1]);
    return knotY_[i - 1] + w * (knotY_[i] - knotY_[i - 1]);
}

int SpeedCurve::largestWithin(double t) const
{
    // rising_ is non-decreasing: the last index with rising_ <= t.
    const auto it = std::upper_bound(rising_.begin() + 1, rising_.end(), t);
    return int(it - rising_.begin()) - 1;
}

} // namespace hetplan::poplar
