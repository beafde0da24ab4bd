// The framework × option table (core/model/framework_options.h) walked whole: for every framework a job can
// name and every option a plan can use, the table says what the frameworks' sources say, the verdicts in
// estimate.frameworks follow it, each export writes the option exactly when its verdict allows it (else it is
// refused with the verdict's reason), and the Megatron search tries only what the job's framework runs.
#include "simfixtures.h"
#include "testutil.h"

#include "core/io/examples.h"
#include "core/io/exporters.h"
#include "core/model/framework_options.h"
#include "core/model/frameworks.h"
#include "core/planners/megatron_space.h"
#include "core/sim/simulator.h"

#include <QJsonObject>
#include <QTest>

#include <algorithm>

using namespace hetplan;
using namespace hetplan::simtest;
using O = FrameworkOption;

namespace {

// Written from the frameworks' sources (Megatron-LM's megatron/core and megatron/legacy/model/transformer.py,
// DeepSpeed's runtime/pipe), not from the code under test: true = the framework runs the option.
struct Expected {
    O option;
    bool core, legacy, deepspeedPipe;
};
const Expected kExpected[] = {
    {O::ContextParallel, true, false, false},    // ring attention is Megatron-core's
    {O::ExpertParallel, true, false, false},     // legacy SwitchMLP all-gathers tokens; no DeepSpeed-MoE export
    {O::Interleaving, true, true, false},        // DeepSpeed's TrainSchedule is plain 1F1B
    {O::SequenceParallel, true, true, false},    // DeepSpeed has no Megatron sequence parallelism
    {O::DistributedOptimizer, true, true, true}, // Megatron's distributed optimizer, DeepSpeed's ZeRO-1
    {O::ZeroGradients, false, false, false},     // Megatron: ZeRO-1 at most; PipelineEngine asserts stage < 2
    {O::ZeroParameters, false, false, false},
    {O::SelectiveRecompute, true, true, false}, // DeepSpeed checkpoints whole layers
    {O::FullRecompute, true, true, true},       // PipelineModule's activation_checkpoint_interval
    {O::MoeCapacityFactor, true, false, false}, // --moe-expert-capacity-factor is Megatron-core's
};

bool expectedRuns(Framework f, const Expected& e)
{
    return f == Framework::MegatronCore ? e.core : f == Framework::MegatronLegacy ? e.legacy : e.deepspeedPipe;
}

std::string name(Framework f, O o) { return toString(f) + " × " + toString(o); }

// gpt2-amp (16 heads, 24 blocks) on amp-het-cluster (4 nodes × 4 GPUs) as one pipeline of two stages (or
// one) of tp × 2 GPUs, 4 micro-batches of 2 samples; with `moe`, every second block an MoE block of 8 experts
// (the parameter count Megatron builds for it, see tst_megatron_model).
Plan basePlan(int tp, bool moe, int stages = 2)
{
    Plan p;
    p.planner = "hand";
    p.cluster = exampleCluster("amp-het-cluster");
    p.model = buildExampleModel("gpt2-amp");
    if (moe) {
        p.model.arch.experts = 8;
        for (int b = 1; b < 24; b += 2) {
            p.model.layers[b + 1].kind = LayerKind::MoE;
            p.model.layers[b + 1].params = 71360512;
        }
    }
    p.job.sequenceLength = p.model.arch.sequence > 0 ? p.model.arch.sequence : 1024;
    p.job.globalBatchSize = 8;
    Pipeline pl;
    pl.microBatchSize = 2;
    pl.microBatches = 4;
    const std::vector<int> bounds = stages == 2 ? std::vector<int>{0, 13, 26} : std::vector<int>{0, 26};
    int gpu = 0;
    for (int s = 0; s < stages; ++s) {
        Stage st;
        st.firstLayer = bounds[s];
        st.endLayer = bounds[s + 1];
        st.tensorParallel = tp;
        st.dataParallel = 2;
        for (int k = 0; k < 2 * tp; ++k)
            st.gpus.push_back(gpu++);
        pl.stages.push_back(st);
    }
    p.pipelines.push_back(pl);
    return p;
}

// basePlan with `f` as the job's framework and exactly `o` turned on (sequence parallelism needs tp 2; the
// plan rules take ZeRO-2 and ZeRO-3 on one-stage pipelines only).
Plan planUsing(Framework f, O o)
{
    const bool zero23 = o == O::ZeroGradients || o == O::ZeroParameters;
    Plan p =
        basePlan(o == O::SequenceParallel ? 2 : 1, o == O::ExpertParallel || o == O::MoeCapacityFactor, zero23 ? 1 : 2);
    p.job.framework = f;
    Pipeline& pl = p.pipelines[0];
    switch (o) {
    case O::ContextParallel: pl.contextParallel = 2; break; // a stage's 2 dp ranks share each sample
    case O::ExpertParallel: pl.expertParallel = 2; break;
    case O::Interleaving: pl.virtualStages = 2; break; // 6 blocks per chunk
    case O::SequenceParallel: p.job.sequenceParallel = true; break;
    case O::DistributedOptimizer: p.job.zeroStage = 1; break;
    case O::ZeroGradients: p.job.zeroStage = 2; break;
    case O::ZeroParameters: p.job.zeroStage = 3; break;
    case O::SelectiveRecompute: p.job.selectiveRecompute = true; break;
    case O::FullRecompute: p.job.recompute = true; break;
    case O::MoeCapacityFactor: p.job.moeCapacityFactor = 1.25; break;
    }
    return p;
}

bool hasArgs(const std::vector<std::string>& tokens, const std::vector<std::string>& words)
{
    return std::search(tokens.begin(), tokens.end(), words.begin(), words.end()) != tokens.end();
}

// Whether the Megatron arguments say `o`, in Megatron-LM's words (megatron/training/arguments.py).
bool megatronSays(const std::vector<std::string>& tokens, O o)
{
    switch (o) {
    case O::ContextParallel: return hasArgs(tokens, {"--context-parallel-size", "2"});
    case O::ExpertParallel: return hasArgs(tokens, {"--expert-model-parallel-size", "2"});
    case O::Interleaving: return hasArgs(tokens, {"--num-layers-per-virtual-pipeline-stage", "6"});
    case O::SequenceParallel: return hasArgs(tokens, {"--sequence-parallel"});
    case O::DistributedOptimizer: return hasArgs(tokens, {"--use-distributed-optimizer"});
    case O::SelectiveRecompute: return hasArgs(tokens, {"--recompute-granularity", "selective"});
    case O::FullRecompute: return hasArgs(tokens, {"--recompute-granularity", "full"});
    case O::MoeCapacityFactor: return hasArgs(tokens, {"--moe-expert-capacity-factor", "1.25"});
    case O::ZeroGradients:
    case O::ZeroParameters: return false; // Megatron has no flag for them
    }
    return false;
}

// Whether the DeepSpeed config and launcher module say `o` (ZeRO stage in the config, activation
// checkpointing as PipelineModule's interval).
bool deepSpeedSays(const Plan& p, O o)
{
    const int stage = deepSpeedConfig(p).value("zero_optimization").toObject().value("stage").toInt();
    const bool checkpoints = deepSpeedLauncher(p).find("\nACTIVATION_CHECKPOINT_INTERVAL = 1 ") != std::string::npos;
    switch (o) {
    case O::DistributedOptimizer: return stage == 1;
    case O::ZeroGradients: return stage == 2;
    case O::ZeroParameters: return stage == 3;
    case O::FullRecompute: return checkpoints;
    default: return false; // nothing else reaches DeepSpeed's config or PipelineModule
    }
}

// The InputError `f` threw, as "field: reason", or "" when it returned.
template <class F>
std::string refusalOf(F&& f)
{
    const auto e = test::errorOf(f);
    return e ? e->field() + ": " + e->reason() : std::string();
}

// The verdict's reasons joined as requireFramework joins them.
std::string joined(const FrameworkVerdict& v)
{
    std::string out;
    for (const std::string& r : v.reasons)
        out += (out.empty() ? "" : "; ") + r;
    return out;
}

} // namespace

