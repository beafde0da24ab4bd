// Measured profiles mean what they measured, hand-computed: no tensor-parallel
// communication on top of a measured tp > 1 time, recomputation adding the forward to the backward, the
// sequence length and precision a profile records (rescale with a warning, or refuse), and micro-batch
// sizes between and beyond the measured ones following the per-sample trend.
#include "simfixtures.h"
#include "testutil.h"

#include "core/base/errors.h"
#include "core/cost/spline.h"
#include "core/io/json_io.h"

#include <QJsonArray>
#include <QTest>

using namespace hetplan;
using namespace hetplan::simtest;

namespace {

bool contains(const std::vector<std::string>& v, const std::string& part)
{
    for (const std::string& s : v)
        if (s.find(part) != std::string::npos)
            return true;
    return false;
}

// One transformer layer of hidden 10 at sequence 100 with 1e6 forward FLOPs: the attention scores are
// 4·s²·h = 4·100²·10 = 4e5 of them, the other 6e5 are linear in the tokens.
ModelSpec attentionModel()
{
    ModelSpec m = testModel(1);
    m.arch.hidden = 10;
    m.arch.sequence = 100;
    m.layers[0].forwardFlops = 1e6;
    return m;
}

} // namespace

class TestMeasuredProfiles : public QObject {
    Q_OBJECT
private slots:
    void noTensorParallelCommOnMeasured()
    {
        ModelSpec m = testModel(1);
        m.layers[0].tpAllReduceBytes = 1e6;
        Profile p;
        setTimes(p, "TestA", 2, 1, {0.5}, {1.0});
        const CostModel costs(m, Job{}, p, testCatalog());
        const LinkParams slow{1e6, 0}; // 1 MB/s: an all-reduce of 1 MB would add ~1 s
        // Measured at tp 2: the time already contains its all-reduces; nothing is added.
        QCOMPARE(costs.tpLinkDelta(0, 1, "TestA", 2, 1, slow), 0.0);
        QCOMPARE(costs.range(0, 1, "TestA", 2, 1, slow).forward, 0.5);
        QCOMPARE(costs.range(0, 1, "TestA", 2, 1, slow).backward, 1.0);
        // tp 4 is not measured: the analytic time is corrected for the slow link.
        QVERIFY(costs.tpLinkDelta(0, 1, "TestA", 4, 1, slow) > 0.1);
    }

    void recomputationAddsForward()
    {
        const ModelSpec m = testModel(1);
        Profile p;
        setTimes(p, "TestA", 1, 1, {0.5}, {1.0});
        Job job;
        job.recompute = true;
        // Backward re-runs the forward first: 1.0 + 0.5.
        const LayerTiming t = CostModel(m, job, p, testCatalog()).layer(0, "TestA", 1, 1);
        QCOMPARE(t.forward, 0.5);
        QCOMPARE(t.backward, 1.5);
    }

    // Measured at 200 tokens, job at 100 (r = 1/2): FLOPs(200) = 6e5·2 + 4e5·4 = 2.8e6, FLOPs(100) = 1e6, so
    // times scale by 1/2.8: 2.8 s -> 1 s, 5.6 s -> 2 s. A non-attention layer scales with the tokens (1/2).
    void sequenceRescaled()
    {
        const ModelSpec m = attentionModel();
        Profile p;
        p.sequenceLength = 200;
        p.precision = Precision::FP16;
        p.set({"TestA", 1, 1}, {LayerTiming{2.8, 5.6, 0.01, 4096}});
        Job job;
        job.sequenceLength = 100;
        const CostModel costs(m, job, p, testCatalog());
        const LayerTiming t = costs.layer(0, "TestA", 1, 1);
        QVERIFY(qAbs(t.forward - 1.0) < 1e-12);
        QVERIFY(qAbs(t.backward - 2.0) < 1e-12);
        QCOMPARE(t.update, 0.01);          // the optimizer step does not depend on the tokens
        QCOMPARE(t.activationBytes, -1.0); // measured at another length: the model's activations are used
        QCOMPARE(costs.warnings().size(), size_t(1));
        QVERIFY(contains(costs.warnings(), "measured at sequence length 200, the job uses 100"));

        ModelSpec linear = m;
        linear.layers[0].kind = LayerKind::Linear;
        QCOMPARE(sequenceTimeScale(linear, 0, 200, 100), 0.5);
        // Same length: used as measured, no warning.
        job.sequenceLength = 200;
        const CostModel same(m, job, p, testCatalog());
        QCOMPARE(same.layer(0, "TestA", 1, 1).forward, 2.8);
        QVERIFY(same.warnings().empty());
    }

    void precisionRefused()
    {
        Profile p;
        p.precision = Precision::FP32;
        setTimes(p, "TestA", 1, 1, {0.5}, {1.0});
        Job job; // fp16
        auto e = test::errorOf([&] { CostModel(testModel(1), job, p, testCatalog()); });
        QVERIFY(e);
        QCOMPARE(e->field(), std::string("precision"));
        QVERIFY(e->reason().find("measured in fp32, the job trains in fp16") != std::string::npos);
        job.precision = Precision::FP32;
        QCOMPARE(CostModel(testModel(1), job, p, testCatalog()).layer(0, "TestA", 1, 1).forward, 0.5);
    }

