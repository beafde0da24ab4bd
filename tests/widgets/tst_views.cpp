// The plan views (Gantt, stage map, batch→speed curves, comparison): real plans from the uniform, AMP and
// data-parallel planners on the AMP heterogeneous cluster, rendered offscreen at 1000×600 and checked
// pixel-wise (enough coloured pixels, several distinct colours), hover texts, export files, the empty
// placeholder, and the time to set and draw large timelines.
// Set HETPLAN_SCREENSHOTS=/some/dir to keep a PNG of every view for a visual check.
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

using namespace hetplan;

namespace {

PlanRequest ampRequest(int gbs = 32)
{
    PlanRequest r;
    r.cluster = loadCluster("example:amp-het-cluster");
    r.model = loadModel("example:gpt2-amp");
    r.job.globalBatchSize = gbs;
    return r;
}

Plan plan(const std::string& planner, PlanRequest req)
{
    Progress progress;
    return runPlanner(planner, req, progress);
}

SimResult timeline(const Plan& p)
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
PixelStats plotAreaStats(PlotView& view)
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

void snapshot(PlotView& view, const QString& name)
{
    const QByteArray dir = qgetenv("HETPLAN_SCREENSHOTS");
    if (dir.isEmpty())
        return;
    const QString base = QString::fromLocal8Bit(dir) + QLatin1Char('/') + name;
    QVERIFY(view.exportPng(base + QStringLiteral(".png"), 1000, 600));
    QVERIFY(view.exportPng(base + QStringLiteral("-small.png"), 640, 400));
}

// Every GPU on a row of its own (by default identical replicas share one; tst_large_views tests that).
GanttLayoutOptions everyReplica()
{
    GanttLayoutOptions o;
    o.mergeIdentical = false;
    return o;
}

void showAt1000x600(QWidget& w)
{
    w.resize(1000, 600);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
}

// Hover texts found on a grid of pixels over the plot.
QStringList hoverTexts(GanttView& view, int step = 3)
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

} // namespace

class TestViews : public QObject {
    Q_OBJECT
    Plan uniform_, amp_, zero_;
    SimResult uniformSim_, ampSim_, zeroSim_;

private slots:
    void initTestCase()
    {
        uniform_ = plan("uniform", ampRequest());
        amp_ = plan("amp", ampRequest());
        zero_ = plan("data-parallel", ampRequest());
        uniformSim_ = timeline(uniform_);
        ampSim_ = timeline(amp_);
        zeroSim_ = timeline(zero_);
        QVERIFY(!uniformSim_.events.empty());
        QVERIFY(!ampSim_.events.empty());
        QVERIFY(zero_.zero.has_value());
        QVERIFY(!zeroSim_.events.empty());
    }

