// The plan views' layouts without a window: hand-made plans on a 2-node × 2-GPU cluster and hand-computed
// rows, labels, geometry, bars, cells and legends for pipeline, multi-pipeline, ZeRO and SPMD plans.
#include "testutil.h"

#include "widgets/views/gantt_layout.h"
#include "widgets/views/stage_map_layout.h"

#include <QTest>

using namespace hetplan;

namespace {

constexpr double kGiB = 1073741824.0;

// Node v: two V100s (GPUs 0, 1); node t: two T4s (GPUs 2, 3).
Cluster twoByTwo()
{
    Cluster c;
    c.name = "lab";
    c.nodes = {Node{"v", "V100-16GB", 2, 0, 12.5e9, Communicator::GpuRdma, 0, 0},
               Node{"t", "T4", 2, 0, 12.5e9, Communicator::GpuRdma, 0, 0}};
    return c;
}

// One pipeline, 2 stages × 2 replicas: stage 0 on the V100s, stage 1 on the T4s.
Plan pipelinePlan()
{
    Plan p;
    p.cluster = twoByTwo();
    Pipeline pl;
    pl.replicas = 2;
    pl.microBatches = 4;
    pl.stages = {Stage{0, 3, {0, 1}}, Stage{3, 6, {2, 3}}};
    p.pipelines = {pl};
    return p;
}

Plan zeroPlan()
{
    Plan p;
    p.cluster = twoByTwo();
    p.zero = ZeroPlan{2, {ZeroGpu{2, 4, 2, 4}, ZeroGpu{0, 8, 1, 8}, ZeroGpu{3, 4, 3, 2}}};
    return p;
}

TimelineEvent timelineEvent(int gpu, EventKind kind, int stage, int replica, int microBatch, double start, double end)
{
    TimelineEvent e;
    e.gpu = gpu;
    e.kind = kind;
    e.stage = stage;
    e.replica = replica;
    e.microBatch = microBatch;
    e.start = start;
    e.end = end;
    return e;
}

QStringList labels(const GanttLayout& layout)
{
    QStringList out;
    for (const GanttRowLayout* r : layout.rows())
        out << r->label;
    return out;
}

} // namespace

class TestViewLayouts : public QObject {
    Q_OBJECT
private slots:
    void ganttPipelineRowsAndGeometry();
    void ganttBarsAndTimeAxis();
    void ganttManyPipelines();
    void ganttZeroOneRowPerGpu();
    void ganttSpmdRowsFromEvents();
    void ganttIdenticalReplicasDrawnOnce();
    void ganttReplicasThatDifferStaySeparate();
    void ganttCollapsedGroup();
    void ganttCriticalPathAndIdleGaps();
    void stageMapSpmdRatios();
    void stageMapTilesByNode();
    void stageMapPipelineCells();
    void stageMapUnusedGpu();
    void stageMapZeroColoursByBatch();
};

void TestViewLayouts::ganttPipelineRowsAndGeometry()
{
    GanttLayoutOptions everyReplica;
    everyReplica.mergeIdentical = false;
    const GanttLayout l = layoutGantt(pipelinePlan(), SimResult{}, everyReplica);
    // Stage by stage, replica-major inside a stage: 4 rows in 2 groups.
    QCOMPARE(labels(l),
             (QStringList{"s0 r0 · v/0 (V100)", "s0 r1 · v/1 (V100)", "s1 r0 · t/0 (T4)", "s1 r1 · t/1 (T4)"}));
    QCOMPARE(l.groups.size(), size_t(2));
    // A row is 1 + 0.04 + 0.42 = 1.46 high; 0.22 between rows, 0.34 between groups, bands 0.12 wider.
    const auto rows = l.rows();
    QCOMPARE(rows[0]->top, 0.0);
    QCOMPARE(rows[1]->top, 1.68);
    QCOMPARE(rows[2]->top, 3.48);
    QCOMPARE(rows[3]->top, 5.16);
    QCOMPARE(rows[3]->commTop(), 6.2);
    QCOMPARE(l.valueEnd, 6.62);
    QCOMPARE(l.groups[0].bandTop, -0.12);
    QCOMPARE(l.groups[0].bandBottom, 3.26);
    QCOMPARE(l.groups[1].bandTop, 3.36);
    QCOMPARE(l.groups[1].bandBottom, 6.74);
    QCOMPARE(l.kind, QStringLiteral("2 stages"));
    QCOMPARE(l.stageText, (std::vector<QString>{"stage 0 · layers [0,3)", "stage 1 · layers [3,6)"}));
}

