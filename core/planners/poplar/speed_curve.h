#pragma once
// One device type's batch→speed curve (Poplar's offline analysis): the natural cubic spline
// (core/cost/spline.h) through the profiled points (b, samples/s), and the step time it implies,
// T(b) = b / S(b), tabulated once for b = 1..mbs. Between two profiled sizes the speed is kept between
// their two speeds (the spline's overshoot past a measured peak would otherwise make an unmeasured size look
// best); where the spline would not give a positive speed, the straight line between the neighbouring knots
// is used instead; with one profiled point (mbs = 1) the time is that point's.
#include "profiling.h"

#include "core/cost/spline.h"

#include <memory>
#include <vector>

namespace hetplan::poplar {

class SpeedCurve {
public:
    explicit SpeedCurve(const DeviceProfile& profile);

    int maxMicroBatch() const { return int(time_.size()) - 1; }
    double stepSeconds(int b) const { return time_[size_t(b)]; } // b in [1, mbs]
    double speed(int b) const { return b / time_[size_t(b)]; }   // samples/s
    double speedAt(double b) const;                              // the curve itself, any b in [1, mbs]
    int peakMicroBatch() const { return peak_; }                 // smallest b with the highest speed
    // The largest b whose step (and every smaller one) takes at most t seconds; 0 when even b = 1 does not.
    int largestWithin(double t) const;

private:
    std::shared_ptr<const NaturalCubicSpline> spline_; // shared: curves are copied freely
    std::vector<double> knotX_, knotY_;
    std::vector<double> time_;   // index b; time_[0] = 0
    std::vector<double> rising_; // running maximum of time_, for largestWithin
    int peak_ = 1;
};

} // namespace hetplan::poplar
