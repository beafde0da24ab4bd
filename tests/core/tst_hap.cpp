// HAP: the tensor-program IR (shapes, FLOPs, backward, parameter counts of the example models), the A*
// synthesizer against the exhaustive oracle, the independent checker on every synthesized program, and
// whole units per GPU (experts, heads) in the plan.
#include "hap_fixtures.h"

#include <QTest>

using namespace hetplan;
using namespace hetplan::hap;
using namespace hetplan::haptest;

class TestHap : public QObject {
    Q_OBJECT
private slots:
    void mlpShapesFlopsAndBackward()
    {
        // batch 4, widths 8 → 16 → 2. Forward: MatMul 2·4·8·16 = 1024, ReLU 8 per element · 4·16 = 512,
        // MatMul 2·4·16·2 = 256, sum 4·2 = 8 → 1800. Backward: the sum's gradient 8, dW2 and dA1 256 each,
        // ReLU 512, dW1 1024 (x is an input: no gradient) → 2056.
        const TensorGraph g = buildMlp(4, {8, 16, 2});
        QCOMPARE(g.forwardFlops(), 1800.0);
        QCOMPARE(g.backwardFlops(), 2056.0);
        QCOMPARE(g.parameterCount(), 8.0 * 16 + 16 * 2);
        QCOMPARE(int(g.paramGrad.size()), 2);
        for (const auto& [p, grad] : g.paramGrad)
            QCOMPARE(g.tensors[grad].shape, g.tensors[p].shape);
        QCOMPARE(g.tensors[g.loss].shape.size(), size_t(0));
    }

    void parameterCountsMatchLayerModels_data()
    {
        QTest::addColumn<QString>("model");
        for (const char* m : {"bert-base", "bert-hap", "vit-base", "vgg19", "vgg19-cifar", "bert-moe"})
            QTest::newRow(m) << QString(m);
    }
    void parameterCountsMatchLayerModels()
    {
        QFETCH(QString, model);
        const ModelSpec spec = buildExampleModel(model.toStdString());
        const TensorGraph g = buildTensorProgram(spec, 2);
        QCOMPARE(g.parameterCount(), spec.totalParams());
        QCOMPARE(g.paramGrad.size(), g.parameters().size());
        // Forward FLOPs per sample within 10 % of the layer model's (attention details differ).
        const double perSample = g.forwardFlops() / 2;
        QVERIFY2(std::abs(perSample / spec.totalForwardFlops() - 1) < 0.1,
                 qPrintable(QString("%1 vs %2").arg(perSample).arg(spec.totalForwardFlops())));
    }

    void astarEqualsExhaustive_data()
    {
        QTest::addColumn<int>("layers");
        QTest::addColumn<double>("fastShare");
        QTest::addColumn<bool>("perLayer");
        QTest::addColumn<int>("batch");
        for (int layers : {2, 3})
            for (double share : {0.25, 0.4})
                for (bool perLayer : {false, true})
                    for (int batch : {8, 512})
                        QTest::addRow("%d layers, share %.2f, %s, batch %d", layers, share,
                                      perLayer ? "per layer" : "one segment", batch)
                            << layers << share << perLayer << batch;
    }
    void astarEqualsExhaustive()
    {
        QFETCH(int, layers);
        QFETCH(double, fastShare);
        QFETCH(bool, perLayer);
        QFETCH(int, batch);
        std::vector<long long> widths = {64, 256, 128, 32};
        widths.resize(layers + 1);
        const TensorGraph g = buildMlp(batch, widths);
        SynthesisContext ctx = context(g, fastShare, 2, 2, perLayer);
        ctx.exactDominance = true;
        long long programs = 0;
        const Program oracle = exhaustiveSearch(ctx, &programs);
        SynthesisStats stats;
        const Program best = synthesize(ctx, &stats);
        // The published dominance rule (one program per property set) is a heuristic; on these graphs it
        // stays within a few per cent of the optimum.
        ctx.exactDominance = false;
        const Program paper = synthesize(ctx);
        qInfo("%lld programs; A* expanded %lld; paper rule %+.3f %%", programs, stats.expanded,
              100 * (paper.cost / oracle.cost - 1));
        QVERIFY(paper.cost >= oracle.cost * (1 - 1e-9) && paper.cost <= oracle.cost * 1.05);
        QVERIFY(programs > 100);
        QVERIFY(std::isfinite(oracle.cost));
        QVERIFY(std::abs(best.cost - oracle.cost) <= 1e-9 * oracle.cost);
        // The cost replayed as affine terms is the search's cost.
        QVERIFY(std::abs(costTerms(ctx, best).evaluate(ctx.ratios) - best.cost) <= 1e-9 * best.cost);
        const CheckResult c = checkProgram(g, lower(ctx, best));
        QVERIFY2(c.ok, c.error.c_str());
    }

