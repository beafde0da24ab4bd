// Views of large clusters: they stay readable and the plots export.
// * Gantt grouping on amp-scale-16x16 (256 T4s) and a 1024-GPU two-type cluster: identical replicas drawn
//   once with "× N", groups shown one by one or collapsed to one row, vertical (row) zoom.
// * Stage map by node from 256 GPUs: one tile per node, GPU squares inside, full names in tooltips.
// * Colours: every pair of catalog device types at least CIE ΔE76 20 apart (Lab from the standard formulas
//   in colour_distance.h, not the code's helpers); forward and backward of one micro-batch differ by pattern.
// * Batch→speed curves: profiled-size dots only on measured curves.
// * Export as PNG, PDF and SVG at a chosen size, the default file name, and the status bar message.
// Set HETPLAN_SCREENSHOTS=/some/dir to keep PNGs of the large views.
#include "colour_distance.h"

#include "app/gui/main_window.h"
#include "core/cost/costmodel.h"
#include "core/io/examples.h"
#include "core/model/device.h"
#include "core/planners/planner.h"
#include "core/sim/simulator.h"
#include "widgets/canvas/device_style.h"
#include "widgets/common/palette.h"
#include "widgets/views/curves_view.h"
#include "widgets/views/export_dialog.h"
#include "widgets/views/gantt_styles.h"
#include "widgets/views/gantt_view.h"
#include "widgets/views/stage_map_view.h"

#include <qcustomplot.h>

#include <QAction>
#include <QFile>
#include <QImage>
#include <QScrollBar>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QToolBar>
#include <QWheelEvent>
#include <QXmlStreamReader>

#include <cmath>
#include <map>
#include <set>

using namespace hetplan;
using test::deltaE76;
using test::toLab;

namespace {

Plan plan(const std::string& planner, const PlanRequest& req)
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

// 64 nodes × 16 GPUs, A100-40GB and V100-16GB nodes alternating, so every stage mixes the two types (long
// names, so tooltips can be checked for the full one).
Cluster cluster1024()
{
    Cluster c;
    c.name = "het-1024";
    for (int n = 0; n < 64; ++n) {
        Node node;
        node.name = (n % 2 == 0 ? "a100-rack-node-" : "v100-rack-node-") + std::to_string(n);
        node.deviceType = n % 2 == 0 ? "A100-40GB" : "V100-16GB";
        node.gpus = 16;
        node.nicBandwidth = 25e9;
        c.nodes.push_back(node);
    }
    return c;
}

// Uniform planner, 4 stages: `cluster.gpuCount() / 4` replicas of tp 1, two micro-batches each.
Plan fourStagePlan(const Cluster& cluster)
{
    PlanRequest r;
    r.cluster = cluster;
    r.model = loadModel("example:gpt2-amp");
    r.job.globalBatchSize = cluster.gpuCount() / 4 * 2;
    r.options["pp"] = "4";
    r.options["search_cp"] = "false"; // the replica counts below are the uniform split's
    return plan("uniform", r);
}

void showAt(QWidget& w, int width, int height)
{
    w.resize(width, height);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
}

void snapshot(PlotView& view, const QString& name)
{
    const QByteArray dir = qgetenv("HETPLAN_SCREENSHOTS");
    if (!dir.isEmpty())
        QVERIFY(view.exportPng(QString::fromLocal8Bit(dir) + QLatin1Char('/') + name + QStringLiteral(".png")));
}

// How many kinds of replica a one-GPU-per-stage pipeline has: replicas whose stages run on the same
// device types, stage by stage, simulate the same timeline, and others cannot.
int replicaKinds(const Plan& p)
{
    const Pipeline& pl = p.pipelines.at(0);
    std::set<std::vector<std::string>> kinds;
    for (int r = 0; r < pl.replicas; ++r) {
        std::vector<std::string> types;
        for (const Stage& st : pl.stages)
            types.push_back(p.cluster.nodeOf(st.gpus.at(size_t(r))).deviceType);
        kinds.insert(types);
    }
    return int(kinds.size());
}

} // namespace

