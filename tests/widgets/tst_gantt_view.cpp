// The Gantt chart on real plans (uniform, AMP, data-parallel on the AMP heterogeneous cluster), rendered
// offscreen at 1000×600: coloured bars, hover texts, the critical path, ZeRO plans and large timelines.
// Set HETPLAN_SCREENSHOTS=/some/dir to keep a PNG of every view for a visual check.
#include "view_fixtures.h"

using namespace hetplan;
using namespace hetplan::viewtest;

class TestGanttView : public QObject {
    Q_OBJECT
    ExamplePlans p_;

private slots:
    void initTestCase() { p_.load(); }

    void interleavedChunksAreNamed()
    {
        // gpt2-amp in 4 stages of 6 blocks on p3-0's four V100s, 32 micro-batches, interleaved with 2 chunks:
        // the subtitle says so and hover texts name each box's chunk.
        Plan plan = p_.amp;
        Pipeline pl;
        pl.microBatches = 32;
        pl.virtualStages = 2;
        const int bounds[] = {0, 7, 13, 19, 26};
        for (int s = 0; s < 4; ++s)
            pl.stages.push_back(Stage{bounds[s], bounds[s + 1], {s}, 1, 1});
        plan.pipelines = {pl};
        plan.validate("plan");
        const SimResult sim = timeline(plan);
        GanttView view;
        showAt1000x600(view);
        view.setPlan(plan, sim);
        QVERIFY(view.layout().kind.contains(QStringLiteral("2 chunks each (interleaved 1F1B)")));
        bool chunk0 = false, chunk1 = false;
        for (const QString& t : hoverTexts(view)) {
            chunk0 |= t.contains(QStringLiteral("chunk 0 of 2"));
            chunk1 |= t.contains(QStringLiteral("chunk 1 of 2"));
        }
        QVERIFY(chunk0 && chunk1);
        snapshot(view, QStringLiteral("gantt-interleaved"));
    }

    void ganttPipelinePlans()
    {
        for (auto [p, sim, name] :
             {std::tuple{&p_.uniform, &p_.uniformSim, "uniform"}, std::tuple{&p_.amp, &p_.ampSim, "amp"}}) {
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
                comm |= t.contains(QStringLiteral("send")) || t.contains(QStringLiteral("all-reduce")) ||
                        t.contains(QStringLiteral("reduce-scatter")) || t.contains(QStringLiteral("all-gather"));
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
        view.setPlan(p_.amp, p_.ampSim);
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
                first = std::min(first, p_.ampSim.events[size_t(b.event)].start);
                last = std::max(last, p_.ampSim.events[size_t(b.event)].end);
            }
        QVERIFY(std::abs(first) < 1e-12);
        QVERIFY(std::abs(last - p_.ampSim.iterationSeconds) < 1e-9 * p_.ampSim.iterationSeconds);
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
        view.setPlan(p_.zero, p_.zeroSim);
        QVERIFY(view.layout().criticalBars > 0);
        first = 1e300, last = 0;
        for (const GanttBarLayout& b : view.layout().bars)
            if (b.critical) {
                first = std::min(first, p_.zeroSim.events[size_t(b.event)].start);
                last = std::max(last, p_.zeroSim.events[size_t(b.event)].end);
            }
        QVERIFY(std::abs(first) < 1e-12);
        QVERIFY(std::abs(last - p_.zeroSim.iterationSeconds) < 1e-9 * p_.zeroSim.iterationSeconds);
        view.setPlan(p_.uniform, p_.uniformSim);
        QVERIFY(view.layout().criticalBars > 0);
        toggle->trigger();
        QCOMPARE(view.layout().criticalBars, 0);
        QVERIFY(!view.plottable()->highlight());
    }

    void ganttZeroPlan()
    {
        GanttView view;
        showAt1000x600(view);
        view.setPlan(p_.zero, p_.zeroSim);
        QVERIFY(!view.isEmpty());
        // By default GPUs with the same device and batch split share a row: one per kind.
        std::set<std::tuple<std::string, int, int, int>> kinds;
        for (const ZeroGpu& z : p_.zero.zero->gpus)
            kinds.insert({p_.zero.cluster.nodeOf(z.gpu).deviceType, z.microBatchSize, z.accumulationSteps,
                          z.lastMicroBatchSize});
        QCOMPARE(view.rowCount(), int(kinds.size()));
        // One by one, rows are the plan's GPUs.
        view.setLayoutOptions(everyReplica());
        QCOMPARE(view.rowCount(), int(p_.zero.zero->gpus.size()));
        QCOMPARE(view.eventCount(), p_.zeroSim.events.size());
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
};

QTEST_MAIN(TestGanttView)
#include "tst_gantt_view.moc"