    void unrecordedWarns()
    {
        Profile p;
        setTimes(p, "TestA", 1, 1, {0.5}, {1.0});
        const CostModel costs(testModel(1), Job{}, p, testCatalog());
        QCOMPARE(costs.warnings().size(), size_t(2));
        QVERIFY(contains(costs.warnings(), "does not record its precision"));
        QVERIFY(contains(costs.warnings(), "does not record its sequence length"));
        QVERIFY(CostModel(testModel(1), Job{}, Profile{}, testCatalog()).warnings().empty()); // no profile
    }

    void profileJsonFields()
    {
        Profile p;
        p.sequenceLength = 2048;
        p.precision = Precision::BF16;
        p.set({"T4", 1, 1}, {LayerTiming{0.5, 1.0, 0, -1}});
        const QJsonObject o = toJson(p);
        QCOMPARE(o["sequence_length"].toInt(), 2048);
        QCOMPARE(o["precision"].toString(), QString("bf16"));
        QVERIFY(profileFromJson(o, "x") == p);
        QJsonObject old = o; // written before the fields existed: still read, nothing recorded
        old.remove("sequence_length");
        old.remove("precision");
        const Profile back = profileFromJson(old, "x");
        QCOMPARE(back.sequenceLength, 0);
        QVERIFY(!back.precision);
        QJsonObject bad = o;
        bad["precision"] = "fp8";
        auto e = test::errorOf([&] { profileFromJson(bad, "p.json"); });
        QVERIFY(e && e->file() == "p.json" && e->field() == "precision");
        bad = o;
        bad["sequence_length"] = 0;
        e = test::errorOf([&] { profileFromJson(bad, "p.json"); });
        QVERIFY(e && e->field() == "sequence_length");
        // Profiles measured at different lengths cannot be merged into one.
        Profile other = p;
        other.sequenceLength = 1024;
        e = test::errorOf([&] { p.merge(other); });
        QVERIFY(e && e->field() == "sequence_length");
    }

    void clusterNodeOverhead()
    {
        Cluster c = test::twoNodeCluster("V100-16GB", 2, "T4", 2);
        c.nodes[0].runtimeOverhead = 1.5e9;
        const Cluster back = clusterFromJson(toJson(c), "c.json");
        QCOMPARE(back.nodes[0].runtimeOverhead, 1.5e9);
        QCOMPARE(back.nodes[1].runtimeOverhead, -1.0); // not given: the catalog's figure
        QJsonObject o = toJson(c);
        QJsonArray nodes = o["nodes"].toArray();
        QJsonObject n0 = nodes[0].toObject();
        n0["runtime_overhead"] = "20 GiB"; // more than a V100-16GB has
        nodes[0] = n0;
        o["nodes"] = nodes;
        auto e = test::errorOf([&] { clusterFromJson(o, "c.json"); });
        QVERIFY(e && e->file() == "c.json" && e->field() == "nodes[0].runtime_overhead");
    }

    // Per-sample forward times 10, 6, 5, 5 s at micro-batch 1, 2, 4, 8 (totals 10, 12, 20, 40).
    // Monotone cubic (Fritsch-Butland) slopes: at 2, secants d0 = -4 (h0 = 1) and d1 = -0.5 (h1 = 2):
    //   w1 = 2·h1 + h0 = 5, w2 = h1 + 2·h0 = 4, m = (5 + 4) / (5/-4 + 4/-0.5) = 9 / -9.25 = -0.972973;
    //   at 4, d1 = -0.5 and d2 = 0 change sign -> m = 0.
    // At 3 (t = 0.5 in [2, 4], h = 2): p = 0.5·6 + 0.125·2·(-0.972973) + 0.5·5 - 0.125·2·0 = 5.256757,
    // so the forward takes 3 x 5.256757 = 15.770270 s. At 6 the per-sample time stays 5 (both ends 5 with
    // slope 0): 30 s. Beyond 8 it is flat: 16 x 5 = 80 s.
    void microBatchTrend()
    {
        Profile p;
        const double mbs[] = {1, 2, 4, 8}, perSample[] = {10, 6, 5, 5};
        for (int i = 0; i < 4; ++i)
            p.set({"T4", 1, int(mbs[i])}, {LayerTiming{perSample[i] * mbs[i], 2 * perSample[i] * mbs[i], 0.1, -1}});
        const double at3 = 3 * (3 + 0.125 * 2 * (9 / -9.25) + 2.5);
        QVERIFY(qAbs(p.lookup(0, "T4", 1, 3)->forward - at3) < 1e-12);
        QVERIFY(qAbs(p.lookup(0, "T4", 1, 3)->forward - 15.770270) < 1e-6);
        QVERIFY(qAbs(p.lookup(0, "T4", 1, 3)->backward - 2 * at3) < 1e-12);
        QVERIFY(qAbs(p.lookup(0, "T4", 1, 6)->forward - 30) < 1e-12);
        QCOMPARE(p.lookup(0, "T4", 1, 16)->forward, 80.0);
        QCOMPARE(p.lookup(0, "T4", 1, 16)->update, 0.1);
        // Why not the natural cubic spline: through the same per-sample points it undershoots to 4.68 at 3,
        // below every measurement from 4 on, a sweet spot that is not in the data.
        const NaturalCubicSpline spline({1, 2, 4, 8}, {10, 6, 5, 5});
        QVERIFY(spline(3) < 4.7);
        // The monotone one stays between its neighbours at every size.
        for (double b = 1; b <= 8; b += 0.25) {
            const double ps = p.lookup(0, "T4", 1, b)->forward / b;
            QVERIFY(ps >= 5 - 1e-12 && ps <= 10 + 1e-12);
        }
    }
};

QTEST_GUILESS_MAIN(TestMeasuredProfiles)
#include "tst_measured_profiles.moc"