class TestLargeViews : public QObject {
    Q_OBJECT
    Plan scale256_, het1024_;
    SimResult sim256_, sim1024_;

private slots:
    void initTestCase()
    {
        scale256_ = fourStagePlan(loadCluster("example:amp-scale-16x16"));
        sim256_ = timeline(scale256_);
        het1024_ = fourStagePlan(cluster1024());
        sim1024_ = timeline(het1024_);
        QCOMPARE(scale256_.cluster.gpuCount(), 256);
        QCOMPARE(het1024_.cluster.gpuCount(), 1024);
        QCOMPARE(int(scale256_.pipelines.at(0).stages.size()), 4);
        QCOMPARE(scale256_.pipelines[0].replicas, 64);
        QCOMPARE(het1024_.pipelines.at(0).replicas, 256);
        QVERIFY(!sim256_.events.empty() && !sim1024_.events.empty());
    }

    void ganttDrawsIdenticalReplicasOnce256()
    {
        // 256 T4s, 4 stages × 64 replicas of one GPU: every replica of a stage runs the same timeline, so
        // each stage is one row "sK r0 × 64".
        GanttView view;
        showAt(view, 1000, 600);
        view.setPlan(scale256_, sim256_);
        const GanttLayout& l = view.layout();
        QCOMPARE(int(l.groups.size()), 4);
        QCOMPARE(view.rowCount(), 4);
        for (int s = 0; s < 4; ++s) {
            const GanttGroupLayout& g = l.groups[size_t(s)];
            QCOMPARE(g.key, QStringLiteral("s%1").arg(s));
            QCOMPARE(g.replicas, 64);
            QCOMPARE(g.distinctReplicas, 1);
            QVERIFY(g.merged);
            QCOMPARE(g.hiddenRows, 63);
            QVERIFY2(g.rows.at(0).label.startsWith(QStringLiteral("s%1 r0 × 64 · ").arg(s)),
                     qPrintable(g.rows[0].label));
            QVERIFY(g.rows[0].label.endsWith(QStringLiteral("(T4)")));
            QCOMPARE(g.title, QStringLiteral("stage %1 · 64 replicas, 1 distinct").arg(s));
        }
        // Every event of a drawn GPU is a bar; the other 252 GPUs' events are represented, not drawn.
        std::set<int> drawn;
        for (const GanttRowLayout* r : l.rows())
            drawn.insert(r->gpu);
        size_t drawnEvents = 0;
        for (const TimelineEvent& e : sim256_.events)
            drawnEvents += drawn.count(e.gpu);
        QCOMPARE(l.bars.size(), drawnEvents);

        // A hover over a merged row says what it stands for.
        QCoreApplication::processEvents();
        QString mergedTip;
        const QRect area = view.plot()->axisRect()->rect();
        for (int x = area.left(); x < area.right() && mergedTip.isEmpty(); x += 2)
            mergedTip = view.describeAt(QPointF(x, view.plot()->yAxis->coordToPixel(l.groups[0].rows[0].top + 0.5)));
        QVERIFY2(mergedTip.endsWith(QStringLiteral("drawn once for 64 identical replicas</i>")), qPrintable(mergedTip));
        QCOMPARE(l.groups[0].rows[0].copies, 64);
        // Stage 1 one by one: its 64 rows come back, the other stages stay merged.
        view.setGroupSeparated(QStringLiteral("s1"), true);
        QCOMPARE(view.rowCount(), 3 + 64);
        QVERIFY(!view.layout().groups[1].merged);
        QCOMPARE(view.layout().groups[1].rows[5].label.left(6), QStringLiteral("s1 r5 "));
        // ... and collapsed to one summary row, which says how many rows it stands for.
        view.setGroupCollapsed(QStringLiteral("s1"), true);
        QCOMPARE(view.rowCount(), 4);
        QVERIFY(view.layout().groups[1].collapsed);
        QVERIFY2(view.layout().groups[1].rows[0].label.endsWith(QStringLiteral("(+63 rows)")),
                 qPrintable(view.layout().groups[1].rows[0].label));
        view.setGroupCollapsed(QStringLiteral("s1"), false);
        QCOMPARE(view.rowCount(), 67);
        // "Every replica" for all groups: one row per GPU.
        GanttLayoutOptions all;
        all.mergeIdentical = false;
        view.setLayoutOptions(all);
        QCOMPARE(view.rowCount(), 256);
        view.setLayoutOptions({});
        QCOMPARE(view.rowCount(), 4);
        // The toolbar's "Every replica" does the same and follows the options.
        QAction* every = nullptr;
        for (QAction* a : view.toolBar()->actions())
            if (a->text() == QStringLiteral("Every replica"))
                every = a;
        QVERIFY(every && every->isCheckable() && !every->isChecked());
        every->trigger();
        QCOMPARE(view.rowCount(), 256);
        QVERIFY(!view.layoutOptions().mergeIdentical);
        view.setLayoutOptions({});
        QVERIFY(!every->isChecked());
        QCOMPARE(view.rowCount(), 4);
        QCoreApplication::processEvents();
        snapshot(view, QStringLiteral("gantt-256"));
    }