void TestViewLayouts::ganttBarsAndTimeAxis()
{
    SimResult sim;
    sim.iterationSeconds = 0.05;
    sim.events = {timelineEvent(0, EventKind::Forward, 0, 0, 0, 0.0, 0.01),
                  timelineEvent(0, EventKind::SendActivation, 0, 0, 0, 0.01, 0.012),
                  timelineEvent(3, EventKind::Backward, 1, 1, 1, 0.02, 0.03),
                  timelineEvent(7, EventKind::Forward, 0, 0, 0, 0.0, 0.01)}; // no such GPU: not drawn
    const GanttLayout l = layoutGantt(pipelinePlan(), sim);
    QCOMPARE(l.timeUnit, QStringLiteral("ms"));
    QCOMPARE(l.span, 50.0);
    QCOMPARE(l.bars.size(), size_t(3));
    // Compute events on the row's compute track (2k), communication on the track below (2k+1).
    QCOMPARE(l.bars[0].track, 0);
    QCOMPARE(l.bars[0].end, 10.0);
    QCOMPARE(l.bars[1].track, 1);
    QCOMPARE(l.bars[1].start, 10.0);
    QCOMPARE(l.bars[2].track, 6); // GPU 3 is the fourth row
    QCOMPARE(l.bars[2].event, 2);
    QVERIFY(l.legend.send);
    QVERIFY(!l.legend.collective && !l.legend.recompute && !l.legend.optimizer);
    QVERIFY(l.legend.microBatches); // the legend explains the micro-batch colours
    const QString tip = ganttEventText(l, sim.events[2]);
    QVERIFY2(tip.startsWith("<b>backward · micro-batch 1</b>"), qPrintable(tip));
    QVERIFY2(tip.contains("stage 1 · layers [3,6) · replica 1"), qPrintable(tip));
    QVERIFY2(tip.contains("GPU t/1 (T4)"), qPrintable(tip));
    // An event past the iteration's end stretches the axis to it (2.5 s: seconds).
    sim.events.push_back(timelineEvent(1, EventKind::Optimizer, 0, 1, -1, 2.0, 2.5));
    const GanttLayout longer = layoutGantt(pipelinePlan(), sim);
    QCOMPARE(longer.timeUnit, QStringLiteral("s"));
    QCOMPARE(longer.span, 2.5);
    QVERIFY(longer.legend.optimizer);
}

void TestViewLayouts::ganttManyPipelines()
{
    Plan p;
    p.cluster = twoByTwo();
    Pipeline a, b;
    a.stages = {Stage{0, 6, {0, 1}, 2}};
    b.stages = {Stage{0, 6, {2, 3}, 2}};
    p.pipelines = {a, b};
    const GanttLayout l = layoutGantt(p, SimResult{});
    QCOMPARE(labels(l),
             (QStringList{"P0 s0 · v/0 (V100)", "P0 s0 · v/1 (V100)", "P1 s0 · t/0 (T4)", "P1 s0 · t/1 (T4)"}));
    QCOMPARE(l.stageBase, (std::vector<int>{0, 1}));
    QCOMPARE(l.kind, QStringLiteral("1 stage"));
    TimelineEvent e = timelineEvent(2, EventKind::Forward, 0, 0, 3, 0, 1e-3);
    e.pipeline = 1;
    QVERIFY(ganttEventText(l, e).contains("pipeline 1 · stage 0 · layers [0,6)"));
}

void TestViewLayouts::ganttZeroOneRowPerGpu()
{
    const Plan p = zeroPlan();
    const GanttLayout l = layoutGantt(p, SimResult{});
    // One group, one row per GPU of the plan, in the plan's order.
    QCOMPARE(l.groups.size(), size_t(1));
    QCOMPARE(l.rows().size(), p.zero->gpus.size());
    QCOMPARE(labels(l), (QStringList{"t/0 (T4) · mbs 4", "v/0 (V100) · mbs 8", "t/1 (T4) · mbs 4"}));
    QCOMPARE(l.kind, QStringLiteral("ZeRO-2"));
}

