// The Plan details view without a window (layoutPlanDetails on hand-built plans: Ditto's folding table,
// Oobleck's template rows and T-by-stage-count matrix, HetHub's metric rows with units, the SPMD program
// text and ratio table, HAP's class table, the generic tree, section order, clipboard text) and the widget
// it fills (tabs per section, messages when there is nothing to show).
#include "testutil.h"

#include "widgets/views/plan_details_layout.h"
#include "widgets/views/plan_details_view.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTabWidget>
#include <QTest>

using namespace hetplan;

namespace {

// Node v: two V100s (GPUs 0, 1); node t: two T4s (GPUs 2, 3).
Cluster twoByTwo()
{
    Cluster c;
    c.name = "lab";
    c.nodes = {Node{"v", "V100-16GB", 2, 0, 12.5e9, Communicator::GpuRdma, 0, 0},
               Node{"t", "T4", 2, 0, 12.5e9, Communicator::GpuRdma, 0, 0}};
    return c;
}

const DetailsBlock* findBlock(const DetailsSection& s, const QString& headingStart)
{
    for (const DetailsBlock& b : s.blocks)
        if (b.heading.startsWith(headingStart))
            return &b;
    return nullptr;
}

// The value column of a key/value table row whose key starts with `key`.
QString valueOf(const DetailsBlock& kv, const QString& key)
{
    for (const QStringList& r : kv.rows)
        if (r.size() == 2 && r[0].startsWith(key))
            return r[1];
    return QStringLiteral("<missing>");
}

QJsonObject stageJson(const char* device, int first, int end, int gpus, int dp, int tp, double seconds)
{
    return {{"device", device},  {"layers", QJsonArray{first, end}}, {"gpus", gpus}, {"dp", dp}, {"tp", tp},
            {"seconds", seconds}};
}

QJsonObject dittoJson()
{
    const QJsonArray types{
        QJsonObject{{"device", "V100-16GB"}, {"gpus", 4}, {"d", 1}, {"virtual_gpus", 4}, {"model_seconds", 1.5}},
        QJsonObject{{"device", "RTX-3090"}, {"gpus", 4}, {"d", 2}, {"virtual_gpus", 8}, {"model_seconds", 0.75}}};
    const QJsonObject folding{{"mode", "comm"},     {"weakest", "V100-16GB"}, {"types", types},
                              {"virtual_gpus", 12}, {"gpus_per_node", 2},     {"virtual_nodes", 6}};
    const QJsonArray virtualTemplates{
        QJsonObject{{"virtual_gpus", 1}, {"bounds", QJsonArray{0, 6}}, {"gpus", QJsonArray{1}}},
        QJsonObject{{"virtual_gpus", 2}, {"bounds", QJsonArray{0, 3, 6}}, {"gpus", QJsonArray{1, 1}}}};
    return {{"recovery", "greedy"},
            {"folding", folding},
            {"T", 0.35},
            {"T1", 0.1},
            {"T2", 0.2},
            {"T3", 0.05},
            {"slowest_stage", 2},
            {"micro_batches", 8},
            {"granularity", 1},
            {"virtual_template", QJsonObject{{"stages", 12}, {"T", 0.9}}},
            {"reused", false},
            {"template",
             QJsonArray{stageJson("V100-16GB", 0, 2, 2, 2, 1, 0.02), stageJson("RTX-3090", 2, 6, 2, 2, 1, 0.03)}},
            {"virtual_templates", virtualTemplates},
            {"extra_key", 7}};
}

QJsonObject oobleckJson()
{
    const QJsonObject one{{"nodes", 1},
                          {"stages", 1},
                          {"T", 0.5},
                          {"T1", 0.1},
                          {"T2", 0.4},
                          {"T3", 0.0},
                          {"T_by_stages", QJsonObject{{"1", 0.5}}},
                          {"template", QJsonArray{stageJson("T4", 0, 6, 4, 4, 1, 0.1)}}};
    const QJsonObject two{
        {"nodes", 2},
        {"stages", 2},
        {"T", 0.3},
        {"T1", 0.1},
        {"T2", 0.15},
        {"T3", 0.05},
        {"T_by_stages", QJsonObject{{"2", 0.3}, {"3", 0.4}}},
        {"template", QJsonArray{stageJson("T4", 0, 3, 4, 4, 1, 0.05), stageJson("T4", 3, 6, 8, 4, 2, 0.05)}}};
    const QJsonArray instance{QJsonObject{{"nodes", 2}, {"stages", 2}, {"micro_batches", 5}, {"T", 0.3}}};
    return {{"device", "T4"},
            {"gpus_per_node", 4},
            {"min_nodes", 1},
            {"micro_batch_size", 2},
            {"micro_batches", 16},
            {"reused", true},
            {"templates", QJsonArray{one, two}},
            {"instance", instance}};
}

// Three instructions on the 2 × 2 cluster, two segments: V100s take 0.3 then 0.4 of each sharded
// tensor, T4s 0.2 then 0.1.
Plan spmdPlan()
{
    Plan p;
    p.planner = "hap";
    p.cluster = twoByTwo();
    p.model.name = "mlp";
    SpmdPlan s;
    s.program = {"x = Placeholder-Shard(0)", "y | All-Gather(0) = MatMul[b](x, w)",
                 "dw | Identity = all-reduce(dw | All-Reduce) [grad]"};
    SpmdInstruction load;
    load.kind = SpmdInstruction::Kind::Load;
    load.group = "fc1";
    load.sharded = true;
    load.bytes = 1e6;
    SpmdInstruction compute;
    compute.group = "fc1";
    compute.flops = 2e9;
    compute.sharded = true;
    SpmdInstruction reduce;
    reduce.kind = SpmdInstruction::Kind::Collective;
    reduce.collective = "all-reduce";
    reduce.group = "fc1";
    reduce.backward = true;
    reduce.segment = 1;
    reduce.bytes = 4e6;
    s.instructions = {load, compute, reduce};
    s.shardingRatios = {{0.3, 0.3, 0.2, 0.2}, {0.4, 0.4, 0.1, 0.1}};
    s.segments = {"in", "fc1"};
    p.spmd = s;
    const QJsonArray classes{QJsonObject{{"device", "V100-16GB"}, {"gpus", 2}, {"flops_per_second", 1.2e14}},
                             QJsonObject{{"device", "T4"}, {"gpus", 2}, {"flops_per_second", 4e13}}};
    p.details["hap"] = QJsonObject{{"rounds", 2},
                                   {"stopped_by", "converged"},
                                   {"cost_trace", QJsonArray{0.5, 0.25}},
                                   {"device_classes", classes},
                                   {"class_ratios", QJsonArray{QJsonArray{0.3, 0.2}, QJsonArray{0.4, 0.1}}},
                                   {"expanded", 10},
                                   {"generated", 30},
                                   {"pruned", 5}};
    p.details["zeta"] = QJsonObject{{"note", "last by name"}};
    p.details["alpha"] = QJsonObject{{"note", "first by name"}};
    return p;
}

} // namespace