    // Grouping by mouse and the row scroll bar, as a user meets them on 256 GPUs.
    void ganttGroupsByMouseAndScrollsItsRows256()
    {
        GanttView view;
        view.resize(320, 160); // laid out small first (a hidden tab), then shown at its real size
        view.setPlan(scale256_, sim256_);
        showAt(view, 1000, 600);
        QTest::qWait(50);
        // Every stage keeps its row label once the view has its size, not every other one.
        QCOMPARE(view.plot()->yAxis->tickVectorLabels().size(), 4);

        // A double-click on a row that stands for 64 replicas: one row already, nothing to collapse, and
        // nothing stored that would change what the menu offers later.
        const auto y = [&view] { return view.plot()->yAxis; }; // each rebuild makes a new plot
        const QPoint onStage0(500, int(y()->coordToPixel(view.layout().groups[0].rows[0].top + 0.5)));
        QTest::mouseDClick(view.plot(), Qt::LeftButton, {}, onStage0);
        QVERIFY(view.layoutOptions().collapsed.empty());
        QCOMPARE(view.rowCount(), 4);

        // "Show identical replicas one by one" shows them even when the group was collapsed before.
        view.setGroupSeparated(QStringLiteral("s1"), true);
        view.setGroupCollapsed(QStringLiteral("s1"), true);
        QCOMPARE(view.rowCount(), 4);
        view.setGroupSeparated(QStringLiteral("s1"), true);
        QCOMPARE(view.rowCount(), 3 + 64);
        // "Every replica" means every row: collapsed groups open too.
        view.setGroupCollapsed(QStringLiteral("s1"), true);
        QAction* every = nullptr;
        for (QAction* a : view.toolBar()->actions())
            if (a->text() == QStringLiteral("Every replica"))
                every = a;
        QVERIFY(every);
        every->trigger();
        QCOMPARE(view.rowCount(), 256);
        QVERIFY(view.layoutOptions().collapsed.empty());

        // 256 rows in a 600-pixel view are not stripes: the rows keep about 12 pixels, a scroll bar reaches
        // the rest, and scrolling it to the end shows the last row.
        const auto rowPixels = [&] {
            const auto rows = view.layout().rows();
            return std::abs(y()->coordToPixel(rows[1]->top) - y()->coordToPixel(rows[0]->top));
        };
        QVERIFY2(rowPixels() >= 8, qPrintable(QString::number(rowPixels())));
        QScrollBar* bar = view.rowScrollBar();
        QVERIFY(bar && bar->isVisible());
        bar->setValue(bar->maximum());
        QVERIFY(std::abs(y()->range().upper - (view.layout().valueEnd + ganttgeom::groupGap)) < 0.05);
        view.resetZoom();
        QVERIFY(!bar->isVisible());

        // Ctrl+wheel zooms the rows for that step only; the next keys and wheel zoom time again.
        view.zoomRowsIn();
        QVERIFY(bar->isVisible());
        QWheelEvent wheel(QPointF(500, 300), view.plot()->mapToGlobal(QPointF(500, 300)), {}, QPoint(0, 120),
                          Qt::NoButton, Qt::ControlModifier, Qt::NoScrollPhase, false);
        QCoreApplication::sendEvent(view.plot(), &wheel);
        QCoreApplication::processEvents();
        QCOMPARE(view.plot()->axisRect()->rangeZoom(), Qt::Orientations(Qt::Horizontal));
        every->trigger();
    }