void TestViewLayouts::ganttSpmdRowsFromEvents()
{
    Plan p;
    p.cluster = twoByTwo();
    p.spmd = SpmdPlan{};
    p.spmd->program = {"x = Placeholder-Shard(0)", "y | All-Reduce = MatMul(x, w)"};
    SimResult sim;
    sim.iterationSeconds = 0.004;
    sim.events = {timelineEvent(3, EventKind::Forward, 0, 0, -1, 0, 0.002),
                  timelineEvent(1, EventKind::AllReduce, 0, 0, -1, 0.002, 0.004)};
    const GanttLayout l = layoutGantt(p, sim);
    // No part of the plan names GPUs: the ones with events, in index order.
    QCOMPARE(labels(l), (QStringList{"v/1 (V100)", "t/1 (T4)"}));
    QCOMPARE(l.bars[0].track, 2);
    QCOMPARE(l.bars[1].track, 1);
    QVERIFY(l.legend.collective);
    // Compute per op group (micro-batch -1): no micro-batch colours in the legend; the subtitle names the kind.
    QVERIFY(!l.legend.microBatches);
    QCOMPARE(l.kind, QStringLiteral("SPMD, 2 instructions"));
}

void TestViewLayouts::ganttIdenticalReplicasDrawnOnce()
{
    // The two replicas of each stage run on the same device type with the same timeline: one row each.
    SimResult sim;
    sim.iterationSeconds = 0.03;
    for (int gpu : {0, 1})
        sim.events.push_back(timelineEvent(gpu, EventKind::Forward, 0, gpu, 0, 0.0, 0.01));
    for (int gpu : {2, 3})
        sim.events.push_back(timelineEvent(gpu, EventKind::Forward, 1, gpu - 2, 0, 0.01, 0.02));
    const GanttLayout l = layoutGantt(pipelinePlan(), sim);
    QCOMPARE(labels(l), (QStringList{"s0 r0 × 2 · v/0 (V100)", "s1 r0 × 2 · t/0 (T4)"}));
    QCOMPARE(l.groups[0].key, QStringLiteral("s0"));
    QCOMPARE(l.groups[0].title, QStringLiteral("stage 0 · 2 replicas, 1 distinct"));
    QVERIFY(l.groups[0].merged && l.groups[0].canMerge());
    QCOMPARE(l.groups[0].hiddenRows, 1);
    // Rows close up: the second group starts right after the first one's single row.
    QCOMPARE(l.rows()[1]->top, 1.46 + 0.34);
    // Only the drawn GPUs' events are bars: GPU 0's on track 0, GPU 2's on track 2.
    QCOMPARE(l.bars.size(), size_t(2));
    QCOMPARE(l.bars[0].event, 0);
    QCOMPARE(l.bars[1].track, 2);
    QCOMPARE(l.bars[1].event, 2);
    // Shown one by one on request (stage 1 only).
    GanttLayoutOptions o;
    o.separated = {QStringLiteral("s1")};
    QCOMPARE(labels(layoutGantt(pipelinePlan(), sim, o)),
             (QStringList{"s0 r0 × 2 · v/0 (V100)", "s1 r0 · t/0 (T4)", "s1 r1 · t/1 (T4)"}));
}

void TestViewLayouts::ganttReplicasThatDifferStaySeparate()
{
    // Replica 1 of stage 0 starts 1 ms later; stage 1 puts its replicas on a V100 and a T4 (same times).
    Plan p = pipelinePlan();
    p.pipelines[0].stages[1].gpus = {1, 2};
    p.pipelines[0].stages[0].gpus = {0, 3};
    SimResult sim;
    sim.iterationSeconds = 0.03;
    sim.events = {timelineEvent(0, EventKind::Forward, 0, 0, 0, 0.0, 0.01),
                  timelineEvent(3, EventKind::Forward, 0, 1, 0, 0.001, 0.011),
                  timelineEvent(1, EventKind::Forward, 1, 0, 0, 0.01, 0.02),
                  timelineEvent(2, EventKind::Forward, 1, 1, 0, 0.01, 0.02)};
    const GanttLayout l = layoutGantt(p, sim);
    QCOMPARE(labels(l), (QStringList{"s0 r0 · v/0 (V100)", "s0 r1 · t/1 (T4)", "s1 r0 · v/1 (V100)",
                                     "s1 r1 · t/0 (T4)"}));
    QCOMPARE(l.groups[0].distinctReplicas, 2);
    QVERIFY(!l.groups[0].canMerge() && !l.groups[0].merged);
    QCOMPARE(l.groups[1].distinctReplicas, 2); // same times, different devices
}

