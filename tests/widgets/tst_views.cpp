// The plan views other than the Gantt chart (stage map, batch→speed curves, comparison; the Gantt chart:
// tst_gantt_view): real plans from the uniform, AMP and data-parallel planners on the AMP heterogeneous
// cluster, rendered offscreen at 1000×600 and checked pixel-wise (enough coloured pixels, several distinct
// colours), export files and the empty placeholder; stage and planner colours stay far apart (ΔE76).
// Set HETPLAN_SCREENSHOTS=/some/dir to keep a PNG of every view for a visual check.
#include "colour_distance.h"
#include "view_fixtures.h"

#include "core/planners/planner.h"
#include "widgets/common/palette.h"

#include <QDir>
#include <QJsonArray>
#include <QFileInfo>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace hetplan;
using namespace hetplan::viewtest;

class TestViews : public QObject {
    Q_OBJECT
    ExamplePlans p_;

private slots:
    void initTestCase() { p_.load(); }

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
        gantt.setPlan(p_.amp, p_.ampSim);
        QVERIFY(!gantt.isEmpty());
        gantt.clear();
        QVERIFY(gantt.isEmpty());
        QCOMPARE(gantt.eventCount(), size_t(0));
        // A result without a timeline cannot be drawn: placeholder says why.
        SimResult noEvents = p_.ampSim;
        noEvents.events.clear();
        gantt.setPlan(p_.amp, noEvents);
        QVERIFY(gantt.isEmpty());
        QVERIFY(gantt.placeholderText().contains(QStringLiteral("timeline")));
    }

    void stageMapPipelineAndZero()
    {
        for (auto [p, sim, name] : {std::tuple{&p_.uniform, &p_.uniformSim, "uniform"}, std::tuple{&p_.amp, &p_.ampSim, "amp"},
                                    std::tuple{&p_.zero, &p_.zeroSim, "zero"}}) {
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
        view.setPlan(p_.amp, p_.ampSim);
        for (size_t s = 0; s < p_.amp.pipelines[0].stages.size(); ++s) {
            const Stage& st = p_.amp.pipelines[0].stages[s];
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
        SimResult sim = p_.uniformSim;
        const int g = p_.uniform.usedGpus().front();
        sim.peakMemoryBytes[g] = 40.0 * 1073741824.0;
        StageMapView view;
        showAt1000x600(view);
        view.setPlan(p_.uniform, sim);
        QCOMPARE(view.overCapacityCount(), 1);
        QVERIFY(view.cellText(g).contains(QStringLiteral("over capacity")));
        QCoreApplication::processEvents();
        QVERIFY(plotAreaStats(view).reddish > 100);
        StageMapView fine;
        showAt1000x600(fine);
        fine.setPlan(p_.uniform, p_.uniformSim);
        QCoreApplication::processEvents();
        QCOMPARE(fine.overCapacityCount(), 0);
        snapshot(view, QStringLiteral("stagemap-over"));
    }

    void curvesAnalyticAndZeroMarkers()
    {
        const CostModel costs(p_.zero.model, p_.zero.job, p_.zero.profile);
        CurvesView view;
        showAt1000x600(view);
        view.setData(p_.zero.cluster, costs, &p_.zero);
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
        // The line is the cost model itself, what the planners price: it starts and ends on the end points,
        // and each sample is b / (forward + backward) of the whole model at that b, not a view's own spline.
        for (const CurvesView::Curve& c : view.curves()) {
            QVERIFY(c.lineSizes.size() > 200);
            QCOMPARE(c.lineSizes.front(), c.sizes.front());
            QVERIFY(std::abs(c.lineSamplesPerSecond.back() - c.samplesPerSecond.back()) <=
                    1e-9 * c.samplesPerSecond.back());
            const size_t mid = c.lineSizes.size() / 2;
            const double b = c.lineSizes[mid]; // 8: the middle of 1..64 on the log grid
            const LayerTiming t = costs.range(0, costs.model().layerCount(), c.device, 1, b);
            QCOMPARE(c.lineSamplesPerSecond[mid], b / (t.forward + t.backward));
            const double between = c.lineSizes[mid + 17]; // off the profiled sizes
            const LayerTiming u = costs.range(0, costs.model().layerCount(), c.device, 1, between);
            QCOMPARE(c.lineSamplesPerSecond[mid + 17], between / (u.forward + u.backward));
        }
        QVERIFY(view.markerCount() >= 1);
        QCoreApplication::processEvents();
        const PixelStats s = plotAreaStats(view);
        QVERIFY(s.saturated > 300);
        QVERIFY(s.distinct >= 4);
        snapshot(view, QStringLiteral("curves-zero"));

        // With a pipeline plan there is one marker (the plan's micro-batch line).
        CurvesView withPipeline;
        withPipeline.setData(p_.amp.cluster, CostModel(p_.amp.model, p_.amp.job, p_.amp.profile), &p_.amp);
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

    // Colours that must be told apart: a stage and the stage eight after it (the Okabe-Ito cycle), and any
    // two planners (one colour per planner across the app).
    void coloursStayDistinct()
    {
        for (int s = 0; s < 16; ++s)
            QVERIFY2(test::deltaE76(palette::stageColor(s), palette::stageColor(s + 8)) > 15, qPrintable(QString::number(s)));
        const std::vector<std::string> planners = PlannerRegistry::instance().names();
        for (size_t a = 0; a < planners.size(); ++a)
            for (size_t b = a + 1; b < planners.size(); ++b)
                QVERIFY2(test::deltaE76(palette::plannerColor(planners[a]), palette::plannerColor(planners[b])) > 10,
                         qPrintable(QString::fromStdString(planners[a] + " / " + planners[b])));
        // The pairs compared most often differ in hue, not only in lightness.
        QVERIFY(test::deltaE76(palette::plannerColor("amp"), palette::plannerColor("megatron")) > 30);
        QVERIFY(test::deltaE76(palette::plannerColor("amp"), palette::plannerColor("uniform")) > 30);
    }

    // In a narrow window (the centre of a 1024-pixel screen) the values over the bars neither run into each
    // other nor into an axis: each visible label lies within its panel and apart from its neighbours.
    void comparisonValueLabelsDoNotOverlap()
    {
        std::vector<Plan> plans;
        for (const char* name : {"amp", "megatron", "annealing", "random", "uniform", "data-parallel"}) {
            Plan p = p_.amp;
            p.planner = name;
            p.estimate.cost = PlanCost{8.0, 0.437};
            p.plannerEstimate = 0.356;
            p.search.seconds = 0.01022;
            plans.push_back(p);
        }
        ComparisonView view;
        view.resize(560, 560);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setPlans(plans);
        view.plot()->replot();
        for (QCPAxisRect* rect : view.plot()->axisRects()) {
            std::vector<QRectF> boxes;
            for (int i = 0; i < view.plot()->itemCount(); ++i) {
                auto* t = qobject_cast<QCPItemText*>(view.plot()->item(i));
                if (!t || !t->visible() || t->clipAxisRect() != rect)
                    continue;
                const QRectF box = QRectF(t->topLeft->pixelPosition(), t->bottomRight->pixelPosition()).normalized();
                QVERIFY2(box.left() >= rect->left() - 1 && box.right() <= rect->right() + 1, qPrintable(t->text()));
                for (const QRectF& other : boxes)
                    QVERIFY2(!other.adjusted(0, 0, -1, 0).intersects(box.adjusted(0, 0, -1, 0)), qPrintable(t->text()));
                boxes.push_back(box);
            }
            QVERIFY2(!boxes.empty(), qPrintable(QString::number(rect->width()))); // the values are there, not all hidden
        }
    }

    void comparisonView()
    {
        Plan infeasible = p_.uniform;
        infeasible.planner = "uniform";
        infeasible.estimate.feasible = false;
        std::vector<Plan> plans{p_.uniform, p_.amp, p_.zero, infeasible};
        ComparisonView view;
        showAt1000x600(view);
        view.setPlans(plans);
        QVERIFY(!view.isEmpty());
        QCOMPARE(view.names(), (QStringList{"uniform", "amp", "data-parallel", "uniform #2"}));
        // amp-het-cluster's GPUs all have catalog prices: a cost panel stands beside the time.
        QCOMPARE(view.plot()->axisRects().size(), 5); // with the cost-throughput frontier
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
        if (p_.amp.plannerEstimate)
            QVERIFY(ampTip.contains(QStringLiteral("planner's estimate")));

        // A HetHub section: its MFU and share of the additive bound under its name in the throughput panel,
        // the bound and the uniform split in the legend. Bound = tokens / 0.8 per GPU, so 80 % of it.
        Plan het = p_.amp;
        het.planner = "hethub";
        const double perGpu = p_.amp.estimate.tokensPerSecond / double(p_.amp.usedGpus().size());
        het.details["hethub"] = QJsonObject{{"mfu", 0.4},
                                            {"additive_upper_bound_tokens_per_gpu_second", perGpu / 0.8},
                                            {"uniform_split_tokens_per_gpu_second", perGpu / 2}};
        view.setPlans({p_.amp, het});
        QCOMPARE(view.throughputTicks(), (QStringList{"amp", "hethub\nMFU 40.0 % · 80 % of bound"}));
        QStringList legend;
        for (int i = 0; i < view.plot()->legend->itemCount(); ++i)
            if (auto* item = qobject_cast<QCPPlottableLegendItem*>(view.plot()->legend->item(i)))
                legend << item->plottable()->name();
        QVERIFY2(legend.contains("HetHub additive upper bound (eq. 3)"), qPrintable(legend.join(", ")));
        QVERIFY2(legend.contains("HetHub uniform layer split"), qPrintable(legend.join(", ")));

        // Cost per million tokens beside the time: $8/h at 10,000 tok/s = $0.222/M (8 / 36 M tokens); a plan
        // on an unpriced GPU says "no price"; without any cost there is no cost panel.
        Plan priced = p_.amp, unpriced = p_.amp;
        priced.estimate.cost = PlanCost{8.0, 8.0 / (10000 * 3600.0) * 1e6};
        unpriced.planner = "uniform";
        unpriced.estimate.cost.reset();
        view.setPlans({priced, unpriced});
        QCOMPARE(view.costLabels(), (QStringList{"0.222", "no price"})); // the axis says $ per M tokens
        QCOMPARE(view.plot()->axisRects().size(), 5); // time, cost, throughput, search, frontier
        view.setPlans({unpriced});
        QVERIFY(view.costLabels().isEmpty());
        QCOMPARE(view.plot()->axisRects().size(), 3);

        // The frontier: amp $10/h at 1000 tok/s, megatron $20/h at 900 (dearer and slower: off it),
        // uniform $30/h at 2000; amp's selection also found 600 tok/s for $5/h on fewer GPUs, the cheapest.
        Plan a = p_.amp, m = p_.amp, u = p_.amp;
        const auto price = [](Plan& p, const char* planner, double perHour, double tokens) {
            p.planner = planner;
            p.estimate.tokensPerSecond = tokens;
            p.estimate.cost = PlanCost{perHour, perHour / (tokens * 3600) * 1e6};
        };
        price(a, "amp", 10, 1000);
        price(m, "megatron", 20, 900);
        price(u, "uniform", 30, 2000);
        a.details["selection"] = QJsonObject{
            {"tried", QJsonArray{QJsonObject{{"subset", "without T4"}, {"dollars_per_hour", 5.0},
                                             {"tokens_per_second", 600.0}},
                                 QJsonObject{{"subset", "every node"}, {"error", "no plan"}}}}};
        view.setPlans({a, m, u});
        QCOMPARE(view.frontierNames(), (QStringList{"amp, without T4", "amp", "uniform"}));
        view.setPlans({unpriced});
        QVERIFY(view.frontierNames().isEmpty());

        // A single plan works too; an empty list shows the placeholder.
        view.setPlans({p_.amp});
        QVERIFY(!view.isEmpty());
        view.setPlans({});
        QVERIFY(view.isEmpty());
    }

    void exportsWriteFiles()
    {
        QTemporaryDir dir;
        GanttView gantt;
        gantt.setPlan(p_.amp, p_.ampSim); // never shown: export falls back to 1000×600
        StageMapView map;
        map.setPlan(p_.amp, p_.ampSim);
        CurvesView curves;
        curves.setData(p_.amp.cluster, CostModel(p_.amp.model, p_.amp.job, p_.amp.profile), &p_.amp);
        ComparisonView comparison;
        comparison.setPlans({p_.uniform, p_.amp});
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

    void exportsNeverReplaceSpecialFiles()
    {
        // The export goes through the same writer as the CLI's --out: a FIFO gets the bytes and stays a FIFO,
        // a directory is refused (with the reason), a regular file is replaced.
        QTemporaryDir dir;
        GanttView gantt;
        gantt.setPlan(p_.amp, p_.ampSim);
        const QString fifo = dir.filePath(QStringLiteral("pipe.png"));
        QCOMPARE(::mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);
        const int reader = ::open(fifo.toLocal8Bit().constData(), O_RDONLY | O_NONBLOCK);
        QVERIFY(reader >= 0);
        const int keepOpen = ::open(fifo.toLocal8Bit().constData(), O_WRONLY); // the pipe never reads as closed
        ::fcntl(reader, F_SETPIPE_SZ, 1 << 20);                                // room for the whole PNG
        QVERIFY(gantt.exportPng(fifo, 200, 120));
        char head[8] = {};
        QCOMPARE(::read(reader, head, sizeof head), ssize_t(sizeof head));
        QVERIFY(QByteArray(head, 8).startsWith("\x89PNG"));
        ::close(keepOpen);
        ::close(reader);
        struct stat st {};
        QCOMPARE(::lstat(fifo.toLocal8Bit().constData(), &st), 0);
        QVERIFY(S_ISFIFO(st.st_mode));

        const QString folder = dir.filePath(QStringLiteral("folder.png"));
        QVERIFY(QDir().mkdir(folder));
        QVERIFY(!gantt.exportPng(folder));
        QVERIFY2(gantt.lastExportError().contains(QStringLiteral("is a directory")), qPrintable(gantt.lastExportError()));
        QVERIFY(QFileInfo(folder).isDir());
    }
};

QTEST_MAIN(TestViews)
#include "tst_views.moc"
