#pragma once
// Fixtures shared by the plan-view tests (tst_views: stage map, curves, comparison, exports; tst_gantt_view:
// the Gantt chart): real plans on the AMP heterogeneous cluster, pixel statistics of a rendered plot, hover
// texts and snapshots for HETPLAN_SCREENSHOTS.
#include "core/cost/costmodel.h"
#include "core/io/examples.h"
#include "core/planners/planner.h"
#include "core/sim/simulator.h"
#include "widgets/common/palette.h"
#include "widgets/views/comparison_view.h"
#include "widgets/views/curves_view.h"
#include "widgets/views/gantt_plottable.h"
#include "widgets/views/gantt_view.h"
#include "widgets/views/stage_map_view.h"

#include <qcustomplot.h>

#include <QElapsedTimer>
#include <QImage>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>
#include <QToolBar>
#include <QToolTip>

#include <set>

namespace hetplan::viewtest {

inline PlanRequest ampRequest(int gbs = 32)
{
    PlanRequest r;
    r.cluster = loadCluster("example:amp-het-cluster");
    r.model = loadModel("example:gpt2-amp");
    r.job.globalBatchSize = gbs;
    return r;
}

inline Plan plan(const std::string& planner, PlanRequest req)
{
    Progress progress;
    return runPlanner(planner, req, progress);
}

inline SimResult timeline(const Plan& p)
{
    const CostModel costs(p.model, p.job, p.profile);
    SimOptions o;
    o.timeline = true;
    return simulate(p, costs, o);
}

struct PixelStats {
    int total = 0;
    int nonWhite = 0;  // differs from the white background
    int saturated = 0; // clearly coloured (not grey), i.e. data drawn with the palette
    int distinct = 0;  // distinct colours (5 bits per channel)
    int reddish = 0;   // close to the over-capacity red
};

// Statistics of the plot's axis rect area(s) in a grab of the whole view.
inline PixelStats plotAreaStats(PlotView& view)
{
    const QImage img = view.grab().toImage().convertToFormat(QImage::Format_RGB32);
    PixelStats s;
    std::set<QRgb> colours;
    const QColor red = palette::overCapacity();
    for (QCPAxisRect* rect : view.plot()->axisRects()) {
        const QRect r = rect->rect().translated(view.plot()->mapTo(&view, QPoint(0, 0)));
        for (int y = std::max(0, r.top()); y <= std::min(img.height() - 1, r.bottom()); ++y)
            for (int x = std::max(0, r.left()); x <= std::min(img.width() - 1, r.right()); ++x) {
                const QColor c = img.pixelColor(x, y);
                ++s.total;
                if (c.rgb() != qRgb(255, 255, 255))
                    ++s.nonWhite;
                if (c.hsvSaturation() > 80 && c.value() > 60)
                    ++s.saturated;
                if (std::abs(c.red() - red.red()) < 30 && std::abs(c.green() - red.green()) < 30 &&
                    std::abs(c.blue() - red.blue()) < 30)
                    ++s.reddish;
                colours.insert(qRgb(c.red() & 0xF8, c.green() & 0xF8, c.blue() & 0xF8));
            }
    }
    s.distinct = int(colours.size());
    return s;
}

inline void snapshot(PlotView& view, const QString& name)
{
    const QByteArray dir = qgetenv("HETPLAN_SCREENSHOTS");
    if (dir.isEmpty())
        return;
    const QString base = QString::fromLocal8Bit(dir) + QLatin1Char('/') + name;
    QVERIFY(view.exportPng(base + QStringLiteral(".png"), 1000, 600));
    QVERIFY(view.exportPng(base + QStringLiteral("-small.png"), 640, 400));
}

// Every GPU on a row of its own (by default identical replicas share one; tst_large_views tests that).
inline GanttLayoutOptions everyReplica()
{
    GanttLayoutOptions o;
    o.mergeIdentical = false;
    return o;
}

inline void showAt1000x600(QWidget& w)
{
    w.resize(1000, 600);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
}

// Hover texts found on a grid of pixels over the plot.
inline QStringList hoverTexts(GanttView& view, int step = 3)
{
    QStringList out;
    const QRect r = view.plot()->axisRect()->rect();
    for (int y = r.top(); y < r.bottom(); y += step)
        for (int x = r.left(); x < r.right(); x += step) {
            const QString t = view.describeAt(QPointF(x, y));
            if (!t.isEmpty())
                out << t;
        }
    return out;
}

// uniform, AMP and data-parallel (ZeRO) plans of gpt2-amp on amp-het-cluster, with their timelines.
struct ExamplePlans {
    Plan uniform, amp, zero;
    SimResult uniformSim, ampSim, zeroSim;
    void load()
    {
        uniform = plan("uniform", ampRequest());
        amp = plan("amp", ampRequest());
        zero = plan("data-parallel", ampRequest());
        uniformSim = timeline(uniform);
        ampSim = timeline(amp);
        zeroSim = timeline(zero);
        QVERIFY(!uniformSim.events.empty());
        QVERIFY(!ampSim.events.empty());
        QVERIFY(zero.zero.has_value());
        QVERIFY(!zeroSim.events.empty());
    }
};

} // namespace hetplan::viewtest
