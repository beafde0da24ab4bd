// The plan summary in the Plan details tab and two plans side by side, on hand-built plans whose numbers
// are known exactly: the two-column table, its marked differences and ratios, and the linked time axes.
// With HETPLAN_SCREENSHOTS set, saves summary.png and two-plans.png of amp and megatron on
// amp-het-cluster (tools/make-screenshots.sh).
#include "core/io/examples.h"
#include "core/planners/planner.h"
#include "core/sim/summary.h"
#include "widgets/views/gantt_view.h"
#include "widgets/views/plan_details_view.h"
#include "widgets/views/plan_pair_view.h"

#include <QDir>
#include <QTableWidget>
#include <QTest>
#include <algorithm>
#include <qcustomplot.h>

#include <numeric>

using namespace hetplan;

namespace {

// S one-layer stages on S V100-16GB GPUs of one node, measured f[s] / b[s] per micro-batch, no sends, no
// parameters (no optimizer step): 1F1B times are exact.
Plan chainPlan(const std::vector<double>& f, const std::vector<double>& b, int M)
{
    const int S = int(f.size());
    Plan plan;
    plan.planner = "hand";
    Node n;
    n.name = "n0";
    n.deviceType = "V100-16GB";
    n.gpus = S;
    n.intraBandwidth = n.nicBandwidth = 1e300;
    plan.cluster.name = "chain";
    plan.cluster.nodes = {n};
    plan.model.name = "toy";
    plan.model.arch.family = "custom";
    plan.model.arch.layers = S;
    for (int i = 0; i < S; ++i) {
        LayerSpec l;
        l.name = "l" + std::to_string(i);
        l.forwardFlops = 1e9;
        plan.model.layers.push_back(l);
    }
    plan.job.globalBatchSize = M;
    std::vector<LayerTiming> t(S);
    for (int s = 0; s < S; ++s)
        t[s] = LayerTiming{f[s], b[s], 0, 0}; // measured: no activation memory
    plan.profile.set(ProfileKey{"V100-16GB", 1, 1}, t);
    Pipeline pl;
    pl.microBatches = M;
    for (int s = 0; s < S; ++s) {
        Stage st;
        st.firstLayer = s;
        st.endLayer = s + 1;
        st.gpus = {s};
        pl.stages.push_back(st);
    }
    plan.pipelines = {pl};
    plan.summary = summarize(plan, CostModel(plan.model, plan.job, plan.profile));
    return plan;
}

// Balanced: 11 × 0.75 = 8.25 s. Slow last stage: 7 × 1.5 + 3.75 = 14.25 s.
Plan balanced() { return chainPlan({0.25, 0.25, 0.25, 0.25}, {0.5, 0.5, 0.5, 0.5}, 8); }
Plan slowLast() { return chainPlan({0.25, 0.25, 0.25, 0.5}, {0.5, 0.5, 0.5, 1.0}, 8); }

const ComparedRow* rowOf(const std::vector<ComparedRow>& rows, const QString& label)
{
    for (const ComparedRow& r : rows)
        if (r.label == label)
            return &r;
    return nullptr;
}

int tableRow(QTableWidget* t, const QString& label)
{
    for (int r = 0; r < t->rowCount(); ++r)
        if (t->item(r, 0)->text() == label)
            return r;
    return -1;
}

QString screenshotDir() { return qEnvironmentVariable("HETPLAN_SCREENSHOTS"); }

} // namespace

class TestPlanPair : public QObject {
    Q_OBJECT
private slots:
    void detailsShowSummary();
    void comparedRowsByHand();
    void costRowsCompared();
    void differencesMarkedInTable();
    void timeAxesLinked();
    void screenshots();
};