void TestViewLayouts::ganttCollapsedGroup()
{
    GanttLayoutOptions o;
    o.mergeIdentical = false;
    o.collapsed = {QStringLiteral("s0")};
    const GanttLayout l = layoutGantt(pipelinePlan(), SimResult{}, o);
    QCOMPARE(labels(l), (QStringList{"s0 r0 · v/0 (V100) (+1 rows)", "s1 r0 · t/0 (T4)", "s1 r1 · t/1 (T4)"}));
    QVERIFY(l.groups[0].collapsed);
    QVERIFY(!l.groups[1].collapsed);
    QCOMPARE(l.groups[0].hiddenRows, 1);
    // The band of a one-row group: the row (1.46) and 0.12 either side.
    QCOMPARE(l.groups[0].bandBottom, 1.58);
    // A group with one row has nothing to collapse.
    Plan single = pipelinePlan();
    single.pipelines[0].replicas = 1;
    single.pipelines[0].stages = {Stage{0, 6, {0}}};
    o.collapsed = {QStringLiteral("s0")};
    const GanttLayout one = layoutGantt(single, SimResult{}, o);
    QCOMPARE(labels(one), QStringList{"s0 · v/0 (V100)"});
    QVERIFY(!one.groups[0].collapsed);
}

namespace {
// pipelinePlan()'s two identical replicas, one micro-batch (ms): stage 0 forward [0, 1], optimizer [1, 2]
// (off the path: it finishes long before the gradient comes back), backward [5, 6]; stage 1 forward [1, 3]
// (waiting on stage 0's), backward [3, 5].
SimResult twoReplicaTimeline()
{
    SimResult r;
    r.iterationSeconds = 6e-3;
    const double ms = 1e-3;
    for (int rep = 0; rep < 2; ++rep) {
        const int g0 = rep, g1 = 2 + rep;
        r.events.push_back(timelineEvent(g0, EventKind::Forward, 0, rep, 0, 0, 1 * ms));
        r.events.push_back(timelineEvent(g0, EventKind::Optimizer, 0, rep, -1, 1 * ms, 2 * ms));
        r.events.push_back(timelineEvent(g1, EventKind::Forward, 1, rep, 0, 1 * ms, 3 * ms));
        r.events.back().waitedOn = int(r.events.size()) - 3;
        r.events.push_back(timelineEvent(g1, EventKind::Backward, 1, rep, 0, 3 * ms, 5 * ms));
        r.events.push_back(timelineEvent(g0, EventKind::Backward, 0, rep, 0, 5 * ms, 6 * ms));
        r.events.back().waitedOn = int(r.events.size()) - 2;
    }
    return r;
}
} // namespace

void TestViewLayouts::ganttCriticalPathAndIdleGaps()
{
    const SimResult sim = twoReplicaTimeline();
    GanttLayoutOptions o;
    o.criticalPath = true;
    // Merged: one row per stage (GPUs 0 and 2). The chain F s0 → F s1 → B s1 → B s0 is marked, the optimizer
    // is not.
    const GanttLayout merged = layoutGantt(pipelinePlan(), sim, o);
    QCOMPARE(merged.rows().size(), size_t(2));
    QCOMPARE(merged.bars.size(), size_t(5));
    QCOMPARE(merged.criticalBars, 4);
    for (const GanttBarLayout& bar : merged.bars)
        QCOMPARE(bar.critical, sim.events[size_t(bar.event)].kind != EventKind::Optimizer);
    // The chain crosses rows twice: F s0 → F s1 at 1 ms (track 0 → 2), B s1 → B s0 at 5 ms (2 → 0).
    QCOMPARE(merged.criticalLinks.size(), size_t(2));
    QCOMPARE(merged.criticalLinks[0].fromTrack, 0);
    QCOMPARE(merged.criticalLinks[0].toTrack, 2);
    QVERIFY(std::abs(merged.criticalLinks[1].to - 5 * merged.timeScale * 1e-3) < 1e-9);
    QCOMPARE(merged.criticalLinks[1].toTrack, 0);
    // The representatives' gaps: GPU 0 idles [2, 5] (compute track 0), GPU 2 [0, 1] and [5, 6] (track 2).
    const double k = merged.timeScale * 1e-3;
    QCOMPARE(merged.gaps.size(), size_t(3));
    const std::vector<std::tuple<double, double, int>> want{{2 * k, 5 * k, 0}, {0, 1 * k, 2}, {5 * k, 6 * k, 2}};
    for (size_t i = 0; i < want.size(); ++i) {
        QVERIFY(std::abs(merged.gaps[i].start - std::get<0>(want[i])) < 1e-9);
        QVERIFY(std::abs(merged.gaps[i].end - std::get<1>(want[i])) < 1e-9);
        QCOMPARE(merged.gaps[i].track, std::get<2>(want[i]));
    }
    // Every replica on its own row: replica 1's copies of the chain are marked too (it runs in lockstep),
    // and each of the 4 rows has its gaps.
    o.mergeIdentical = false;
    const GanttLayout all = layoutGantt(pipelinePlan(), sim, o);
    QCOMPARE(all.bars.size(), size_t(10));
    QCOMPARE(all.criticalBars, 8);
    QCOMPARE(all.gaps.size(), size_t(6));
    // Toggle off: nothing marked, the gaps stay.
    o.criticalPath = false;
    const GanttLayout off = layoutGantt(pipelinePlan(), sim, o);
    QCOMPARE(off.criticalBars, 0);
    QVERIFY(off.criticalLinks.empty());
    QVERIFY(std::none_of(off.bars.begin(), off.bars.end(), [](const GanttBarLayout& b) { return b.critical; }));
    QCOMPARE(off.gaps.size(), size_t(6));
}