    void ganttGroupsOn1024Gpus()
    {
        GanttView view;
        showAt(view, 1000, 600);
        view.setPlan(het1024_, sim1024_);
        const GanttLayout& l = view.layout();
        QCOMPARE(int(l.groups.size()), 4);
        // Alternating node types: replicas on A100s only and replicas on V100s only.
        QCOMPARE(replicaKinds(het1024_), 2);
        int rows = 0;
        for (size_t s = 0; s < 4; ++s) {
            const GanttGroupLayout& g = l.groups[s];
            QCOMPARE(g.replicas, 256);
            QCOMPARE(g.distinctReplicas, 2);
            QVERIFY(g.merged);
            QCOMPARE(int(g.rows.size()), g.distinctReplicas); // tp 1: one row per drawn replica
            int represented = 0;
            for (const GanttRowLayout& r : g.rows) {
                const qsizetype times = r.label.indexOf(QStringLiteral(" × "));
                represented += times < 0 ? 1 : r.label.mid(times + 3).section(QLatin1Char(' '), 0, 0).toInt();
            }
            QCOMPARE(represented, 256); // the "× N" marks add up to the stage's replicas
            rows += int(g.rows.size());
        }
        QCOMPARE(view.rowCount(), rows);
        QCOMPARE(rows, 8);
        QVERIFY(l.rows()[0]->label.endsWith(QStringLiteral("(A100)")));
        QVERIFY(l.rows()[1]->label.endsWith(QStringLiteral("(V100)")));
        // Collapsing every group leaves one row per stage.
        GanttLayoutOptions o;
        for (const GanttGroupLayout& g : l.groups)
            o.collapsed.insert(g.key);
        view.setLayoutOptions(o);
        QCOMPARE(view.rowCount(), 4);
        view.setLayoutOptions({});
        QCoreApplication::processEvents();
        snapshot(view, QStringLiteral("gantt-1024"));
        o.collapsed.clear();
        o.mergeIdentical = false;
        view.setLayoutOptions(o);
        QCOMPARE(view.rowCount(), 1024);
    }

    void ganttGroupUnderThePointer()
    {
        GanttView view;
        showAt(view, 1000, 600);
        view.setPlan(scale256_, sim256_);
        QCPAxis* y = view.plot()->yAxis;
        for (const GanttGroupLayout& g : view.layout().groups) {
            const double middle = (g.bandTop + g.bandBottom) / 2;
            QCOMPARE(view.groupKeyAt(QPointF(5, y->coordToPixel(middle))), g.key); // over the labels too
        }
        // Between the last band and the axis end there is no group.
        const double below = view.layout().groups.back().bandBottom + 0.1;
        QVERIFY(view.groupKeyAt(QPointF(500, y->coordToPixel(below))).isEmpty());
        // A double click on a group collapses it (after separating it, it has rows to collapse).
        view.setGroupSeparated(QStringLiteral("s2"), true);
        QCOMPARE(view.rowCount(), 67);
        const GanttGroupLayout& s2 = view.layout().groups[2];
        const int py = int(view.plot()->yAxis->coordToPixel(s2.rows[0].top + 0.5));
        QTest::mouseDClick(view.plot(), Qt::LeftButton, Qt::NoModifier, QPoint(500, py));
        QCOMPARE(view.rowCount(), 4);
        QVERIFY(view.layoutOptions().collapsed.count(QStringLiteral("s2")));
    }