class TestPlanDetails : public QObject {
    Q_OBJECT
private slots:
    void dittoFoldingAndTemplates();
    void oobleckTemplateRows();
    void hethubMetricRowsWithUnits();
    void hethubRatiosFromThePlanWhenGiven();
    void spmdProgramTextHasEveryInstruction();
    void spmdRatiosByDeviceType();
    void hapClassesAndRatios();
    void sectionOrderAndGenericTree();
    void sectionTextForTheClipboard();
    void viewTabsAndMessages();
    void optionsByTheirLabels();
    void gpuSelectionTable();
};

// A plan chosen on a subset of the nodes: the section says what was left out and lists every subset tried.
void TestPlanDetails::gpuSelectionTable()
{
    Plan p;
    p.planner = "poplar";
    p.details["selection"] = QJsonObject{
        {"objective", "fastest"},
        {"goal", "time"},
        {"subset", "without T4"},
        {"why", "1.38× faster than the plan on every node"},
        {"left_out", QJsonArray{QJsonObject{{"node", "t4-0"}, {"device", "T4"}, {"gpus", 2}}}},
        {"idle_in_plan", QJsonArray{}},
        {"tried", QJsonArray{QJsonObject{{"subset", "every node"}, {"gpus", 4}, {"iteration_seconds", 1.612},
                                         {"tokens_per_second", 20332.0}, {"dollars_per_hour", 7.17},
                                         {"dollars_per_million_tokens", 0.098}, {"meets", true}},
                             QJsonObject{{"subset", "without V100-16GB"}, {"error", "does not fit"}}}}};
    const PlanDetailsLayout l = layoutPlanDetails(p);
    QCOMPARE(l.sections.size(), size_t(1));
    const DetailsSection& s = l.sections[0];
    QCOMPARE(s.title, QStringLiteral("GPU selection"));
    const DetailsBlock* why = findBlock(s, "Which GPUs, and why");
    QVERIFY(why);
    QCOMPARE(valueOf(*why, "Nodes left out"), QStringLiteral("t4-0 (2 × T4)"));
    QCOMPARE(valueOf(*why, "GPUs the plan leaves idle"), QStringLiteral("none"));
    const DetailsBlock* tried = findBlock(s, "Subsets tried");
    QVERIFY(tried);
    QCOMPARE(tried->rows.size(), size_t(2));
    QCOMPARE(tried->rows[0][4], QStringLiteral("$7.17"));
    QCOMPARE(tried->rows[1][6], QStringLiteral("no plan: does not fit"));
}

