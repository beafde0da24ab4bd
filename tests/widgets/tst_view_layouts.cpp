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
    void stageMapSpmdRatios();
    void stageMapPipelineCells();
    void stageMapUnusedGpu();
    void stageMapZeroColoursByBatch();
};

void TestViewLayouts::ganttPipelineRowsAndGeometry()
{
    const GanttLayout l = layoutGantt(pipelinePlan(), SimResult{});
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

void TestViewLayouts::stageMapSpmdRatios()
{
    Plan p;
    p.cluster = twoByTwo();
    // Two segments; GPUs 0 and 1 (V100) take 30 % and 20 %, the T4s 25 % each on average.
    p.spmd = SpmdPlan{{}, {{0.3, 0.3, 0.2, 0.2}, {0.3, 0.1, 0.3, 0.3}}, {}, {}};
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