void TestViewLayouts::stageMapTilesByNode()
{
    SimResult sim;
    sim.peakMemoryBytes = {{0, 8 * kGiB}, {1, 10 * kGiB}};
    // Below the threshold: rows × columns of cells. At it (4 GPUs here): a tile per node.
    QVERIFY(!layoutStageMap(pipelinePlan(), sim, 5).byNode);
    const StageMapLayout l = layoutStageMap(pipelinePlan(), sim, 4);
    QVERIFY(l.byNode);
    // 2 nodes: ceil(sqrt(2 × 1.6)) = 2 tile columns, 1 row; 2 GPUs a node: ceil(sqrt 2) = 2 squares, 1 row.
    QCOMPARE(l.tileColumns, 2);
    QCOMPARE(l.tileRows, 1);
    QCOMPARE(l.innerColumns, 2);
    QCOMPARE(l.innerRows, 1);
    QCOMPARE(l.tiles.size(), size_t(2));
    QCOMPARE(l.tiles[1].column, 1);
    QCOMPARE(l.tiles[1].label, QStringLiteral("t"));
    QCOMPARE(l.tiles[1].device, QStringLiteral("T4"));
    QVERIFY(l.mixedDevices); // V100 and T4 nodes: each tile names its type
    QCOMPARE(l.tiles[1].cells, (std::vector<int>{2, 3}));
    QCOMPARE(l.tiles[0].toolTip, QStringLiteral("<b>v</b> (V100-16GB) · 2 GPUs<br>stage 0: GPU 0–1<br>"
                                                "highest peak memory 10.00 GiB of 16.0 GiB"));
    QCOMPARE(l.tiles[1].toolTip, QStringLiteral("<b>t</b> (T4) · 2 GPUs<br>stage 1: GPU 0–1"));
    // Tile 0 spans [0.05, 0.95]²; its squares share the 0.9 width below a 0.24 header, 12 % gaps:
    // slot 1 is 0.45 wide and 0.66 high, the square 0.396 × 0.5808 at (0.05 + 0.45 + 0.027, 0.29 + 0.0396).
    QCOMPARE(l.tileRect(l.tiles[0]), QRectF(0.05, 0.05, 0.9, 0.9));
    const QRectF sq = l.gpuRect(l.tiles[0], 1);
    QVERIFY(std::abs(sq.left() - 0.527) < 1e-9);
    QVERIFY(std::abs(sq.top() - 0.3296) < 1e-9);
    QVERIFY(std::abs(sq.width() - 0.396) < 1e-9);
    QVERIFY(std::abs(sq.height() - 0.5808) < 1e-9);
}

void TestViewLayouts::stageMapSpmdRatios()
{
    Plan p;
    p.cluster = twoByTwo();
    // Two segments; GPUs 0 and 1 (V100) take 30 % and 20 %, the T4s 25 % each on average.
    p.spmd = SpmdPlan{{}, {{0.3, 0.3, 0.2, 0.2}, {0.3, 0.1, 0.3, 0.3}}, {}, {}, {}};
    const StageMapLayout l = layoutStageMap(p, SimResult{});
    QCOMPARE(l.colourMeaning, QStringLiteral("SPMD, colour = sharding ratio"));
    // Distinct means 20 %, 25 %, 30 %: three colours, smallest first.
    QCOMPARE(l.legend.size(), size_t(3));
    QCOMPARE(l.legend[0].name, QStringLiteral("ratio 20.00 %"));
    QCOMPARE(l.cells[0].colourKey, 2);
    QCOMPARE(l.cells[1].colourKey, 0);
    QCOMPARE(l.cells[2].colourKey, 1);
    QCOMPARE(l.cells[1].lines.at(0), QStringLiteral("ratio 20.00 %"));
    QCOMPARE(l.cells[1].lines.at(1), QStringLiteral("10.0–30.0 %"));
    QVERIFY(!l.anyUnused);
}