void TestPlanDetails::dittoFoldingAndTemplates()
{
    Plan p;
    p.planner = "ditto";
    p.details["ditto"] = dittoJson();
    const PlanDetailsLayout l = layoutPlanDetails(p);
    QCOMPARE(l.sections.size(), size_t(1));
    const DetailsSection& s = l.sections[0];
    QCOMPARE(s.title, QStringLiteral("Ditto"));
    const DetailsBlock* folding = findBlock(s, "Node folding");
    QVERIFY(folding);
    // One row per type: GPUs, d_i, virtual GPUs = GPUs × d_i, c_i (1.5 s and 0.75 s as formatDuration writes them).
    QCOMPARE(folding->rows.size(), size_t(2));
    QCOMPARE(folding->rows[0], (QStringList{"V100-16GB", "4", "1", "4", "1.500 s"}));
    QCOMPARE(folding->rows[1], (QStringList{"RTX-3090", "4", "2", "8", "750.0 ms"}));
    QVERIFY2(folding->note.contains("Folding comm"), qPrintable(folding->note));
    QVERIFY2(folding->note.contains("12 virtual GPUs on 6 virtual nodes of 2"), qPrintable(folding->note));
    const DetailsBlock* summary = findBlock(s, "Recovery and objective");
    QVERIFY(summary);
    QCOMPARE(valueOf(*summary, "Recovery"), QStringLiteral("greedy (algorithm 1)"));
    // 0.1 + 0.2 + 0.05 = 0.35 s.
    QCOMPARE(valueOf(*summary, "T = T1"), QStringLiteral("100.0 ms + 200.0 ms + 50.00 ms = 350.0 ms"));
    QCOMPARE(valueOf(*summary, "Virtual template"), QStringLiteral("12 single-GPU stages, T 900.0 ms"));
    QCOMPARE(valueOf(*summary, "Slowest stage"), QStringLiteral("1")); // k* = 2, shown from 0 as in the table
    const DetailsBlock* recovered = findBlock(s, "Recovered template");
    QVERIFY(recovered);
    // Stages count from 0 as in the Gantt chart; slowest_stage (k* = 2) counts from 1 as in the paper.
    QCOMPARE(recovered->rows[0].front(), QStringLiteral("0"));
    QCOMPARE(recovered->rows[1], (QStringList{"1 (slowest)", "RTX-3090", "[2, 6)", "2", "2 × 1", "30.00 ms"}));
    const DetailsBlock* virt = findBlock(s, "Oobleck templates on the virtual cluster");
    QVERIFY(virt);
    QCOMPARE(virt->rows.size(), size_t(2));
    QCOMPARE(virt->rows[1], (QStringList{"2", "2", "[0, 3) [3, 6)", "1, 1"}));
    // A key no builder knows is still shown.
    const DetailsBlock* rest = findBlock(s, "Other values");
    QVERIFY(rest);
    QCOMPARE(rest->tree.size(), size_t(1));
    QCOMPARE(rest->tree[0].key, QStringLiteral("extra_key"));
    QCOMPARE(rest->tree[0].value, QStringLiteral("7"));
}