    void ganttRowZoom()
    {
        GanttView view;
        showAt(view, 1000, 600);
        GanttLayoutOptions all;
        all.mergeIdentical = false;
        view.setLayoutOptions(all);
        view.setPlan(scale256_, sim256_); // 256 rows
        QCOMPARE(view.rowCount(), 256);
        QCPAxis* y = view.plot()->yAxis;
        const double full = view.layout().valueEnd + 2 * ganttgeom::groupGap;
        QCOMPARE(y->range().size(), full);
        QCOMPARE(view.rowZoom(), 1.0);
        const auto rowPixels = [&] { return std::abs(y->coordToPixel(1.0) - y->coordToPixel(0.0)); };
        const double before = rowPixels();
        view.setRowZoom(8);
        QVERIFY(std::abs(y->range().size() - full / 8) < 1e-9 * full);
        QVERIFY(std::abs(rowPixels() / before - 8) < 1e-6);
        QCOMPARE(y->range().lower, -ganttgeom::groupGap); // zooming keeps the top in view
        // More labels fit once the rows are taller: the visible ticks are spaced at least a text line apart.
        view.plot()->replot();
        QVERIFY(y->tickVector().size() >= 2);
        // Dragging down past the last row stops at it; zoom cannot go beyond all rows in view.
        y->setRange(full * 2, full * 2 + full / 8);
        QVERIFY(std::abs(y->range().upper - (view.layout().valueEnd + ganttgeom::groupGap)) < 1e-9 * full);
        view.setRowZoom(0.25);
        QCOMPARE(view.rowZoom(), 1.0);
        // Ctrl+wheel zooms the rows, a plain wheel the time axis only.
        view.setRowZoom(1);
        const QCPRange time = view.plot()->xAxis->range();
        const QPoint centre = view.plot()->axisRect()->rect().center();
        QWheelEvent ctrlWheel(centre, view.plot()->mapToGlobal(centre), QPoint(), QPoint(0, 120), Qt::NoButton,
                              Qt::ControlModifier, Qt::NoScrollPhase, false);
        QCoreApplication::sendEvent(view.plot(), &ctrlWheel);
        QVERIFY2(view.rowZoom() > 1.01, qPrintable(QString::number(view.rowZoom())));
        QCOMPARE(view.plot()->xAxis->range(), time);
        // The row zoom survives regrouping, or grows where the rows would otherwise be thinner than 8 pixels.
        const double zoom = view.rowZoom();
        view.setGroupCollapsed(QStringLiteral("s0"), true);
        QCOMPARE(view.rowCount(), 193);
        QVERIFY(view.rowZoom() >= zoom - 1e-9);
        const QCPAxis* regrouped = view.plot()->yAxis;
        QVERIFY(std::abs(regrouped->coordToPixel(1.68) - regrouped->coordToPixel(0)) >= 8 - 1e-6);
        view.resetZoom();
        QCOMPARE(view.rowZoom(), 1.0);
    }

