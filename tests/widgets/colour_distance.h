#pragma once
// How far apart two colours look (CIE ΔE76), for tests that colours stay distinguishable.
#include <QColor>

#include <array>
#include <cmath>

namespace hetplan::test {

// sRGB (0..255) → CIE L*a*b* (D65), written out from the standard formulas.
inline std::array<double, 3> toLab(const QColor& c)
{
    const auto linear = [](double v) { return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
    const double r = linear(c.red() / 255.0), g = linear(c.green() / 255.0), b = linear(c.blue() / 255.0);
    const double x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047;
    const double y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b;
    const double z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883;
    const auto f = [](double t) { return t > 216.0 / 24389 ? std::cbrt(t) : (24389.0 / 27 * t + 16) / 116; };
    return {116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))};
}

inline double deltaE76(const QColor& a, const QColor& b)
{
    const auto p = toLab(a), q = toLab(b);
    return std::sqrt((p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1]) + (p[2] - q[2]) * (p[2] - q[2]));
}

} // namespace hetplan::test