class TestFrameworkOptions : public QObject {
    Q_OBJECT
private slots:
    void tableMatchesTheSources()
    {
        for (const Expected& e : kExpected)
            for (Framework f : kFrameworks) {
                QVERIFY2(frameworkRuns(f, e.option) == expectedRuns(f, e), name(f, e.option).c_str());
                // A refusal names what is missing, so a user can act on it.
                QVERIFY(frameworkRuns(f, e.option) || !unsupportedReason(f, e.option).empty());
            }
        QCOMPARE(std::size(kExpected), std::size(kFrameworkOptions));
    }

    // Without any option every framework's plan passes both verdicts and exports: what the pairs below
    // refuse is the option's doing.
    void plainPlansPassEverywhere()
    {
        for (Framework f : kFrameworks)
            for (bool moe : {false, true}) {
                Plan p = basePlan(1, moe);
                p.job.framework = f;
                QVERIFY(optionsUsed(p).empty());
                scorePlan(p, CostModel(p.model, p.job, p.profile));
                QVERIFY2(p.estimate.frameworks.at("megatron").ok, joined(p.estimate.frameworks.at("megatron")).c_str());
                QVERIFY2(p.estimate.frameworks.at("deepspeed").ok,
                         joined(p.estimate.frameworks.at("deepspeed")).c_str());
                for (O o : kFrameworkOptions) {
                    QVERIFY(!megatronSays(megatronArguments(p), o));
                    QVERIFY(!deepSpeedSays(p, o));
                }
            }
    }

