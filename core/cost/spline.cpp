#include "spline.h"

#include "core/base/errors.h"

#include <Eigen/Sparse>
#include <Eigen/SparseCholesky>

#include <algorithm>
#include <cmath>
#include <string>

namespace hetplan {

NaturalCubicSpline::NaturalCubicSpline(std::vector<double> x, std::vector<double> y)
    : x_(std::move(x)), y_(std::move(y))
{
    const size_t n = x_.size();
    if (n != y_.size())
        throw InputError("spline", "y",
                         "needs as many values as knots (" + std::to_string(n) + " knots, " +
                             std::to_string(y_.size()) + " values)");
    if (n < 2)
        throw InputError("spline", "x", "needs at least two points");
    for (size_t i = 0; i < n; ++i) {
        if (!std::isfinite(x_[i]))
            throw InputError("spline", "x", "knot " + std::to_string(i) + " is not a finite number");
        if (!std::isfinite(y_[i]))
            throw InputError("spline", "y", "value " + std::to_string(i) + " is not a finite number");
        if (i > 0 && !(x_[i] > x_[i - 1]))
            throw InputError("spline", "x", "knots must be strictly increasing (knot " + std::to_string(i) + ")");
    }

    // Second derivatives M_0..M_{n-1} with M_0 = M_{n-1} = 0. Continuity of the first derivative at each
    // interior knot i (1..n-2) gives, with h_i = x_{i+1} - x_i:
    //   h_{i-1} M_{i-1} + 2 (h_{i-1} + h_i) M_i + h_i M_{i+1} = 6 (d_i - d_{i-1}),  d_i = (y_{i+1}-y_i)/h_i.
    // The matrix is symmetric, tridiagonal and strictly diagonally dominant, hence positive definite:
    // a sparse Cholesky (LDLT) solves it in O(n).
    m_.assign(n, 0.0);
    const int k = int(n) - 2; // unknowns
    if (k <= 0)
        return;
    auto h = [&](size_t i) { return x_[i + 1] - x_[i]; };
    auto d = [&](size_t i) { return (y_[i + 1] - y_[i]) / h(i); };
    Eigen::SparseMatrix<double> A(k, k);
    std::vector<Eigen::Triplet<double>> entries;
    entries.reserve(size_t(3 * k));
    Eigen::VectorXd rhs(k);
    for (int r = 0; r < k; ++r) {
        const size_t i = size_t(r) + 1; // knot index
        entries.emplace_back(r, r, 2 * (h(i - 1) + h(i)));
        if (r > 0)
            entries.emplace_back(r, r - 1, h(i - 1));
        if (r + 1 < k)
            entries.emplace_back(r, r + 1, h(i));
        rhs[r] = 6 * (d(i) - d(i - 1));
    }
    A.setFromTriplets(entries.begin(), entries.end());
    Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> solver(A);
    if (solver.info() != Eigen::Success)
        throw InputError("spline", "x", "knot spacing makes the spline system singular");
    const Eigen::VectorXd m = solver.solve(rhs);
    for (int r = 0; r < k; ++r) {
        if (!std::isfinite(m[r]))
            throw InputError("spline", "x", "knot spacing too extreme for a stable spline");
        m_[size_t(r) + 1] = m[r];
    }
}

size_t NaturalCubicSpline::interval(double x) const
{
    // First knot strictly greater than x, minus one, kept inside [0, n-2].
    const auto it = std::upper_bound(x_.begin(), x_.end(), x);
    const size_t i = size_t(std::max<std::ptrdiff_t>(it - x_.begin() - 1, 0));
    return std::min(i, x_.size() - 2);
}

// On [x_i, x_{i+1}] with a = x_{i+1} - x, b = x - x_i:
//   S(x) = M_i a^3/(6h) + M_{i+1} b^3/(6h) + (y_i/h - M_i h/6) a + (y_{i+1}/h - M_{i+1} h/6) b.
double NaturalCubicSpline::operator()(double x) const
{
    if (x < x_.front())
        return y_.front() + derivative(x_.front()) * (x - x_.front());
    if (x > x_.back())
        return y_.back() + derivative(x_.back()) * (x - x_.back());
    const size_t i = interval(x);
    const double h = x_[i + 1] - x_[i], a = x_[i + 1] - x, b = x - x_[i];
    return m_[i] * a * a * a / (6 * h) + m_[i + 1] * b * b * b / (6 * h) + (y_[i] / h - m_[i] * h / 6) * a +
           (y_[i + 1] / h - m_[i + 1] * h / 6) * b;
}

double NaturalCubicSpline::derivative(double x) const
{
    // Linear extrapolation outside: the slope stays the end slope.
    const double xc = std::clamp(x, x_.front(), x_.back());
    const size_t i = interval(xc);
    const double h = x_[i + 1] - x_[i], a = x_[i + 1] - xc, b = xc - x_[i];
    return -m_[i] * a * a / (2 * h) + m_[i + 1] * b * b / (2 * h) - (y_[i] / h - m_[i] * h / 6) +
           (y_[i + 1] / h - m_[i + 1] * h / 6);
}

} // namespace hetplan