    void stageMapByNode256And1024()
    {
        for (const auto& [p, sim, name] :
             {std::tuple{&scale256_, &sim256_, "stagemap-256"}, std::tuple{&het1024_, &sim1024_, "stagemap-1024"}}) {
            const int nodes = int(p->cluster.nodes.size());
            StageMapView view;
            showAt(view, 1000, 600);
            view.setPlan(*p, *sim);
            QVERIFY(view.drawsByNode());
            const StageMapLayout& l = view.layout();
            QVERIFY(l.byNode);
            QCOMPARE(int(l.tiles.size()), nodes);
            QCOMPARE(view.cellCount(), p->cluster.gpuCount());
            // A near-square grid of tiles about 1.6 times as wide as high; 16 GPUs as 4 × 4 squares inside.
            QCOMPARE(l.tileColumns, int(std::ceil(std::sqrt(nodes * 1.6))));
            QVERIFY(l.tileRows * l.tileColumns >= nodes && (l.tileRows - 1) * l.tileColumns < nodes);
            QCOMPARE(l.innerColumns, 4);
            QCOMPARE(l.innerRows, 4);
            QCOMPARE(l.mixedDevices, p == &het1024_); // amp-scale-16x16 is all T4
            for (const StageMapNodeTile& t : l.tiles) {
                QCOMPARE(int(t.cells.size()), 16);
                const Node& node = p->cluster.nodes[size_t(t.node)];
                // The full node name and device type, which the tile may elide, are in its tooltip.
                QVERIFY2(t.toolTip.contains(
                             QStringLiteral("<b>%1</b> (%2) · 16 GPUs")
                                 .arg(QString::fromStdString(node.name), QString::fromStdString(node.deviceType))),
                         qPrintable(t.toolTip));
                QVERIFY(t.toolTip.contains(QStringLiteral("stage ")));
            }
            // Hover: a GPU square gives that GPU's tooltip, the tile's header the node's.
            QCoreApplication::processEvents();
            const StageMapNodeTile& t = l.tiles[size_t(nodes - 1)];
            const auto pixel = [&](const QPointF& c) {
                return QPointF(view.plot()->xAxis->coordToPixel(c.x()), view.plot()->yAxis->coordToPixel(c.y()));
            };
            const QRectF square = l.gpuRect(t, 5);
            QCOMPARE(view.describeAt(pixel(square.center())), l.cells[size_t(t.cells[5])].toolTip);
            QVERIFY(view.describeAt(pixel(square.center())).contains(QStringLiteral("/5")));
            const QRectF tile = l.tileRect(t);
            QCOMPARE(view.describeAt(pixel(QPointF(tile.center().x(), tile.top() + 0.05))), t.toolTip);
            snapshot(view, QString::fromLatin1(name));
        }
    }

    void catalogDeviceColoursDiffer()
    {
        const auto& all = DeviceCatalog::builtin().all();
        QVERIFY(all.size() >= 20);
        double closest = 1e9;
        QString closestPair;
        for (size_t i = 0; i < all.size(); ++i)
            for (size_t j = i + 1; j < all.size(); ++j) {
                const double d = deltaE76(deviceStyle(all[i].name).color, deviceStyle(all[j].name).color);
                if (d < closest) {
                    closest = d;
                    closestPair = QString::fromStdString(all[i].name + " / " + all[j].name);
                }
            }
        QVERIFY2(closest >= 20, qPrintable(QStringLiteral("%1: ΔE %2").arg(closestPair).arg(closest)));
        // The pair a user reported: they used to share Ampere's blue.
        QVERIFY(deltaE76(deviceStyle("A100-40GB").color, deviceStyle("RTX-3090").color) >= 20);
        // The conversion itself: white is L 100, a 0, b 0; pure sRGB red is L 53.24, a 80.09, b 67.20.
        const auto white = toLab(Qt::white), red = toLab(QColor(255, 0, 0));
        QVERIFY(std::abs(white[0] - 100) < 0.01 && std::abs(white[1]) < 0.01 && std::abs(white[2]) < 0.01);
        QVERIFY(std::abs(red[0] - 53.24) < 0.05 && std::abs(red[1] - 80.09) < 0.05 && std::abs(red[2] - 67.20) < 0.05);
    }

