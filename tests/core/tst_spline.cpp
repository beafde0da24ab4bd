// Natural cubic spline: knots, straight lines, hand-solved small systems, boundary conditions,
// smoothness, extrapolation and input validation.
#include "core/base/errors.h"
#include "core/cost/spline.h"

#include <QTest>

#include <cmath>
#include <limits>
#include <random>

using namespace hetplan;

namespace {
bool close(double a, double b, double tol = 1e-12) { return std::abs(a - b) <= tol * std::max(1.0, std::abs(b)); }

// Second derivative by central differences (step h, well inside one interval).
double secondDiff(const NaturalCubicSpline& s, double x, double h)
{
    return (s(x + h) - 2 * s(x) + s(x - h)) / (h * h);
}

void expectError(std::vector<double> x, std::vector<double> y, const char* field)
{
    try {
        NaturalCubicSpline s(std::move(x), std::move(y));
        QFAIL("expected InputError");
    } catch (const InputError& e) {
        QCOMPARE(QString::fromStdString(e.file()), QString("spline"));
        QCOMPARE(QString::fromStdString(e.field()), QString(field));
        QVERIFY(!e.reason().empty());
    }
}
} // namespace

class TestSpline : public QObject {
    Q_OBJECT
private slots:
    void interpolatesKnots()
    {
        std::mt19937 rng(7);
        std::uniform_real_distribution<double> step(0.1, 3.0), val(-50, 50);
        for (int n = 2; n <= 12; ++n) {
            std::vector<double> x, y;
            double at = -4;
            for (int i = 0; i < n; ++i) {
                at += step(rng);
                x.push_back(at);
                y.push_back(val(rng));
            }
            NaturalCubicSpline s(x, y);
            QCOMPARE(s.knots(), x);
            for (int i = 0; i < n; ++i)
                QVERIFY2(close(s(x[i]), y[i], 1e-12), qPrintable(QString("n=%1 i=%2").arg(n).arg(i)));
        }
    }

    void reproducesStraightLines()
    {
        // y = 3 - 2.5 x on uneven knots: all second derivatives solve to 0, so the spline is the line,
        // inside and outside the knots, with slope -2.5 everywhere.
        std::vector<double> x{-1, 0.5, 0.75, 2, 6, 6.5}, y;
        for (double v : x)
            y.push_back(3 - 2.5 * v);
        NaturalCubicSpline s(x, y);
        for (double m : s.secondDerivatives())
            QVERIFY(std::abs(m) < 1e-12);
        for (double t = -5; t <= 10; t += 0.37) {
            QVERIFY(close(s(t), 3 - 2.5 * t, 1e-12));
            QVERIFY(close(s.derivative(t), -2.5, 1e-12));
        }
    }

    void twoPointsAreTheLine()
    {
        // Through (1, 10) and (5, 2): slope (2-10)/(5-1) = -2.
        NaturalCubicSpline s({1, 5}, {10, 2});
        QCOMPARE(s(3.0), 6.0);
        QCOMPARE(s(0.0), 12.0); // extrapolated
        QCOMPARE(s(7.0), -2.0);
        QCOMPARE(s.derivative(2.0), -2.0);
        QCOMPARE(s.derivative(100.0), -2.0);
    }