void TestPlanDetails::oobleckTemplateRows()
{
    Plan p;
    p.planner = "oobleck";
    p.details["oobleck"] = oobleckJson();
    const PlanDetailsLayout l = layoutPlanDetails(p);
    QCOMPARE(l.sections.size(), size_t(1));
    const DetailsSection& s = l.sections[0];
    const DetailsBlock* templates = findBlock(s, "Pipeline templates");
    QVERIFY(templates);
    QCOMPARE(templates->rows.size(), size_t(2));
    QCOMPARE(templates->rows[0].mid(0, 5), (QStringList{"1", "1", "[0, 6)", "4", "500.0 ms"}));
    // The second stage has tp 2: its GPU count says so.
    QCOMPARE(templates->rows[1].mid(0, 5), (QStringList{"2", "2", "[0, 3) [3, 6)", "4, 8 (tp 2)", "300.0 ms"}));
    // T3 = 0 (one stage: no steady state beyond the warm-up) reads as 0, not "0.00 µs".
    QCOMPARE(templates->rows[0][5], QStringLiteral("100.0 ms + 400.0 ms + 0 = 500.0 ms"));
    // Rows = node counts, columns = 1..3 stages; a stage count without a template is "–".
    const DetailsBlock* matrix = findBlock(s, "T by stage count");
    QVERIFY(matrix);
    QCOMPARE(matrix->columns, (QStringList{"Nodes", "1 stage", "2 stages", "3 stages"}));
    QCOMPARE(matrix->rows[0], (QStringList{"1", "500.0 ms", "–", "–"}));
    QCOMPARE(matrix->rows[1], (QStringList{"2", "–", "300.0 ms", "400.0 ms"}));
    const DetailsBlock* instance = findBlock(s, "Instance");
    QVERIFY(instance);
    // Pipelines count from 0, as the Gantt chart's P0, P1 … do.
    QCOMPARE(instance->rows[0], (QStringList{"0", "2", "2", "5", "300.0 ms"}));
    const DetailsBlock* setting = findBlock(s, "Setting");
    QVERIFY(setting);
    QCOMPARE(valueOf(*setting, "Templates reused"), QStringLiteral("yes"));
    QVERIFY(!findBlock(s, "Other values")); // every key was read
}

void TestPlanDetails::hethubMetricRowsWithUnits()
{
    Plan p;
    p.planner = "hethub";
    p.details["hethub"] = QJsonObject{{"tokens_per_gpu_second", 2000.0},
                                      {"mfu", 0.4},
                                      {"additive_upper_bound_tokens_per_gpu_second", 2500.0},
                                      {"uniform_split_tokens_per_gpu_second", 1600.0},
                                      {"uniform_split_feasible", true},
                                      {"pp", 4},
                                      {"dp", 2},
                                      {"tp", 1},
                                      {"order", "descending"},
                                      {"decoder_layers_per_type", QJsonObject{{"A100-80GB", 24}, {"MI210", 8}}},
                                      {"stages", QJsonArray{QJsonObject{{"device", "A100-80GB"}, {"layers", 24}},
                                                            QJsonObject{{"device", "MI210"}, {"layers", 8}}}}};
    const PlanDetailsLayout l = layoutPlanDetails(p);
    const DetailsSection& s = l.sections.at(0);
    QCOMPARE(s.title, QStringLiteral("HetHub"));
    const DetailsBlock* m = findBlock(s, "Metrics");
    QVERIFY(m);
    QCOMPARE(valueOf(*m, "Throughput per GPU"), QStringLiteral("2000 tokens/GPU/s"));
    QCOMPARE(valueOf(*m, "MFU"), QStringLiteral("40.0 %"));
    QCOMPARE(valueOf(*m, "Additive upper bound"), QStringLiteral("2500 tokens/GPU/s"));
    // No fraction in the plan: 2000 / 2500 = 80 %. Gain over the uniform split: 2000 / 1600 = 1.25.
    QCOMPARE(valueOf(*m, "Throughput / upper bound"), QStringLiteral("80.0 %"));
    QCOMPARE(valueOf(*m, "Uniform layer split"), QStringLiteral("1600 tokens/GPU/s"));
    QCOMPARE(valueOf(*m, "Gain of the non-uniform split"), QStringLiteral("1.25×"));
    const DetailsBlock* layout = findBlock(s, "Layout");
    QVERIFY(layout);
    QCOMPARE(valueOf(*layout, "Pipeline stages"), QStringLiteral("4"));
    QCOMPARE(valueOf(*layout, "Decoder layers per device type"), QStringLiteral("A100-80GB: 24 · MI210: 8"));
    QVERIFY(valueOf(*layout, "Stage order").startsWith("descending"));
    // Stages in pipeline order, numbered from 0 like the Gantt chart and the stage map.
    const DetailsBlock* stages = findBlock(s, "Stages in pipeline order");
    QVERIFY(stages);
    QCOMPARE(stages->rows.size(), size_t(2));
    QCOMPARE(stages->rows[0], (QStringList{"0", "A100-80GB", "24"}));
    QCOMPARE(stages->rows[1], (QStringList{"1", "MI210", "8"}));
}