void TestPlanPair::detailsShowSummary()
{
    PlanDetailsView view;
    view.setPlan(slowLast());
    QTableWidget* t = view.summaryTable();
    QVERIFY(t->isVisibleTo(&view));
    const int it = tableRow(t, "Iteration time");
    QVERIFY(it >= 0);
    QCOMPARE(t->item(it, 1)->text(), QStringLiteral("14.25 s"));
    // Stage 3 computes 8 × 1.5 s of 14.25 s.
    QCOMPARE(t->item(tableRow(t, "Bottleneck"), 1)->text(),
             QStringLiteral("stage 3 on V100-16GB is the slowest stage: 84 % of the iteration"));
    // The job's ZeRO stage beside the degrees it shards over (the job's default: nothing sharded).
    QCOMPARE(tableRow(t, "ZeRO stage"), tableRow(t, "Degrees") + 1);
    QCOMPARE(t->item(tableRow(t, "ZeRO stage"), 1)->text(), QStringLiteral("0 — nothing sharded"));
    // Idle 27 of the 4 × 14.25 = 57 GPU-seconds of the forward/backward phase.
    QCOMPARE(t->item(tableRow(t, "Pipeline bubble"), 1)->text(), QStringLiteral("47.4 %"));
    // No parameters or activations: each GPU holds the V100's 0.75 GiB context (805,306,368 B) and NCCL
    // buffers: the 4-stage pipeline's model-parallel ring at NCCL's 32 channels (the node's unbounded
    // bandwidth) × 9,633,792 B = 308,281,344 B, plus 8 MiB of p2p buffers per neighbour, two for the middle
    // stages: peak 1,130,364,928 B (1.05 GiB) of 17,179,869,184 (16 GiB), so 16,049,504,256 B = 14.95 GiB
    // are free. Binary units, as the stage map and nvidia-smi write them.
    QCOMPARE(t->item(tableRow(t, "V100-16GB memory headroom"), 1)->text(),
             QStringLiteral("14.9 GiB (peak 1.1 GiB of 16.0 GiB)"));
    view.clear();
    QVERIFY(!t->isVisibleTo(&view));
}

void TestPlanPair::comparedRowsByHand()
{
    const std::vector<ComparedRow> rows = compareSummaries(*balanced().summary, *slowLast().summary);
    const ComparedRow* time = rowOf(rows, "Iteration time");
    QVERIFY(time);
    QCOMPARE(time->left, QStringLiteral("8.25 s"));
    QCOMPARE(time->right, QStringLiteral("14.25 s"));
    QCOMPARE(time->ratio, QStringLiteral("×1.73")); // 14.25 / 8.25
    QVERIFY(time->differs);
    QCOMPARE(rowOf(rows, "Tokens/s")->ratio, QStringLiteral("×0.58")); // 8.25 / 14.25
    const ComparedRow* bubble = rowOf(rows, "Pipeline bubble");
    QCOMPARE(bubble->left, QStringLiteral("27.3 %")); // 3 / 11
    QCOMPARE(bubble->right, QStringLiteral("47.4 %"));
    QVERIFY(bubble->ratio.isEmpty());
    const ComparedRow* degrees = rowOf(rows, "Degrees");
    QCOMPARE(degrees->left, QStringLiteral("pp 4 · dp 1 · tp 1"));
    QVERIFY(!degrees->differs);
    QVERIFY(!rowOf(rows, "Layer split")->differs);
    // Marked only where the difference is worth a look: other words, or a number more than 5 % apart.
    QVERIFY(differsNoticeably("0.412 s", "0.436 s"));               // 5.5 %
    QVERIFY(!differsNoticeably("0.412 s", "0.424 s"));              // 2.8 %
    QVERIFY(!differsNoticeably("compute 39.0 % · idle 49.9 %", "compute 40.1 % · idle 49.0 %"));
    QVERIFY(differsNoticeably("compute 39.0 % · idle 49.9 %", "compute 39.0 % · idle 59.9 %"));
    QVERIFY(differsNoticeably("pp 4 · dp 1", "pp 4 · dp 1 · tp 2")); // other words
    QVERIFY(differsNoticeably("[0,12) T4", "[0,12) V100"));
    // Balanced stages: the critical path runs through all 16 ops of the last stage (6 s of 8.25 s); each other
    // stage holds only its first forward and its last backward on it.
    QCOMPARE(rowOf(rows, "Bottleneck")->left,
             QStringLiteral("stage 3 on V100-16GB is the slowest stage: 73 % of the iteration")); // 6 / 8.25
}

// 4 GPUs at $2/h moving 10,000 tokens/s: $8/h and 8 / (10,000 · 3600) · 1e6 = $0.222 per million tokens;
// the other plan $12/h at 6,000 tokens/s: $0.556. A plan without a price has no cost rows.
void TestPlanPair::costRowsCompared()
{
    const std::vector<ComparedRow> rows = compareSummaries(*balanced().summary, *slowLast().summary,
                                                           PlanCost{8, 8 / (10000 * 3600.0) * 1e6},
                                                           PlanCost{12, 12 / (6000 * 3600.0) * 1e6});
    const ComparedRow* hour = rowOf(rows, "Cost per hour");
    QVERIFY(hour);
    QCOMPARE(hour->left, QStringLiteral("$8.00"));
    QCOMPARE(hour->right, QStringLiteral("$12.00"));
    QCOMPARE(hour->ratio, QStringLiteral("×1.50"));
    const ComparedRow* perToken = rowOf(rows, "Cost per million tokens");
    QCOMPARE(perToken->left, QStringLiteral("$0.222"));
    QCOMPARE(perToken->right, QStringLiteral("$0.556"));
    QCOMPARE(perToken->ratio, QStringLiteral("×2.50"));
    QVERIFY(!rowOf(compareSummaries(*balanced().summary, *slowLast().summary), "Cost per hour"));
    // The summary says why a plan has no cost, in one "Cost" row, and only when it has none.
    const std::vector<SummaryRow> unknown = summaryRows(*balanced().summary, std::nullopt, "no price for RTX-3090");
    const auto cost = std::find_if(unknown.begin(), unknown.end(), [](const SummaryRow& r) { return r.label == "Cost"; });
    QVERIFY(cost != unknown.end());
    QCOMPARE(cost->value, QStringLiteral("unknown: no price for RTX-3090"));
    const std::vector<SummaryRow> known = summaryRows(*balanced().summary, PlanCost{8, 0.222}, "ignored");
    QVERIFY(std::none_of(known.begin(), known.end(), [](const SummaryRow& r) { return r.label == "Cost"; }));
}