    void checkerRejectsBrokenPrograms()
    {
        const TensorGraph g = buildMlp(8, {16, 32, 4});
        const SynthesisContext ctx = context(g, 0.25, 2, 2, false);
        const std::vector<Instruction> good = lower(ctx, synthesize(ctx));
        QVERIFY(checkProgram(g, good).ok);
        // Dropping any collective, or claiming another output form for a compute, breaks the proof.
        int broken = 0;
        for (size_t i = 0; i < good.size(); ++i) {
            std::vector<Instruction> bad = good;
            if (bad[i].kind == Instruction::Kind::Collective) {
                bad.erase(bad.begin() + i);
            } else if (bad[i].kind == Instruction::Kind::Compute) {
                bad[i].out = bad[i].out.isPartial() ? Form::identity() : Form::partial();
            } else {
                continue;
            }
            QVERIFY2(!checkProgram(g, bad).ok, qPrintable(QString::number(i)));
            ++broken;
        }
        QVERIFY(broken > 5);
    }

    void everyExampleProgramPassesTheChecker_data() { parameterCountsMatchLayerModels_data(); }
    void everyExampleProgramPassesTheChecker()
    {
        QFETCH(QString, model);
        const ModelSpec spec = buildExampleModel(model.toStdString());
        const TensorGraph g = buildTensorProgram(spec, 64);
        SynthesisContext ctx = context(g, 0.1, 2, 6, true);
        const Program p = synthesize(ctx);
        const CheckResult c = checkProgram(g, lower(ctx, p));
        QVERIFY2(c.ok, c.error.c_str());
        QVERIFY(std::abs(costTerms(ctx, p).evaluate(ctx.ratios) - p.cost) <= 1e-9 * p.cost);
    }

    void roundShardsLargestRemainder()
    {
        // Largest remainder, by hand. 100 units at 0.18, 0.18 and 6 × 0.64 / 6 (exact 18, 18, 10.67 × 6):
        // floors 18 + 18 + 6 × 10 = 96, the 4 left go to the largest fractional parts (0.67, the P100s,
        // ties to the lower index): 18, 18, 11, 11, 11, 11, 10, 10.
        const double p = 0.64 / 6;
        const std::vector<double> testbed{0.18, 0.18, p, p, p, p, p, p};
        QCOMPARE(roundShards(testbed, 100), (std::vector<long long>{18, 18, 11, 11, 11, 11, 10, 10}));
        // 8 experts on the same 8 GPUs (exact 1.44, 1.44, 0.85 × 6): floors 1, 1, 0 × 6, and every GPU with
        // a positive ratio gets at least one unit when there are enough: one expert each.
        QCOMPARE(roundShards(testbed, 8), (std::vector<long long>(8, 1)));
        // Fewer units than GPUs (4 over 8, exact 0.72, 0.72, 0.43 × 6): the largest remainders get one each,
        // the other four GPUs none.
        QCOMPARE(roundShards(testbed, 4), (std::vector<long long>{1, 1, 1, 1, 0, 0, 0, 0}));
        // A GPU whose ratio is 0 gets no unit (exact 1.5, 0, 1.5: floors 1, 0, 1, the unit left to index 0).
        QCOMPARE(roundShards({0.5, 0.0, 0.5}, 3), (std::vector<long long>{2, 0, 1}));
    }

    void wholeExpertsInThePlan()
    {
        // bert-moe (8 experts, sequence 128) on 8 V100 + 8 P100: the plan stores every sharded dimension in
        // whole units that add up to its size, and every sharded instruction names one, so no GPU holds a
        // fraction of an expert, a head or a feature column.
        PlanRequest req;
        req.cluster = test::twoNodeCluster("V100-16GB", 8, "P100-16GB", 8);
        req.job.globalBatchSize = 256;
        req.job.sequenceLength = 128;
        req.model = buildExampleModel("bert-moe", 128);
        Progress progress;
        const Plan plan = runPlanner("hap", req, progress);
        const SpmdPlan& sp = *plan.spmd;
        QVERIFY(!sp.dimensions.empty());
        for (const SpmdDimension& d : sp.dimensions) {
            QCOMPARE(int(d.shards.size()), 16);
            QCOMPARE(std::accumulate(d.shards.begin(), d.shards.end(), 0LL), d.size);
            for (long long v : d.shards)
                QVERIFY(v >= 0);
        }
        for (const SpmdInstruction& i : sp.instructions)
            if (i.sharded)
                QVERIFY(i.dimension >= 0);
        // The batch dimension's whole samples are the plan's sharding ratios.
        for (const SpmdInstruction& i : sp.instructions)
            if (i.sharded && sp.dimensions[size_t(i.dimension)].size == 256)
                for (int g = 0; g < 16; ++g)
                    QCOMPARE(sp.share(i, g), sp.shardingRatios[size_t(i.segment)][size_t(g)]);
    }