    void verdictsAndExportsFollowTheTable_data()
    {
        QTest::addColumn<int>("framework");
        QTest::addColumn<int>("row");
        for (Framework f : kFrameworks)
            for (size_t r = 0; r < std::size(kExpected); ++r)
                QTest::newRow(name(f, kExpected[r].option).c_str()) << int(f) << int(r);
    }
    void verdictsAndExportsFollowTheTable()
    {
        QFETCH(int, framework);
        QFETCH(int, row);
        const Framework f = Framework(framework);
        const Expected& e = kExpected[row];
        Plan p = planUsing(f, e.option);
        if (f == Framework::DeepSpeedPipe && e.option == O::SequenceParallel) {
            // Not even a job: its validation refuses the pair with the table's reason.
            const std::string why = refusalOf([&] { p.job.validate("job"); });
            QVERIFY2(why.rfind("sequence_parallel: DeepSpeed's pipeline engine has no Megatron sequence parallelism",
                               0) == 0,
                     why.c_str());
            return;
        }
        p.validate("plan");
        QVERIFY(optionsUsed(p) == std::vector<O>{e.option});
        scorePlan(p, CostModel(p.model, p.job, p.profile));

        // Megatron: the launch script runs Megatron-core, and the job says the plan runs on `f`.
        const FrameworkVerdict& m = p.estimate.frameworks.at("megatron");
        QCOMPARE(m.ok, e.core && expectedRuns(f, e));
        if (m.ok) {
            QVERIFY(megatronSays(megatronArguments(p), e.option));
        } else {
            QCOMPARE(refusalOf([&] { megatronArguments(p); }), "frameworks.megatron: " + joined(m));
            if (e.core) // Megatron-core runs it: the job's framework is why not, and the reason says so
                QVERIFY2(joined(m).rfind("the job's framework is " + toString(f) + ", and ", 0) == 0,
                         joined(m).c_str());
        }
        // DeepSpeed: its pipeline engine, and the job's framework.
        const FrameworkVerdict& d = p.estimate.frameworks.at("deepspeed");
        QCOMPARE(d.ok, e.deepspeedPipe && expectedRuns(f, e));
        if (d.ok) {
            QVERIFY(deepSpeedSays(p, e.option));
        } else {
            QCOMPARE(refusalOf([&] { deepSpeedConfig(p); }), "frameworks.deepspeed: " + joined(d));
            QCOMPARE(refusalOf([&] { deepSpeedLauncher(p); }), "frameworks.deepspeed: " + joined(d));
        }
    }

    // The job-level options the search adds (megatronJobVariants) are exactly the ones the job's framework runs.
    void searchedJobsFollowTheTable()
    {
        for (Framework f : kFrameworks) {
            PlanRequest r;
            r.cluster = exampleCluster("amp-het-cluster"); // 4-GPU nodes: sequence parallelism can matter
            r.model = buildExampleModel("gpt2-amp");
            r.job.framework = f;
            for (const char* k : kMegatronSpaceFamilies)
                r.options[k] = "true";
            const std::vector<Job> jobs = megatronJobVariants(r);
            auto tried = [&](auto has) { return std::any_of(jobs.begin(), jobs.end(), has); };
            for (const Expected& e : kExpected) {
                bool found = false;
                switch (e.option) {
                case O::SequenceParallel: found = tried([](const Job& j) { return j.sequenceParallel; }); break;
                case O::DistributedOptimizer: found = tried([](const Job& j) { return j.zeroStage == 1; }); break;
                case O::SelectiveRecompute: found = tried([](const Job& j) { return j.selectiveRecompute; }); break;
                case O::FullRecompute: found = tried([](const Job& j) { return j.recompute; }); break;
                default: continue; // plan-level options: below
                }
                QVERIFY2(found == expectedRuns(f, e), name(f, e.option).c_str());
            }
        }
    }

