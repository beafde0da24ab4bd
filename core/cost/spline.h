#pragma once
// Natural cubic spline through measured points, e.g. throughput against batch size (the batch→speed view
// and Poplar's fitted speed curve). Natural = zero second derivative at both end knots; the interior
// second derivatives come from one tridiagonal linear solve (Eigen). Outside the knots the curve
// continues as a straight line with the end slope, so extrapolation never turns around.
#include <cstddef>
#include <vector>

namespace hetplan {

class NaturalCubicSpline {
public:
    // Needs at least two points, strictly increasing finite x and finite y; otherwise throws
    // InputError("spline", "x" or "y", reason). Two points give the straight line through them.
    NaturalCubicSpline(std::vector<double> x, std::vector<double> y);

    double operator()(double x) const;
    double derivative(double x) const;
    const std::vector<double>& knots() const { return x_; }
    const std::vector<double>& values() const { return y_; }
    // Second derivative at each knot (0 at both ends by construction).
    const std::vector<double>& secondDerivatives() const { return m_; }

private:
    std::vector<double> x_, y_, m_;
    std::size_t interval(double x) const; // i with x_[i] <= x <= x_[i+1], clamped to the ends
};

} // namespace hetplan