    void forwardAndBackwardDifferByPattern()
    {
        const auto styles = ganttstyle::styles();
        for (int mb = 0; mb < 2 * ganttstyle::kColours; ++mb) {
            TimelineEvent f, b;
            f.kind = EventKind::Forward;
            b.kind = EventKind::Backward;
            f.microBatch = b.microBatch = mb;
            const GanttStyle& fs = styles.at(size_t(ganttstyle::styleOf(f)));
            const GanttStyle& bs = styles.at(size_t(ganttstyle::styleOf(b)));
            QCOMPARE(fs.hatch, Qt::NoBrush);
            QCOMPARE(bs.hatch, Qt::BDiagPattern);
            // The hatch is visible on the fill: darker than it by a clear margin.
            QVERIFY(deltaE76(bs.hatchColour, bs.fill) >= 15);
        }
        // Without micro-batches (SPMD op groups) backward is hatched as well.
        TimelineEvent f, b;
        f.kind = EventKind::Forward;
        b.kind = EventKind::Backward;
        QVERIFY(styles.at(size_t(ganttstyle::styleOf(f))).hatch != styles.at(size_t(ganttstyle::styleOf(b))).hatch);
    }

    void profiledMarkersOnlyWhenMeasured()
    {
        const Cluster cluster = loadCluster("example:amp-het-cluster");
        const ModelSpec model = loadModel("example:gpt2-amp");
        const Job job;
        CurvesView analytic;
        analytic.setData(cluster, CostModel(model, job, Profile{}));
        QCOMPARE(int(analytic.curves().size()), 2);
        QCOMPARE(analytic.profiledPointCount(), 0);
        const auto legendNames = [](CurvesView& v) {
            QStringList names;
            for (int i = 0; i < v.plot()->plottableCount(); ++i)
                names << v.plot()->plottable(i)->name();
            return names;
        };
        QVERIFY(!legendNames(analytic).contains(QStringLiteral("profiled size")));
        for (int i = 0; i < analytic.plot()->graphCount(); ++i) // no graph draws scatter dots
            QCOMPARE(analytic.plot()->graph(i)->scatterStyle().shape(), QCPScatterStyle::ssNone);
        // One device type measured at 3 sizes: exactly those 3 dots, none on the analytic curve.
        Profile prof;
        prof.model = model.name;
        const std::string v100 = cluster.nodes.front().deviceType.rfind("V100", 0) == 0
                                     ? cluster.nodes.front().deviceType
                                     : cluster.nodes.back().deviceType;
        for (int mbs : {1, 3, 6})
            prof.set({v100, 1, mbs},
                     std::vector<LayerTiming>(size_t(model.layerCount()), LayerTiming{1e-3 * mbs, 2e-3 * mbs, 0, -1}));
        CurvesView measured;
        measured.setData(cluster, CostModel(model, job, prof));
        QCOMPARE(measured.profiledPointCount(), 3);
        QVERIFY(legendNames(measured).contains(QStringLiteral("profiled size")));
        // Each curve is drawn in its device type's canvas colour.
        for (int i = 0; i < measured.plot()->graphCount(); ++i) {
            const QString name = measured.plot()->graph(i)->name();
            if (name.startsWith(QString::fromStdString(v100)))
                QCOMPARE(measured.plot()->graph(i)->pen().color(), deviceStyle(v100).color);
        }
    }