void TestPlanDetails::hethubRatiosFromThePlanWhenGiven()
{
    Plan p;
    p.planner = "hethub";
    p.details["hethub"] = QJsonObject{{"tokens_per_gpu_second", 900.0},
                                      {"additive_upper_bound_tokens_per_gpu_second", 1000.0},
                                      {"fraction_of_upper_bound", 0.875},
                                      {"uniform_split_tokens_per_gpu_second", 500.0},
                                      {"uniform_split_feasible", false}};
    const PlanDetailsLayout l = layoutPlanDetails(p);
    const DetailsBlock* m = findBlock(l.sections.at(0), "Metrics");
    QVERIFY(m);
    QCOMPARE(valueOf(*m, "Throughput / upper bound"), QStringLiteral("87.5 %")); // the plan's, not 90 %
    QCOMPARE(valueOf(*m, "Uniform layer split"), QStringLiteral("500 tokens/GPU/s (does not fit memory)"));
    QCOMPARE(valueOf(*m, "Gain of the non-uniform split"), QStringLiteral("<missing>")); // no gain over a misfit
    QCOMPARE(valueOf(*m, "MFU"), QStringLiteral("–"));
}

void TestPlanDetails::spmdProgramTextHasEveryInstruction()
{
    const Plan p = spmdPlan();
    const QString text = spmdProgramText(*p.spmd, p.cluster);
    for (const std::string& line : p.spmd->program)
        QVERIFY2(text.contains(QString::fromStdString(line)), line.c_str());
    // Widths: index 1, group "fc1" 3, work 24 ("load input 1 MB, sharded" and "compute 2 GFLOP, sharded").
    const QStringList lines = text.split('\n');
    QVERIFY(lines.contains(QStringLiteral("1  F [0] fc1  load input 1 MB, sharded  x = Placeholder-Shard(0)")));
    QVERIFY(lines.contains(QStringLiteral("2  F [0] fc1  compute 2 GFLOP, sharded  y | All-Gather(0) = "
                                          "MatMul[b](x, w)")));
    QVERIFY(lines.contains(QStringLiteral("3  B [1] fc1  all-reduce 4 MB           dw | Identity = "
                                          "all-reduce(dw | All-Reduce) [grad]")));
    // The ratios follow, one line per segment (V100s then T4s, in GPU order).
    QVERIFY2(text.contains(QStringLiteral("1        fc1   0.4           0.1")), qPrintable(text));
}

void TestPlanDetails::spmdRatiosByDeviceType()
{
    Plan p = spmdPlan();
    p.spmd->shardingRatios[1] = {0.45, 0.35, 0.1, 0.1}; // the two V100s differ in segment 1
    const PlanDetailsLayout l = layoutPlanDetails(p);
    const DetailsSection& s = l.sections.at(0);
    QCOMPARE(s.key, QStringLiteral("spmd"));
    QCOMPARE(s.blocks[0].kind, DetailsBlock::Kind::Text);
    const DetailsBlock* ratios = findBlock(s, "Sharding ratios");
    QVERIFY(ratios);
    QCOMPARE(ratios->columns, (QStringList{"Segment", "Name", "V100-16GB ×2", "T4 ×2"}));
    QCOMPARE(ratios->rows[0], (QStringList{"0", "in", "0.3", "0.2"}));
    QCOMPARE(ratios->rows[1], (QStringList{"1", "fc1", "0.35–0.45", "0.1"}));
}

void TestPlanDetails::hapClassesAndRatios()
{
    const PlanDetailsLayout l = layoutPlanDetails(spmdPlan());
    const DetailsSection& hap = l.sections.at(1);
    QCOMPARE(hap.key, QStringLiteral("hap"));
    const DetailsBlock* classes = findBlock(hap, "Device classes");
    QVERIFY(classes);
    QCOMPARE(classes->rows[0], (QStringList{"0", "V100-16GB", "2", "120"})); // 1.2e14 FLOP/s = 120 TFLOP/s
    QCOMPARE(classes->rows[1], (QStringList{"1", "T4", "2", "40"}));
    const DetailsBlock* ratios = findBlock(hap, "Load balance");
    QVERIFY(ratios);
    QCOMPARE(ratios->rows[1], (QStringList{"1", "fc1", "0.4", "0.1"}));
    const DetailsBlock* search = findBlock(hap, "Search");
    QVERIFY(search);
    QCOMPARE(valueOf(*search, "Cost per round"), QStringLiteral("500.0 ms → 250.0 ms"));
    QVERIFY(!findBlock(hap, "Other values"));
}