void TestViewLayouts::stageMapPipelineCells()
{
    SimResult sim;
    sim.peakMemoryBytes = {{0, 8 * kGiB}, {3, 20 * kGiB}};
    const StageMapLayout l = layoutStageMap(pipelinePlan(), sim);
    QCOMPARE(l.rows, 2);
    QCOMPARE(l.columns, 2);
    QCOMPARE(l.rowLabels, (std::vector<QString>{"v (V100)", "t (T4)"}));
    QCOMPARE(l.columnLabels, (std::vector<QString>{"GPU 0", "GPU 1"}));
    QVERIFY(!l.zero);
    QCOMPARE(l.legend.size(), size_t(2));
    QCOMPARE(l.legend[1].name, QStringLiteral("stage 1 [3,6)"));
    QCOMPARE(l.legend[1].colourKey, 1);
    QCOMPARE(l.cells.size(), size_t(4));
    const StageMapCell& c1 = l.cells[1];
    QCOMPARE(c1.row, 0);
    QCOMPARE(c1.column, 1);
    QCOMPARE(c1.colourKey, 0);
    QCOMPARE(c1.lines, (QStringList{"stage 0", "layers [0,3)", "replica 1", "V100"}));
    QCOMPARE(c1.used, -1.0); // no peak simulated for it: no memory bar
    QCOMPARE(l.cells[2].row, 1);
    QCOMPARE(l.cells[2].colourKey, 1);
    QCOMPARE(l.cells[0].memoryText, QStringLiteral("8.0/16 GiB"));
    QVERIFY(l.cells[3].overCapacity()); // 20 GiB on a 16 GiB T4
    QVERIFY(l.cells[3].toolTip.contains("over capacity"));
    QCOMPARE(l.overCapacity, 1);
    QVERIFY(!l.anyUnused);
    QCOMPARE(l.colourMeaning, QStringLiteral("colour = pipeline stage"));
}

void TestViewLayouts::stageMapUnusedGpu()
{
    Plan p = pipelinePlan();
    p.pipelines[0].replicas = 1;
    p.pipelines[0].stages = {Stage{0, 3, {0}}, Stage{3, 6, {1}}, Stage{6, 9, {2}}};
    const StageMapLayout l = layoutStageMap(p, SimResult{});
    QCOMPARE(l.cells[3].colourKey, -1);
    QCOMPARE(l.cells[3].lines, (QStringList{"unused", "T4"}));
    QVERIFY(l.cells[3].toolTip.contains("not used by this plan"));
    QVERIFY(l.anyUnused);
    QCOMPARE(l.cells[2].lines, (QStringList{"stage 2", "layers [6,9)", "T4"})); // one replica: no replica line
}

void TestViewLayouts::stageMapZeroColoursByBatch()
{
    const StageMapLayout l = layoutStageMap(zeroPlan(), SimResult{});
    QVERIFY(l.zero);
    // Colour keys rank the plan's micro-batch sizes: 4 → 0, 8 → 1.
    QCOMPARE(l.legend.size(), size_t(2));
    QCOMPARE(l.legend[0].name, QStringLiteral("micro-batch 4"));
    QCOMPARE(l.legend[1].name, QStringLiteral("micro-batch 8"));
    QCOMPARE(l.cells[0].colourKey, 1);
    QCOMPARE(l.cells[2].colourKey, 0);
    QCOMPARE(l.cells[0].lines, (QStringList{"mbs 8 × 1 step", "8 samples", "V100"}));
    QCOMPARE(l.cells[2].lines, (QStringList{"mbs 4 × 2 steps", "8 samples", "T4"}));
    QCOMPARE(l.cells[3].lines, (QStringList{"mbs 4 × 3 steps", "10 samples", "last 2", "T4"}));
    QCOMPARE(l.cells[1].colourKey, -1);
    QCOMPARE(l.colourMeaning, QStringLiteral("ZeRO-2, colour = micro-batch size"));
}

QTEST_MAIN(TestViewLayouts)
#include "tst_view_layouts.moc"