    void threePointsHandSolved()
    {
        // x = 0,1,2, y = x^3 = 0,1,8, h = 1. One unknown M1 (M0 = M2 = 0):
        //   2(h0+h1) M1 = 6 (d1 - d0) = 6 ((8-1) - (1-0)) = 36  =>  M1 = 9.
        // On [0,1]: S = M1 x^3/6 + (y1 - M1/6) x = 1.5 x^3 - 0.5 x
        //   S(0.5) = 0.1875 - 0.25 = -0.0625 (the cubic itself gives 0.125: a natural spline is not exact)
        //   S'(0) = -0.5
        // On [1,2]: S = 1.5 (2-x)^3 - 0.5 (2-x) + 8 (x-1)
        //   S(1.5) = 0.1875 - 0.25 + 4 = 3.9375, S'(2) = 0 + 0.5 + 8 = 8.5, S'(1) = -4.5 + 0.5 + 8 = 4
        NaturalCubicSpline s({0, 1, 2}, {0, 1, 8});
        QVERIFY(close(s.secondDerivatives()[1], 9));
        QVERIFY(close(s(0.5), -0.0625));
        QVERIFY(close(s(1.5), 3.9375));
        QVERIFY(close(s.derivative(0), -0.5));
        QVERIFY(close(s.derivative(1), 4));
        QVERIFY(close(s.derivative(2), 8.5));
        // Linear extrapolation with the end slopes: S(3) = 8 + 8.5 = 16.5, S(-1) = 0 + (-0.5)(-1) = 0.5.
        QVERIFY(close(s(3), 16.5));
        QVERIFY(close(s(-1), 0.5));
        QVERIFY(close(s.derivative(-7), -0.5));
    }

    void fourPointsHandSolved()
    {
        // x = 0,1,2,3, y = x^3 = 0,1,8,27, h = 1. Unknowns M1, M2:
        //   4 M1 +   M2 = 6 ((8-1) - (1-0))  = 36
        //     M1 + 4 M2 = 6 ((27-8) - (8-1)) = 72
        //   => M1 = (4*36 - 72)/15 = 4.8, M2 = (4*72 - 36)/15 = 16.8
        // S(0.5) = M1 0.5^3/6 + (1 - M1/6) 0.5 = 0.1 + 0.1 = 0.2
        // S(1.5) = M1 0.125/6 + M2 0.125/6 + (1 - M1/6) 0.5 + (8 - M2/6) 0.5 = 0.1 + 0.35 + 0.1 + 2.6 = 3.15
        NaturalCubicSpline s({0, 1, 2, 3}, {0, 1, 8, 27});
        QVERIFY(close(s.secondDerivatives()[1], 4.8));
        QVERIFY(close(s.secondDerivatives()[2], 16.8));
        QVERIFY(close(s(0.5), 0.2));
        QVERIFY(close(s(1.5), 3.15));
    }

    void reproducesAKnownNaturalSpline()
    {
        // A known natural cubic spline with a knot at 1:
        //   S(x) = x^3                       on [0, 1]   (S'' = 6x,       S''(0) = 0)
        //   S(x) = -x^3 + 6x^2 - 6x + 2      on [1, 2]   (S'' = 12 - 6x,  S''(2) = 0)
        // At 1 both pieces give S = 1, S' = 3, S'' = 6, so S is C2 with zero end curvature: it is the natural
        // spline through its own values at any knots that include 0, 1, 2. Interpolating it at uneven knots
        // must give it back everywhere, not only at the knots.
        auto exact = [](double x) { return x <= 1 ? x * x * x : -x * x * x + 6 * x * x - 6 * x + 2; };
        auto curvature = [](double x) { return x <= 1 ? 6 * x : 12 - 6 * x; };
        std::vector<double> x{0, 0.25, 0.7, 1, 1.5, 1.8, 2}, y;
        for (double v : x)
            y.push_back(exact(v));
        NaturalCubicSpline s(x, y);
        for (size_t i = 0; i < x.size(); ++i)
            QVERIFY(close(s.secondDerivatives()[i], curvature(x[i]), 1e-12));
        for (double t = 0; t <= 2; t += 0.01)
            QVERIFY2(close(s(t), exact(t), 1e-12), qPrintable(QString::number(t)));
        QVERIFY(close(s.derivative(1), 3, 1e-12));
    }

    void unevenSpacingHandSolved()
    {
        // x = 0,1,3, y = 0,2,0: h0 = 1, h1 = 2, d0 = 2, d1 = -1.
        //   2 (1 + 2) M1 = 6 (-1 - 2) = -18  =>  M1 = -3
        // S(0.5) = M1 0.5^3/6 + (y1/h0 - M1 h0/6) 0.5 = -0.0625 + 2.5*0.5 = 1.1875
        // S(2) on [1,3]: M1 (3-2)^3/(6*2) + (y1/h1 - M1 h1/6)(3-2) = -0.25 + 2 = 1.75
        NaturalCubicSpline s({0, 1, 3}, {0, 2, 0});
        QVERIFY(close(s.secondDerivatives()[1], -3));
        QVERIFY(close(s(0.5), 1.1875));
        QVERIFY(close(s(2), 1.75));
    }