    void exportsAtAChosenSize()
    {
        QTemporaryDir dir;
        GanttView view;
        view.setPlan(scale256_, sim256_);
        QCOMPARE(view.exportBaseName(), QStringLiteral("amp-scale-16x16-gpt2-amp-gantt"));
        const QSize size(820, 510);
        const QString png = dir.filePath("g.png"), pdf = dir.filePath("g.pdf"), svg = dir.filePath("g.svg");
        QVERIFY(view.exportTo(png, PlotView::ExportFormat::Png, size.width(), size.height()));
        QCOMPARE(QImage(png).size(), size);
        QVERIFY(view.exportTo(pdf, PlotView::ExportFormat::Pdf, size.width(), size.height()));
        QFile pdfFile(pdf);
        QVERIFY(pdfFile.open(QIODevice::ReadOnly));
        QCOMPARE(pdfFile.read(5), QByteArray("%PDF-"));
        QVERIFY(view.exportSvg(svg, size.width(), size.height()));
        QFile svgFile(svg);
        QVERIFY(svgFile.open(QIODevice::ReadOnly));
        QXmlStreamReader xml(&svgFile);
        while (!xml.atEnd() && !xml.isStartElement())
            xml.readNext();
        QCOMPARE(xml.name().toString(), QStringLiteral("svg")); // the root element
        const QXmlStreamAttributes root = xml.attributes();
        QCOMPARE(root.value("viewBox").toString(), QStringLiteral("0 0 820 510"));
        // At 96 dpi: 820 px = 820 × 25.4 / 96 mm = 216.958 mm, 510 px = 134.938 mm.
        const QString width = root.value("width").toString(), height = root.value("height").toString();
        QVERIFY2(std::abs(QString(width).remove("mm").toDouble() - 216.958) < 0.01, qPrintable(width));
        QVERIFY2(std::abs(QString(height).remove("mm").toDouble() - 134.938) < 0.01, qPrintable(height));
        QVERIFY(svgFile.size() > 10000); // the drawing, not an empty page
        // An unwritable file fails without a crash.
        QVERIFY(!view.exportSvg(dir.filePath("missing/dir/g.svg")));
    }

    void exportDialogDefaults()
    {
        ExportDialog d(QStringLiteral("/data/amp-scale-16x16-gpt2-amp-gantt"), QSize(900, 480));
        QCOMPARE(d.format(), PlotView::ExportFormat::Png);
        QCOMPARE(d.fileName(), QStringLiteral("/data/amp-scale-16x16-gpt2-amp-gantt.png"));
        QCOMPARE(d.exportSize(), QSize(900, 480));
        d.setFormat(PlotView::ExportFormat::Svg);
        QCOMPARE(d.fileName(), QStringLiteral("/data/amp-scale-16x16-gpt2-amp-gantt.svg"));
        d.setFormat(PlotView::ExportFormat::Pdf);
        QCOMPARE(d.fileName(), QStringLiteral("/data/amp-scale-16x16-gpt2-amp-gantt.pdf"));
        d.setFileName(QStringLiteral("/data/figure")); // no suffix: the format's is added
        QCOMPARE(d.fileName(), QStringLiteral("/data/figure.pdf"));
        // The view proposes its on-screen size.
        GanttView view;
        showAt(view, 1000, 600);
        view.setPlan(scale256_, sim256_);
        QCOMPARE(view.defaultExportSize(), view.plot()->size());
        // For a look at the toolbar and the dialog as a user sees them.
        if (const QByteArray shots = qgetenv("HETPLAN_SCREENSHOTS"); !shots.isEmpty()) {
            QVERIFY(view.grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/gantt-window.png")));
            d.show();
            QVERIFY(QTest::qWaitForWindowExposed(&d));
            QVERIFY(d.grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/export-dialog.png")));
        }
    }

    void exportSaysWhereInTheStatusBar()
    {
        QTemporaryDir dir;
        MainWindow w;
        w.gantt()->setPlan(scale256_, sim256_);
        const QString file = dir.filePath("amp-scale-16x16-gpt2-amp-gantt.png");
        QVERIFY(w.gantt()->exportPng(file));
        QCOMPARE(w.statusBar()->currentMessage(), QStringLiteral("Saved gantt as %1").arg(file));
        QVERIFY(w.stageMap()->exportPng(dir.filePath("m.png")) == false); // empty view: nothing saved
        QCOMPARE(w.statusBar()->currentMessage(), QStringLiteral("Saved gantt as %1").arg(file));
    }
};

QTEST_MAIN(TestLargeViews)
#include "tst_large_views.moc"