    void wholeUnitsRoundTripAndAreChecked()
    {
        // The integer shard sizes survive the plan file (writer, schema, reader), and the reader refuses shards
        // that are not non-negative integers adding up to the dimension's size.
        PlanRequest req;
        req.cluster = test::twoNodeCluster("V100-16GB", 8, "P100-16GB", 8);
        req.job.globalBatchSize = 256;
        req.job.sequenceLength = 128;
        req.model = buildExampleModel("bert-moe", 128);
        Progress progress;
        const Plan plan = runPlanner("hap", req, progress);
        const QJsonObject j = toJson(plan);
        QVERIFY(validatePlanJson(j).empty());
        const Plan back = planFromJson(j, "plan.json");
        QCOMPARE(back.spmd->dimensions, plan.spmd->dimensions);
        QCOMPARE(back.spmd->instructions, plan.spmd->instructions);
        auto withShards = [&](const QJsonArray& shards) {
            QJsonObject o = j, sp = o["spmd"].toObject();
            QJsonArray dims = sp["dimensions"].toArray();
            QJsonObject d = dims.at(0).toObject();
            d["size"] = 16;
            d["shards"] = shards;
            dims[0] = d;
            sp["dimensions"] = dims;
            o["spmd"] = sp;
            return o;
        };
        QJsonArray ok, sumsTo15, negative, fraction;
        for (int g = 0; g < 16; ++g) {
            ok.append(1);
            sumsTo15.append(g == 0 ? 0 : 1);
            negative.append(g == 0 ? -1 : (g == 1 ? 3 : 1));
            fraction.append(g < 2 ? 1.5 : 1);
        }
        QCOMPARE(planFromJson(withShards(ok), "plan.json").spmd->dimensions[0].shards, std::vector<long long>(16, 1));
        QVERIFY_THROWS_EXCEPTION(InputError, planFromJson(withShards(sumsTo15), "plan.json"));
        QVERIFY_THROWS_EXCEPTION(InputError, planFromJson(withShards(negative), "plan.json"));
        QVERIFY_THROWS_EXCEPTION(InputError, planFromJson(withShards(fraction), "plan.json"));
    }

    void searchPrunesProgramsThatCannotFit()
    {
        // A 2-layer MLP (batch 64, widths 512 → 2048 → 64, 2-byte values) on 2 + 6 GPUs. Every program holds
        // its replicated tensors whole on every GPU. Data parallelism replicates both weights:
        // (512·2048 + 2048·64) · 2 B = 2,359,296 B of values; at 8 bytes of state per value byte that is
        // 18.9 MB. Capped at 10 MB (replicated bytes of any kind), the A* must shard a weight, and the program
        // it returns holds at most 10 MB replicated; capped at 1 byte nothing fits (InfeasibleError).
        const TensorGraph g = buildMlp(64, {512, 2048, 64});
        SynthesisContext ctx = context(g, 0.25, 2, 6, false);
        ctx.stateBytesPerValueByte = 8;
        ctx.allowedLabels = "b";
        const Program dp = synthesize(ctx);
        QVERIFY(!dp.steps.empty());
        ctx.replicatedCapBytes = 10e6;
        QVERIFY_THROWS_EXCEPTION(InfeasibleError, synthesize(ctx)); // DP only: no program fits
        ctx.allowedLabels.clear();
        const Program capped = synthesize(ctx);
        double replicatedWeights = 0;
        for (const Step& st : capped.steps)
            for (const auto& [e, f] : st.loads)
                if (g.ops[size_t(g.tensors[size_t(e)].producer)].kind == OpKind::Parameter && !f.isSharded())
                    replicatedWeights += g.tensors[size_t(e)].elements() * ctx.valueBytes * 8;
        QVERIFY2(replicatedWeights <= 10e6, qPrintable(QString::number(replicatedWeights)));
        ctx.replicatedCapBytes = 1;
        QVERIFY_THROWS_EXCEPTION(InfeasibleError, synthesize(ctx));
    }

    void roundShardsByHand()
    {
        // 7 rows at 1/2, 1/4, 1/4: 3.5, 1.75, 1.75 round to 4, 2, 2 = 8; one too many. Taking one off the first
        // leaves an error of 0.5, off another 0.75: {3, 2, 2}.
        QCOMPARE(roundShards({0.5, 0.25, 0.25}, 7), (std::vector<long long>{3, 2, 2}));
        // 10 rows in thirds: 3.33 each round to 3 = 9; the missing row goes to the first: {4, 3, 3}.
        QCOMPARE(roundShards({1 / 3.0, 1 / 3.0, 1 / 3.0}, 10), (std::vector<long long>{4, 3, 3}));
        // Property: any ratios sum exactly and stay within one row of the exact share.
        std::mt19937 rng(3);
        for (int trial = 0; trial < 200; ++trial) {
            std::vector<double> r(1 + rng() % 9);
            double total = 0;
            for (double& x : r)
                total += (x = std::uniform_real_distribution<double>(0, 1)(rng));
            for (double& x : r)
                x /= total;
            const long long len = 1 + rng() % 500;
            const auto s = roundShards(r, len);
            QCOMPARE(std::accumulate(s.begin(), s.end(), 0LL), len);
            for (size_t j = 0; j < r.size(); ++j)
                QVERIFY(std::abs(double(s[j]) - r[j] * len) < 1.0 + 1e-9 && s[j] >= 0);
        }
    }
};

QTEST_GUILESS_MAIN(TestHap)
#include "tst_hap.moc"