    // The plan-level options (context and expert parallelism, interleaving) on plans where each one wins
    // under Megatron-core: the search takes it exactly for the frameworks that run it.
    void searchedPlanSettingsFollowTheTable()
    {
        for (Framework f : kFrameworks) {
            const auto runs = [&](O o) {
                return expectedRuns(f, *std::find_if(std::begin(kExpected), std::end(kExpected),
                                                     [o](const Expected& e) { return e.option == o; }));
            };
            Job j;
            j.framework = f;
            // Interleaving: 4 stages of two one-second layers, 8 micro-batches over free links: 1F1B takes
            // (8 + 3)·4 = 44 s, two chunks (8 + 1.5)·4 = 38 s.
            {
                Cluster c = testCluster({{"TestA", 4}}, 1e300, 1e300);
                Profile prof;
                setTimes(prof, "TestA", 1, 1, std::vector<double>(8, 1.0), std::vector<double>(8, 1.0));
                j.globalBatchSize = 8;
                Plan plan = makePlan(c, testModel(8), j, prof);
                plan.pipelines.push_back(makePipeline({0, 2, 4, 6, 8}, {{0}, {1}, {2}, {3}}, 1, 1, 8));
                const CostModel costs(plan.model, plan.job, prof, testCatalog());
                scorePlan(plan, costs);
                interleaveBest(plan, costs, Objective{});
                QCOMPARE(plan.pipelines[0].virtualStages, runs(O::Interleaving) ? 2 : 1);
            }
            // Expert parallelism: 6e9 expert parameters need ~96 GB replicated, ~48 GB over both 80 GB GPUs.
            {
                Cluster c = testCluster({{"TestA", 1}, {"TestA", 1}}, 1e11, 1e10);
                ModelSpec m = testModel(1, 6e9);
                m.arch.experts = 4;
                m.layers[0].kind = LayerKind::MoE;
                m.layers[0].expertParams = 6e9;
                m.layers[0].expertAllToAllBytes = 1e6;
                j.globalBatchSize = 2;
                Profile prof;
                setTimes(prof, "TestA", 1, 1, {1.0}, {2.0});
                Plan plan = makePlan(c, m, j, prof);
                plan.pipelines.push_back(makePipeline({0, 1}, {{0, 1}}, 2, 1, 1));
                const CostModel costs(plan.model, plan.job, prof, testCatalog());
                scorePlan(plan, costs);
                QVERIFY(!plan.estimate.feasible);
                expertParallelBest(plan, costs, Objective{});
                QCOMPARE(plan.pipelines[0].expertParallel, runs(O::ExpertParallel) ? 2 : 1);
            }
            // Context parallelism: one layer keeping 6e10 bytes of activations per sample, counted twice (its
            // micro-batch in flight and the allocator's reserve for its backward), does not fit an 80 GB GPU;
            // two replicas regrouped as one whose two ranks share each sample keep half of it each.
            {
                Cluster c = testCluster({{"TestA", 1}, {"TestA", 1}}, 1e11, 1e10);
                ModelSpec m = testModel(1, 0, 0, 6e10);
                m.layers[0].kvBytes = 1e6;
                j.globalBatchSize = 2;
                j.sequenceLength = 1024;
                Profile prof;
                setTimes(prof, "TestA", 1, 1, {1.0}, {2.0});
                Plan plan = makePlan(c, m, j, prof);
                plan.pipelines.push_back(makePipeline({0, 1}, {{0, 1}}, 2, 1, 1));
                const CostModel costs(plan.model, plan.job, prof, testCatalog());
                scorePlan(plan, costs);
                QVERIFY(!plan.estimate.feasible);
                contextParallelBest(plan, costs, Objective{});
                QCOMPARE(plan.pipelines[0].contextParallel, runs(O::ContextParallel) ? 2 : 1);
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestFrameworkOptions)
#include "tst_framework_options.moc"