void TestPlanDetails::sectionOrderAndGenericTree()
{
    Plan p = spmdPlan();
    p.details["alpha"] =
        QJsonObject{{"devices", QJsonArray{QJsonObject{{"name", "a"}, {"batch", 4}}}}, {"list", QJsonArray{1, 2, 3}}};
    const PlanDetailsLayout l = layoutPlanDetails(p);
    QCOMPARE(l.summary, QStringLiteral("hap on lab · mlp"));
    // The program first, then the planner's own section, then the others by name.
    QStringList keys;
    for (const DetailsSection& s : l.sections)
        keys << s.key;
    QCOMPARE(keys, (QStringList{"spmd", "hap", "alpha", "zeta"}));
    const DetailsBlock& tree = l.sections[2].blocks.at(0);
    QCOMPARE(tree.kind, DetailsBlock::Kind::Tree);
    QCOMPARE(tree.tree.size(), size_t(2));
    QCOMPARE(tree.tree[0].key, QStringLiteral("devices"));
    QCOMPARE(tree.tree[0].children.at(0).key, QStringLiteral("[0]"));
    QCOMPARE(tree.tree[0].children.at(0).children.size(), size_t(2)); // batch, name
    QCOMPARE(tree.tree[1].value, QStringLiteral("[1, 2, 3]"));        // short flat arrays on one line
}

void TestPlanDetails::sectionTextForTheClipboard()
{
    Plan p;
    p.planner = "oobleck";
    p.details["oobleck"] = oobleckJson();
    const QString text = detailsSectionText(layoutPlanDetails(p).sections.at(0));
    QVERIFY(text.startsWith("Oobleck\n"));
    QVERIFY2(text.contains("Nodes\t1 stage\t2 stages\t3 stages\n1\t500.0 ms\t–\t–\n2\t–\t300.0 ms\t400.0 ms"),
             qPrintable(text));
    const Plan s = spmdPlan();
    const QString program = detailsSectionText(layoutPlanDetails(s).sections.at(0));
    QVERIFY(program.contains(QString::fromStdString(s.spmd->program[2])));
}

void TestPlanDetails::viewTabsAndMessages()
{
    PlanDetailsView view;
    QVERIFY(view.isEmpty());
    QCOMPARE(view.sectionTabs()->count(), 0);
    view.setPlan(spmdPlan());
    QCOMPARE(view.sectionTabs()->count(), 4);
    QCOMPARE(view.sectionTabs()->tabText(0), QStringLiteral("SPMD program"));
    QVERIFY(view.currentSectionText().contains("all-reduce(dw | All-Reduce)"));
    // Reading HAP's tab, the next plan with a HAP tab keeps it open.
    view.sectionTabs()->setCurrentIndex(1);
    view.setPlan(spmdPlan());
    QCOMPARE(view.sectionTabs()->tabText(view.sectionTabs()->currentIndex()), QStringLiteral("HAP"));
    Plan plain;
    plain.planner = "amp";
    view.setPlan(plain);
    QVERIFY(view.isEmpty());
    QCOMPARE(view.sectionTabs()->count(), 0);
    QVERIFY(view.currentSectionText().isEmpty());
    view.clear();
    QVERIFY(view.isEmpty());
}

// The options a plan was made with read as the Run tab labels them (AMP declares top_k "Strategies
// simulated", keep_infeasible "Keep memory misfits", dp "Layer DP", in that order), not as CLI keys.
void TestPlanDetails::optionsByTheirLabels()
{
    Plan p;
    p.planner = "amp";
    p.options = {{"dp", "paper"}, {"keep_infeasible", "false"}, {"top_k", "5"}, {"from_the_future", "x"}};
    const PlanDetailsLayout l = layoutPlanDetails(p);
    QCOMPARE(l.options, QStringLiteral("Options: Strategies simulated 5 · Keep memory misfits no · Layer DP paper · "
                                       "from_the_future x"));
    PlanDetailsView view;
    view.setPlan(p);
    QVERIFY(view.summaryText().endsWith(QStringLiteral("\n") + l.options));
    QVERIFY(!view.summaryText().contains(QStringLiteral("top_k")));
    p.options.clear();
    QVERIFY(layoutPlanDetails(p).options.isEmpty());
    // A planner nobody registered keeps its keys.
    p.planner = "retired";
    p.options = {{"k", "1"}};
    QCOMPARE(layoutPlanDetails(p).options, QStringLiteral("Options: k 1"));
}

QTEST_MAIN(TestPlanDetails)
#include "tst_plan_details.moc"
