// What tools/profiler/hetplan-profile adds to hetplan.profile/1 (measured_on: hardware, tool, software and the
// largest micro-batch that fits; per layer peak_bytes and tp_allreduce_bytes) is read, kept through a round
// trip, a merge and a restriction, checked, and allowed by the plan schema that embeds profiles. The fixture
// (profiles/native/hetplan-profile.json) is hand-written in the profiler's layout.
#include "core/base/errors.h"
#include "core/io/importers.h"
#include "core/io/json_io.h"
#include "core/io/schema_validate.h"
#include "testutil.h"

#include <QJsonArray>
#include <QTest>

using namespace hetplan;
using hetplan::test::errorOf;
using hetplan::test::fixture;

namespace {
const std::string kFixture = "profiles/native/hetplan-profile.json";

QJsonObject fixtureJson() { return readJsonFile(fixture(kFixture)); }

// The plan schema's profile definition as a schema of its own (its $refs resolve in the same definitions;
// draft 7 ignores a $ref's sibling keywords, hence the allOf).
QJsonObject profileSchema()
{
    return QJsonObject{{"$schema", planSchema()["$schema"]},
                       {"allOf", QJsonArray{QJsonObject{{"$ref", "#/definitions/profile"}}}},
                       {"definitions", planSchema()["definitions"]}};
}
} // namespace

class TestProfilerFormat : public QObject {
    Q_OBJECT

private slots:
    void readsWhatTheProfilerRecords()
    {
        const Profile p = importNative(fixture(kFixture));
        QCOMPARE(p.measuredOn.size(), size_t(1));
        const DeviceMeasurement& m = p.measuredOn.at("H100-SXM"); // the alias H100-80GB, as the catalog names it
        QCOMPARE(m.hardware, std::string("NVIDIA H100 80GB HBM3"));
        QCOMPARE(m.tool, std::string("hetplan-profile 0.1.0"));
        QCOMPARE(m.software, std::string("torch 2.3.0, CUDA 12.1, Python 3.11.2"));
        QCOMPARE(m.maxMicroBatch, (std::map<int, int>{{1, 2}}));
        const std::vector<LayerTiming>& tp1 = *p.table({"H100-SXM", 1, 1});
        QCOMPARE(tp1[1].peakBytes, 365320.0);
        QCOMPARE(tp1[1].tpAllReduceBytes, 0.0);
        const std::vector<LayerTiming>& tp2 = *p.table({"H100-SXM", 2, 1});
        QCOMPARE(tp2[1].tpAllReduceBytes, 16384.0);
        QCOMPARE(tp2[0].peakBytes, -1.0); // left out: not recorded
        QCOMPARE(tp2[0].tpAllReduceBytes, -1.0);
        QCOMPARE(p.sequenceLength, 32);
        QVERIFY(*p.precision == Precision::FP32);
    }

    void roundTripKeepsEverything()
    {
        const Profile p = importNative(fixture(kFixture));
        QCOMPARE(profileFromJson(toJson(p), "round trip"), p);
    }

    void planSchemaAllowsTheProfilerFields()
    {
        const QJsonObject written = toJson(importNative(fixture(kFixture)));
        QVERIFY(written.contains("measured_on"));
        const std::vector<SchemaViolation> v = validateJson(written, profileSchema());
        QVERIFY2(v.empty(), describe(v).c_str());
        QJsonObject wrong = fixtureJson();
        QJsonArray on = wrong["measured_on"].toArray();
        QJsonObject entry = on[0].toObject();
        entry["gpu_count"] = 8; // not a field of measured_on
        on[0] = entry;
        wrong["measured_on"] = on;
        QVERIFY(!validateJson(wrong, profileSchema()).empty());
    }

    void badMeasuredOnIsRefused()
    {
        QJsonObject o = fixtureJson();
        QJsonArray on = o["measured_on"].toArray();
        QJsonObject entry = on[0].toObject();
        entry["max_micro_batch"] = QJsonArray{QJsonObject{{"tp", 1}, {"micro_batch", 0}}};
        on[0] = entry;
        o["measured_on"] = on;
        auto e = errorOf([&] { profileFromJson(o, "p.json"); });
        QVERIFY(e && e->field().find("max_micro_batch") != std::string::npos);

        entry["max_micro_batch"] = QJsonArray{};
        entry["device"] = "Z80";
        on[0] = entry;
        o["measured_on"] = on;
        e = errorOf([&] { profileFromJson(o, "p.json"); });
        QVERIFY(e && e->reason().find("unknown device type 'Z80'") != std::string::npos);

        QJsonObject layerBad = fixtureJson();
        QJsonArray tables = layerBad["tables"].toArray();
        QJsonObject t = tables[0].toObject();
        QJsonArray layers = t["layers"].toArray();
        QJsonObject l = layers[0].toObject();
        l["peak_bytes"] = -5;
        layers[0] = l;
        t["layers"] = layers;
        tables[0] = t;
        layerBad["tables"] = tables;
        e = errorOf([&] { profileFromJson(layerBad, "p.json"); });
        QVERIFY(e && e->field().find("peak_bytes") != std::string::npos);
    }

    void mergeOverlaysAndRestrictionKeepsOnlyTheDevicesUsed()
    {
        Profile h100 = importNative(fixture(kFixture));
        Profile v100;
        v100.set({"V100-32GB", 1, 1}, *h100.table({"H100-SXM", 1, 1}));
        v100.measuredOn["V100-32GB"].hardware = "Tesla V100-SXM2-32GB";
        Profile merged = h100;
        merged.merge(v100);
        QCOMPARE(merged.measuredOn.size(), size_t(2));
        QCOMPARE(merged.measuredOn.at("V100-32GB").hardware, std::string("Tesla V100-SXM2-32GB"));
        const Profile onlyV100 = merged.restrictedTo({"V100-32GB"});
        QCOMPARE(onlyV100.measuredOn.size(), size_t(1));
        QVERIFY(onlyV100.measuredOn.count("V100-32GB"));
    }

    void beyondTheMeasuredSizesAllReduceScalesAndPeakIsDropped()
    {
        const Profile p = importNative(fixture(kFixture));
        // tp 2 was measured at micro-batch 1 only: at 2 the per-sample figures hold, so the all-reduce doubles;
        // the peak holds the parameters too and is not extrapolated.
        const std::optional<LayerTiming> t = p.lookup(1, "H100-SXM", 2, 2);
        QVERIFY(t);
        QCOMPARE(t->tpAllReduceBytes, 32768.0);
        QCOMPARE(t->peakBytes, -1.0);
        QCOMPARE(t->forward, 1.2e-4);
    }
};

QTEST_GUILESS_MAIN(TestProfilerFormat)
#include "tst_profiler_format.moc"