    void emptyViewsShowPlaceholder()
    {
        GanttView gantt;
        StageMapView map;
        CurvesView curves;
        ComparisonView comparison;
        QTemporaryDir dir;
        for (PlotView* v : std::initializer_list<PlotView*>{&gantt, &map, &curves, &comparison}) {
            showAt1000x600(*v);
            QVERIFY(v->isEmpty());
            QVERIFY2(v->placeholderText().startsWith(QStringLiteral("Run ")), qPrintable(v->placeholderText()));
            // Nothing to export while empty.
            QVERIFY(!v->exportPng(dir.filePath(QStringLiteral("empty.png"))));
            QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("empty.png"))));
            // The placeholder is drawn: some dark text pixels on white, nothing coloured.
            const QImage img = v->grab().toImage();
            int dark = 0, coloured = 0;
            for (int y = 0; y < img.height(); ++y)
                for (int x = 0; x < img.width(); ++x) {
                    const QColor c = img.pixelColor(x, y);
                    dark += c.value() < 180;
                    coloured += c.hsvSaturation() > 80 && c.value() > 60;
                }
            QVERIFY(dark > 50);
            QVERIFY(coloured < 50);
        }
        // Clearing a filled view brings the placeholder back.
        gantt.setPlan(amp_, ampSim_);
        QVERIFY(!gantt.isEmpty());
        gantt.clear();
        QVERIFY(gantt.isEmpty());
        QCOMPARE(gantt.eventCount(), size_t(0));
        // A result without a timeline cannot be drawn: placeholder says why.
        SimResult noEvents = ampSim_;
        noEvents.events.clear();
        gantt.setPlan(amp_, noEvents);
        QVERIFY(gantt.isEmpty());
        QVERIFY(gantt.placeholderText().contains(QStringLiteral("timeline")));
    }

    void ganttPipelinePlans()
    {
        for (auto [p, sim, name] :
             {std::tuple{&uniform_, &uniformSim_, "uniform"}, std::tuple{&amp_, &ampSim_, "amp"}}) {
            GanttView view;
            showAt1000x600(view);
            view.setLayoutOptions(everyReplica());
            view.setPlan(*p, *sim);
            QVERIFY(!view.isEmpty());
            QCOMPARE(view.eventCount(), sim->events.size());
            // One compute row per GPU the plan uses.
            QCOMPARE(view.rowCount(), int(p->usedGpus().size()));
            QCoreApplication::processEvents();
            const PixelStats s = plotAreaStats(view);
            qInfo("%s gantt: %d/%d non-white, %d saturated, %d colours", name, s.nonWhite, s.total, s.saturated,
                  s.distinct);
            QVERIFY(s.nonWhite > s.total / 4);
            QVERIFY(s.saturated > s.total / 20);
            QVERIFY(s.distinct >= 10); // ≥ 5 micro-batch colours in two tints, greys, bands
            snapshot(view, QStringLiteral("gantt-%1").arg(name));

            // Hovering finds forward, backward and communication events with their stage and GPU.
            const QStringList tips = hoverTexts(view);
            QVERIFY(!tips.isEmpty());
            bool forward = false, backward = false, comm = false;
            for (const QString& t : tips) {
                forward |= t.startsWith(QStringLiteral("<b>forward · micro-batch"));
                backward |= t.startsWith(QStringLiteral("<b>backward · micro-batch"));
                comm |= t.contains(QStringLiteral("send")) || t.contains(QStringLiteral("all-reduce"));
                QVERIFY(t.contains(QStringLiteral("GPU ")));
                QVERIFY(t.contains(QStringLiteral("duration")));
            }
            QVERIFY(forward);
            QVERIFY(backward);
            QVERIFY(comm);
            QVERIFY(tips.first().contains(QStringLiteral("stage ")));

            // Zoom is horizontal only and clamped to the iteration (plus a small margin).
            QCPAxis* x = view.plot()->xAxis;
            const QCPRange y0 = view.plot()->yAxis->range();
            const double span = x->range().upper; // reset range = 1.01 × iteration
            x->setRange(-10 * span, 10 * span);
            QVERIFY(x->range().lower >= -0.03 * span);
            QVERIFY(x->range().upper <= 1.03 * span);
            // Zoomed into 5 % of the time, fewer boxes are painted than for the whole iteration.
            view.resetZoom();
            const size_t full = view.lastPaintedBoxes();
            x->setRange(span * 0.3, span * 0.35);
            view.plot()->replot();
            QVERIFY(view.lastPaintedBoxes() < full);
            QCOMPARE(view.plot()->yAxis->range(), y0);
        }
    }

    void ganttCriticalPath()
    {
        // AMP's plan on the AMP cluster, identical replicas merged (the default).
        GanttView view;
        showAt1000x600(view);
        view.setPlan(amp_, ampSim_);
        QAction* toggle = nullptr;
        for (QAction* a : view.toolBar()->actions())
            if (a->text() == QStringLiteral("Critical path"))
                toggle = a;
        QVERIFY(toggle && toggle->isCheckable() && !toggle->isChecked());
        QCOMPARE(view.layout().criticalBars, 0);
        // Idle gaps are shaded whether or not the path is shown, and hovering one says so.
        QVERIFY(!view.layout().gaps.empty());
        QCOMPARE(view.plottable()->gapCount(), view.layout().gaps.size());
        QCoreApplication::processEvents();
        const PixelStats plain = plotAreaStats(view);
        QVERIFY(hoverTexts(view).filter(QStringLiteral("<b>idle</b>")).size() > 0);

        toggle->trigger();
        QVERIFY(view.criticalPathShown());
        QVERIFY(view.plottable()->highlight());
        // The marked bars run from the start of the iteration to its end; they are a minority.
        const GanttLayout& l = view.layout();
        QVERIFY(l.criticalBars > 0 && l.criticalBars < int(l.bars.size()));
        double first = 1e300, last = 0;
        for (const GanttBarLayout& b : l.bars)
            if (b.critical) {
                first = std::min(first, ampSim_.events[size_t(b.event)].start);
                last = std::max(last, ampSim_.events[size_t(b.event)].end);
            }
        QVERIFY(std::abs(first) < 1e-12);
        QVERIFY(std::abs(last - ampSim_.iterationSeconds) < 1e-9 * ampSim_.iterationSeconds);
        // Everything else is dimmed: fewer strongly coloured pixels than without the highlight.
        QCoreApplication::processEvents();
        const PixelStats lit = plotAreaStats(view);
        qInfo("critical path: %d of %zu bars; saturated %d → %d", l.criticalBars, l.bars.size(), plain.saturated,
              lit.saturated);
        QVERIFY(lit.saturated < plain.saturated * 3 / 4);
        QVERIFY(hoverTexts(view).filter(QStringLiteral("on the critical path")).size() > 0);
        snapshot(view, QStringLiteral("critical-path"));
        // The toggle survives a new plan; a ZeRO plan's chain (through its collectives' last members) also
        // spans the iteration. Off again clears the marks.
        view.setPlan(zero_, zeroSim_);
        QVERIFY(view.layout().criticalBars > 0);
        first = 1e300, last = 0;
        for (const GanttBarLayout& b : view.layout().bars)
            if (b.critical) {
                first = std::min(first, zeroSim_.events[size_t(b.event)].start);
                last = std::max(last, zeroSim_.events[size_t(b.event)].end);
            }
        QVERIFY(std::abs(first) < 1e-12);
        QVERIFY(std::abs(last - zeroSim_.iterationSeconds) < 1e-9 * zeroSim_.iterationSeconds);
        view.setPlan(uniform_, uniformSim_);
        QVERIFY(view.layout().criticalBars > 0);
        toggle->trigger();
        QCOMPARE(view.layout().criticalBars, 0);
        QVERIFY(!view.plottable()->highlight());
    }

    void ganttZeroPlan()
    {
        GanttView view;
        showAt1000x600(view);
        view.setPlan(zero_, zeroSim_);
        QVERIFY(!view.isEmpty());
        // By default GPUs with the same device and batch split share a row: one per kind.
        std::set<std::tuple<std::string, int, int, int>> kinds;
        for (const ZeroGpu& z : zero_.zero->gpus)
            kinds.insert({zero_.cluster.nodeOf(z.gpu).deviceType, z.microBatchSize, z.accumulationSteps,
                          z.lastMicroBatchSize});
        QCOMPARE(view.rowCount(), int(kinds.size()));
        // One by one, rows are the plan's GPUs.
        view.setLayoutOptions(everyReplica());
        QCOMPARE(view.rowCount(), int(zero_.zero->gpus.size()));
        QCOMPARE(view.eventCount(), zeroSim_.events.size());
        QCoreApplication::processEvents();
        const PixelStats s = plotAreaStats(view);
        QVERIFY(s.nonWhite > s.total / 4);
        QVERIFY(s.distinct >= 6);
        bool collective = false;
        for (const QString& t : hoverTexts(view, 4))
            collective |= t.contains(QStringLiteral("all-reduce")) || t.contains(QStringLiteral("reduce-scatter")) ||
                          t.contains(QStringLiteral("all-gather"));
        QVERIFY(collective);
        snapshot(view, QStringLiteral("gantt-zero"));
    }

    void ganttLargePlans()
    {
        // Uniform planner, 4 stages × 4 replicas on 16 GPUs; micro-batches per replica = gbs / 4.
        for (int microBatches : {64, 256, 4096}) {
            PlanRequest req = ampRequest(4 * microBatches);
            req.options["pp"] = "4";
            const Plan p = plan("uniform", req);
            QCOMPARE(int(p.pipelines.at(0).stages.size()), 4);
            QCOMPARE(p.pipelines[0].microBatches, microBatches);
            QElapsedTimer simTimer;
            simTimer.start();
            const SimResult sim = timeline(p);
            const qint64 simMs = simTimer.elapsed();

            GanttView view;
            showAt1000x600(view);
            view.setLayoutOptions(everyReplica());
            QElapsedTimer t;
            t.start();
            view.setPlan(p, sim); // builds rows and boxes, then replots
            const qint64 setMs = t.elapsed();
            t.restart();
            view.plot()->xAxis->setRange(view.plot()->xAxis->range().upper * 0.4,
                                         view.plot()->xAxis->range().upper * 0.45);
            view.plot()->replot(QCustomPlot::rpImmediateRefresh);
            const qint64 zoomMs = t.elapsed();
            t.restart();
            view.resetZoom();
            const qint64 fullMs = t.elapsed();
            qInfo("pp 4 x %d micro-batches: %zu events (simulate %lld ms), setPlan+replot %lld ms, zoomed replot %lld "
                  "ms, "
                  "full replot %lld ms (%zu boxes painted)",
                  microBatches, view.eventCount(), simMs, setMs, zoomMs, fullMs, view.lastPaintedBoxes());
            QCOMPARE(view.eventCount(), sim.events.size());
            // Sub-pixel boxes collapse: the full view paints at most a few boxes per pixel column and row.
            QVERIFY(view.lastPaintedBoxes() <= size_t(2 * view.rowCount() * 2 * 1000));
            const PixelStats s = plotAreaStats(view);
            QVERIFY(s.saturated > s.total / 20);
            if (microBatches == 64)
                snapshot(view, QStringLiteral("gantt-64mb"));
        }
    }

    void stageMapPipelineAndZero()
    {
        for (auto [p, sim, name] : {std::tuple{&uniform_, &uniformSim_, "uniform"}, std::tuple{&amp_, &ampSim_, "amp"},
                                    std::tuple{&zero_, &zeroSim_, "zero"}}) {
            StageMapView view;
            showAt1000x600(view);
            view.setPlan(*p, *sim);
            QVERIFY(!view.isEmpty());
            QCOMPARE(view.cellCount(), p->cluster.gpuCount());
            QCoreApplication::processEvents();
            const PixelStats s = plotAreaStats(view);
            qInfo("%s stage map: %d/%d non-white, %d saturated, %d colours", name, s.nonWhite, s.total, s.saturated,
                  s.distinct);
            QVERIFY(s.nonWhite > s.total / 3);
            QVERIFY(s.saturated > s.total / 10);
            QVERIFY(s.distinct >= 4);
            snapshot(view, QStringLiteral("stagemap-%1").arg(name));
            // Cell texts: stage and layers for pipelines, batch for ZeRO, device and memory everywhere used.
            for (int g : p->usedGpus()) {
                const QString t = view.cellText(g);
                QVERIFY2(t.contains(QString::fromStdString(p->cluster.gpuName(g))), qPrintable(t));
                QVERIFY2(t.contains(QStringLiteral("peak memory")), qPrintable(t));
                if (p->zero)
                    QVERIFY2(t.contains(QStringLiteral("micro-batch")), qPrintable(t));
                else
                    QVERIFY2(t.contains(QStringLiteral("stage")) && t.contains(QStringLiteral("layers [")),
                             qPrintable(t));
            }
        }
        // A stage map where every stage's layer range appears in its cells' text.
        StageMapView view;
        view.setPlan(amp_, ampSim_);
        for (size_t s = 0; s < amp_.pipelines[0].stages.size(); ++s) {
            const Stage& st = amp_.pipelines[0].stages[s];
            const QString range = QStringLiteral("[%1,%2)").arg(st.firstLayer).arg(st.endLayer);
            for (int g : st.gpus)
                QVERIFY(view.cellText(g).contains(range));
        }
    }

    void bigClusterViews()
    {
        // hap-testbed: 8 nodes × 8 GPUs. 64 Gantt rows do not leave room for 64 labels at 600 px, so the
        // row labels are thinned (every k-th), and the 8 × 8 stage map still draws every cell.
        PlanRequest req = ampRequest(128);
        req.cluster = loadCluster("example:hap-testbed");
        req.options["pp"] = "4";
        const Plan p = plan("uniform", req);
        const SimResult sim = timeline(p);
        GanttView gantt;
        showAt1000x600(gantt);
        gantt.setLayoutOptions(everyReplica());
        gantt.setPlan(p, sim);
        QCOMPARE(gantt.rowCount(), 64);
        QCoreApplication::processEvents();
        QVERIFY(plotAreaStats(gantt).saturated > 1000);
        const QVector<double> ticks = gantt.plot()->yAxis->tickVector();
        QVERIFY2(ticks.size() > 4 && ticks.size() < 64, qPrintable(QString::number(ticks.size())));
        // Drawn labels do not overlap: neighbouring ticks at least one text line apart.
        const QFontMetrics fm(gantt.plot()->yAxis->tickLabelFont());
        for (int i = 1; i < ticks.size(); ++i)
            QVERIFY(std::abs(gantt.plot()->yAxis->coordToPixel(ticks[i]) -
                             gantt.plot()->yAxis->coordToPixel(ticks[i - 1])) >= fm.height());
        snapshot(gantt, QStringLiteral("gantt-hap"));

        StageMapView map;
        showAt1000x600(map);
        map.setPlan(p, sim);
        QCOMPARE(map.cellCount(), 64);
        QCoreApplication::processEvents();
        QVERIFY(plotAreaStats(map).distinct >= 5);
        snapshot(map, QStringLiteral("stagemap-hap"));
    }

    void stageMapMarksOverCapacity()
    {
        // Pretend GPU 0 peaked at 40 GiB: it is over any catalog V100/T4 capacity and drawn red.
        SimResult sim = uniformSim_;
        const int g = uniform_.usedGpus().front();
        sim.peakMemoryBytes[g] = 40.0 * 1073741824.0;
        StageMapView view;
        showAt1000x600(view);
        view.setPlan(uniform_, sim);
        QCOMPARE(view.overCapacityCount(), 1);
        QVERIFY(view.cellText(g).contains(QStringLiteral("over capacity")));
        QCoreApplication::processEvents();
        QVERIFY(plotAreaStats(view).reddish > 100);
        StageMapView fine;
        showAt1000x600(fine);
        fine.setPlan(uniform_, uniformSim_);
        QCoreApplication::processEvents();
        QCOMPARE(fine.overCapacityCount(), 0);
        snapshot(view, QStringLiteral("stagemap-over"));
    }

    void curvesAnalyticAndZeroMarkers()
    {
        const CostModel costs(zero_.model, zero_.job, zero_.profile);
        CurvesView view;
        showAt1000x600(view);
        view.setData(zero_.cluster, costs, &zero_);
        QVERIFY(!view.isEmpty());
        // amp-het-cluster has two device types: one curve each, analytic sizes 1..64.
        QCOMPARE(int(view.curves().size()), 2);
        for (const CurvesView::Curve& c : view.curves()) {
            QVERIFY(!c.measured);
            QCOMPARE(c.sizes, (std::vector<double>{1, 2, 4, 8, 16, 32, 64}));
            // The analytic efficiency b / (b + h) rises with b, so samples/s must too.
            for (size_t i = 1; i < c.samplesPerSecond.size(); ++i)
                QVERIFY(c.samplesPerSecond[i] > c.samplesPerSecond[i - 1]);
        }
        // A V100 (125 TFLOP/s fp16) trains faster than a T4 (65) at every size.
        const auto& a = view.curves()[0];
        const auto& b = view.curves()[1];
        const auto& v100 = a.device.rfind("V100", 0) == 0 ? a : b;
        const auto& t4 = &v100 == &a ? b : a;
        for (size_t i = 0; i < v100.sizes.size(); ++i)
            QVERIFY(v100.samplesPerSecond[i] > t4.samplesPerSecond[i]);
        QVERIFY(view.markerCount() >= 1);
        QCoreApplication::processEvents();
        const PixelStats s = plotAreaStats(view);
        QVERIFY(s.saturated > 300);
        QVERIFY(s.distinct >= 4);
        snapshot(view, QStringLiteral("curves-zero"));

        // With a pipeline plan there is one marker (the plan's micro-batch line).
        CurvesView withPipeline;
        withPipeline.setData(amp_.cluster, CostModel(amp_.model, amp_.job, amp_.profile), &amp_);
        QCOMPARE(withPipeline.markerCount(), 1);
    }

    void curvesFromAPoplarPlan()
    {
        // A Poplar plan brings its own curves: the sizes its profiling ran, the sizes that did not fit, the
        // chosen micro-batch of every GPU (one diamond per device type and size).
        PlanRequest req;
        req.cluster = exampleCluster("poplar-c");
        req.model = buildExampleModel("llama-0.5b");
        req.job.globalBatchSize = 256;
        req.job.sequenceLength = 2048;
        const Plan poplar = plan("poplar", req);
        CurvesView view;
        showAt1000x600(view);
        view.setData(poplar.cluster, CostModel(poplar.model, poplar.job, poplar.profile), &poplar);
        QVERIFY(view.showsPlannerCurves());
        const QJsonArray devices = poplar.details.at("poplar").value("devices").toArray();
        QCOMPARE(int(view.curves().size()), devices.size());
        int oom = 0, chosen = 0;
        for (int i = 0; i < devices.size(); ++i) {
            const QJsonObject d = devices[i].toObject();
            oom += d.value("out_of_memory").toArray().size();
            chosen += d.value("chosen").toArray().size();
            QCOMPARE(int(view.curves()[size_t(i)].sizes.size()), d.value("profiled").toArray().size());
        }
        QVERIFY(oom > 0);
        QCOMPARE(view.outOfMemoryMarkCount(), oom);
        QCOMPARE(view.markerCount(), chosen);
        std::set<std::pair<std::string, int>> distinct;
        for (const ZeroGpu& z : poplar.zero->gpus)
            distinct.insert({poplar.cluster.nodeOf(z.gpu).deviceType, z.microBatchSize});
        QCOMPARE(view.markerCount(), int(distinct.size()));
        QCoreApplication::processEvents();
        const PixelStats s = plotAreaStats(view);
        QVERIFY(s.saturated > 300);
        snapshot(view, QStringLiteral("curves-poplar"));
        // A plan without the section falls back to the cost model's curves.
        Plan plain = poplar;
        plain.details.clear();
        view.setData(plain.cluster, CostModel(plain.model, plain.job, plain.profile), &plain);
        QVERIFY(!view.showsPlannerCurves());
        QCOMPARE(view.outOfMemoryMarkCount(), 0);
    }

    void curvesUseMeasuredSizes()
    {
        // Measured V100 timings at micro-batches 1, 3 and 6: every layer 1 ms forward, 2 ms backward per
        // sample. Whole model (L layers) at b: step = L × 3 ms × b, so samples/s = 1 / (L × 3 ms) at every b.
        // Between measured sizes the profile interpolates linearly, outside it scales with b.
        const Cluster cluster = loadCluster("example:amp-het-cluster");
        const ModelSpec model = loadModel("example:gpt2-amp");
        const int L = model.layerCount();
        Profile prof;
        prof.model = model.name;
        prof.source = "test";
        std::string v100;
        for (const Node& n : cluster.nodes)
            if (n.deviceType.rfind("V100", 0) == 0)
                v100 = n.deviceType;
        QVERIFY(!v100.empty());
        for (int mbs : {1, 3, 6})
            prof.set({v100, 1, mbs}, std::vector<LayerTiming>(L, LayerTiming{1e-3 * mbs, 2e-3 * mbs, 0, -1}));
        Job job;
        const CostModel costs(model, job, prof);
        CurvesView view;
        showAt1000x600(view);
        view.setData(cluster, costs);
        const CurvesView::Curve* measured = nullptr;
        for (const auto& c : view.curves())
            if (c.device == v100)
                measured = &c;
        QVERIFY(measured);
        QVERIFY(measured->measured);
        QCOMPARE(measured->sizes, (std::vector<double>{1, 3, 6}));
        const double expected = 1.0 / (L * 3e-3);
        for (double sps : measured->samplesPerSecond)
            QVERIFY(std::abs(sps - expected) < 1e-9 * expected);
        QCOMPARE(view.markerCount(), 0);
        snapshot(view, QStringLiteral("curves-measured"));
    }

    void comparisonView()
    {
        Plan infeasible = uniform_;
        infeasible.planner = "uniform";
        infeasible.estimate.feasible = false;
        std::vector<Plan> plans{uniform_, amp_, zero_, infeasible};
        ComparisonView view;
        showAt1000x600(view);
        view.setPlans(plans);
        QVERIFY(!view.isEmpty());
        QCOMPARE(view.names(), (QStringList{"uniform", "amp", "data-parallel", "uniform #2"}));
        // amp-het-cluster's GPUs all have catalog prices: a cost panel stands beside the time.
        QCOMPARE(view.plot()->axisRects().size(), 4);
        QCOMPARE(view.costLabels().size(), 4);
        QCoreApplication::processEvents();
        const PixelStats s = plotAreaStats(view);
        qInfo("comparison: %d/%d non-white, %d saturated, %d colours, %d red", s.nonWhite, s.total, s.saturated,
              s.distinct, s.reddish);
        QVERIFY(s.saturated > s.total / 30);
        QVERIFY(s.distinct >= 5);
        QVERIFY(s.reddish > 20); // the hatched "does not fit" bar
        snapshot(view, QStringLiteral("comparison"));

        // Hovering over the infeasible planner's bars says so; over amp's gives its numbers.
        QCPAxisRect* top = view.plot()->axisRects().first();
        const QCPAxis* x = top->axis(QCPAxis::atBottom);
        const int yMid = top->rect().center().y();
        auto tipAt = [&](int i) {
            // toolTipAt is protected; go through a mouse move on the plot.
            QMouseEvent move(QEvent::MouseMove, QPointF(x->coordToPixel(i), yMid),
                             view.plot()->mapToGlobal(QPointF(x->coordToPixel(i), yMid)), Qt::NoButton, Qt::NoButton,
                             Qt::NoModifier);
            QCoreApplication::sendEvent(view.plot(), &move);
            return QToolTip::text();
        };
        QVERIFY2(tipAt(3).contains(QStringLiteral("does not fit")), qPrintable(tipAt(3)));
        const QString ampTip = tipAt(1);
        QVERIFY2(ampTip.contains(QStringLiteral("amp")) && ampTip.contains(QStringLiteral("tokens/s")),
                 qPrintable(ampTip));
        if (amp_.plannerEstimate)
            QVERIFY(ampTip.contains(QStringLiteral("planner's estimate")));

        // A HetHub section: its MFU and share of the additive bound under its name in the throughput panel,
        // the bound and the uniform split in the legend. Bound = tokens / 0.8 per GPU, so 80 % of it.
        Plan het = amp_;
        het.planner = "hethub";
        const double perGpu = amp_.estimate.tokensPerSecond / double(amp_.usedGpus().size());
        het.details["hethub"] = QJsonObject{{"mfu", 0.4},
                                            {"additive_upper_bound_tokens_per_gpu_second", perGpu / 0.8},
                                            {"uniform_split_tokens_per_gpu_second", perGpu / 2}};
        view.setPlans({amp_, het});
        QCOMPARE(view.throughputTicks(), (QStringList{"amp", "hethub\nMFU 40.0 % · 80 % of bound"}));
        QStringList legend;
        for (int i = 0; i < view.plot()->legend->itemCount(); ++i)
            if (auto* item = qobject_cast<QCPPlottableLegendItem*>(view.plot()->legend->item(i)))
                legend << item->plottable()->name();
        QVERIFY2(legend.contains("HetHub additive upper bound (eq. 3)"), qPrintable(legend.join(", ")));
        QVERIFY2(legend.contains("HetHub uniform layer split"), qPrintable(legend.join(", ")));

        // Cost per million tokens beside the time: $8/h at 10,000 tok/s = $0.222/M (8 / 36 M tokens); a plan
        // on an unpriced GPU says "no price"; without any cost there is no cost panel.
        Plan priced = amp_, unpriced = amp_;
        priced.estimate.cost = PlanCost{8.0, 8.0 / (10000 * 3600.0) * 1e6};
        unpriced.planner = "uniform";
        unpriced.estimate.cost.reset();
        view.setPlans({priced, unpriced});
        QCOMPARE(view.costLabels(), (QStringList{"$0.222", "no price"}));
        QCOMPARE(view.plot()->axisRects().size(), 4);
        view.setPlans({unpriced});
        QVERIFY(view.costLabels().isEmpty());
        QCOMPARE(view.plot()->axisRects().size(), 3);

        // A single plan works too; an empty list shows the placeholder.
        view.setPlans({amp_});
        QVERIFY(!view.isEmpty());
        view.setPlans({});
        QVERIFY(view.isEmpty());
    }

    void exportsWriteFiles()
    {
        QTemporaryDir dir;
        GanttView gantt;
        gantt.setPlan(amp_, ampSim_); // never shown: export falls back to 1000×600
        StageMapView map;
        map.setPlan(amp_, ampSim_);
        CurvesView curves;
        curves.setData(amp_.cluster, CostModel(amp_.model, amp_.job, amp_.profile), &amp_);
        ComparisonView comparison;
        comparison.setPlans({uniform_, amp_});
        int k = 0;
        for (PlotView* v : std::initializer_list<PlotView*>{&gantt, &map, &curves, &comparison}) {
            const QString png = dir.filePath(QStringLiteral("v%1.png").arg(k));
            const QString png2 = dir.filePath(QStringLiteral("v%1-small.png").arg(k));
            const QString pdf = dir.filePath(QStringLiteral("v%1.pdf").arg(k));
            ++k;
            QVERIFY(v->exportPng(png));
            QImage img(png);
            QCOMPARE(img.size(), QSize(1000, 600));
            QVERIFY(v->exportPng(png2, 640, 400));
            QCOMPARE(QImage(png2).size(), QSize(640, 400));
            QVERIFY(v->exportPdf(pdf));
            QFile f(pdf);
            QVERIFY(f.open(QIODevice::ReadOnly));
            QVERIFY(f.size() > 1000);
            QVERIFY(f.read(5) == "%PDF-");
            // The exported PNG has drawn content, not a blank page.
            int coloured = 0;
            for (int y = 0; y < img.height(); y += 2)
                for (int x = 0; x < img.width(); x += 2) {
                    const QColor c = img.pixelColor(x, y);
                    coloured += c.hsvSaturation() > 80 && c.value() > 60;
                }
            QVERIFY(coloured > 500);
        }
    }
};

QTEST_MAIN(TestViews)
#include "tst_views.moc"