    void naturalEnds()
    {
        std::vector<double> x{1, 2, 4, 8, 16, 32}, y{10, 18, 30, 41, 47, 49}; // a saturating throughput curve
        NaturalCubicSpline s(x, y);
        QCOMPARE(s.secondDerivatives().front(), 0.0);
        QCOMPARE(s.secondDerivatives().back(), 0.0);
        // Finite differences just inside the ends: S'' is linear on each interval and 0 at the end,
        // so at distance 2h from the end it is at most |M1| * 2h / h_end — tiny.
        const double h = 1e-3;
        QVERIFY(std::abs(secondDiff(s, x.front() + 2 * h, h)) < 0.05);
        QVERIFY(std::abs(secondDiff(s, x.back() - 2 * h, h)) < 0.05);
        // Interior second derivative is far from 0 by comparison (the curve bends).
        QVERIFY(std::abs(secondDiff(s, 4.0, h)) > 0.5);
    }

    void firstDerivativeContinuousAtKnots()
    {
        std::vector<double> x{0, 0.3, 1.1, 2, 2.2, 5}, y{1, -2, 4, 0, 3, 3.5};
        NaturalCubicSpline s(x, y);
        const double e = 1e-7;
        for (size_t i = 1; i + 1 < x.size(); ++i) {
            const double left = s.derivative(x[i] - e), right = s.derivative(x[i] + e);
            QVERIFY2(std::abs(left - right) < 1e-4,
                     qPrintable(QString("knot %1: %2 vs %3").arg(i).arg(left).arg(right)));
            // and the derivative agrees with the slope of the curve itself
            const double fd = (s(x[i] + e) - s(x[i] - e)) / (2 * e);
            QVERIFY(std::abs(fd - s.derivative(x[i])) < 1e-5);
            // second derivative continuous too: one-sided differences match M_i
            const double h = 1e-4;
            QVERIFY(std::abs(secondDiff(s, x[i] - 2 * h, h) - s.secondDerivatives()[i]) <
                    0.05 * std::max(1.0, std::abs(s.secondDerivatives()[i])));
            QVERIFY(std::abs(secondDiff(s, x[i] + 2 * h, h) - s.secondDerivatives()[i]) <
                    0.05 * std::max(1.0, std::abs(s.secondDerivatives()[i])));
        }
    }

    void manyKnots()
    {
        // Sampled sin on 200 knots: the spline stays close to the function between knots.
        std::vector<double> x, y;
        for (int i = 0; i < 200; ++i) {
            x.push_back(i * 0.05);
            y.push_back(std::sin(i * 0.05));
        }
        NaturalCubicSpline s(x, y);
        for (double t = 0.5; t < 9.5; t += 0.0123)
            QVERIFY(std::abs(s(t) - std::sin(t)) < 1e-5);
    }

    void badInput()
    {
        const double nan = std::numeric_limits<double>::quiet_NaN();
        const double inf = std::numeric_limits<double>::infinity();
        expectError({}, {}, "x");
        expectError({1}, {1}, "x");
        expectError({1, 2, 3}, {1, 2}, "y");
        expectError({1, 1, 2}, {1, 2, 3}, "x"); // repeated knot
        expectError({1, 3, 2}, {1, 2, 3}, "x"); // decreasing
        expectError({1, nan, 3}, {1, 2, 3}, "x");
        expectError({1, 2, inf}, {1, 2, 3}, "x");
        expectError({1, 2, 3}, {1, -inf, 3}, "y");
        expectError({1, 2, 3}, {nan, 2, 3}, "y");
    }
};

QTEST_GUILESS_MAIN(TestSpline)
#include "tst_spline.moc"