void TestPlanPair::differencesMarkedInTable()
{
    PlanPairView view;
    QVERIFY(view.setPlans(balanced(), slowLast(), "balanced", "slow last"));
    QTableWidget* t = view.table();
    QCOMPARE(t->rowCount(), int(view.rows().size()));
    QCOMPARE(t->horizontalHeaderItem(1)->text(), QStringLiteral("balanced"));
    QCOMPARE(t->horizontalHeaderItem(2)->text(), QStringLiteral("slow last"));
    const int time = tableRow(t, "Iteration time"), degrees = tableRow(t, "Degrees");
    for (int c : {1, 2}) {
        QVERIFY(t->item(time, c)->font().bold());
        QVERIFY(t->item(time, c)->background() != t->item(degrees, c)->background());
        QVERIFY(!t->item(degrees, c)->font().bold());
    }
    QCOMPARE(t->item(time, 3)->text(), QStringLiteral("×1.73"));
}

void TestPlanPair::timeAxesLinked()
{
    PlanPairView view;
    view.resize(1000, 800);
    QVERIFY(view.setPlans(balanced(), slowLast(), "balanced", "slow last"));
    GanttView* l = view.leftGantt();
    GanttView* r = view.rightGantt();
    auto seconds = [](GanttView* g) {
        const QCPRange x = g->plot()->xAxis->range();
        return std::make_pair(x.lower / g->layout().timeScale, x.upper / g->layout().timeScale);
    };
    // One time axis: both reach the longer iteration, 14.25 s (+1 % margin).
    QVERIFY(std::abs(seconds(l).second - 14.25 * 1.01) < 1e-9);
    QVERIFY(std::abs(seconds(r).second - 14.25 * 1.01) < 1e-9);
    // Zooming one moves the other to the same seconds, both ways.
    l->plot()->xAxis->setRange(2 * l->layout().timeScale, 5 * l->layout().timeScale);
    QVERIFY(std::abs(seconds(r).first - 2) < 1e-9 && std::abs(seconds(r).second - 5) < 1e-9);
    r->setTimeRangeSeconds(1, 3);
    QVERIFY(std::abs(seconds(l).first - 1) < 1e-9 && std::abs(seconds(l).second - 3) < 1e-9);
    // Still linked after a chart is rebuilt (a collapsed group redraws it).
    r->setLayoutOptions(r->layoutOptions());
    l->setTimeRangeSeconds(4, 6);
    QVERIFY(std::abs(seconds(r).first - 4) < 1e-9 && std::abs(seconds(r).second - 6) < 1e-9);
}

void TestPlanPair::screenshots()
{
    if (screenshotDir().isEmpty())
        QSKIP("HETPLAN_SCREENSHOTS is not set");
    PlanRequest req;
    req.cluster = exampleCluster("amp-het-cluster");
    req.model = loadModel("example:gpt2-amp");
    Progress progress;
    const Plan amp = runPlanner("amp", req, progress);
    const Plan megatron = runPlanner("megatron", req, progress);
    PlanDetailsView details;
    details.resize(1100, 760);
    details.setPlan(amp);
    QVERIFY(details.grab().save(QDir(screenshotDir()).filePath("summary.png")));
    PlanPairView pair;
    pair.resize(1280, 1100);
    QVERIFY(pair.setPlans(amp, megatron, "amp", "megatron"));
    pair.show(); // laid out at its size, so the table's rows wrap to the real column widths
    QVERIFY(QTest::qWaitForWindowExposed(&pair));
    QCoreApplication::processEvents();
    QVERIFY(pair.grab().save(QDir(screenshotDir()).filePath("two-plans.png")));
}

QTEST_MAIN(TestPlanPair)
#include "tst_plan_pair.moc"
