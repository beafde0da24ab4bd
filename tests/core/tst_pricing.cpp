// Cost of a plan: catalog prices, the per-node override in the cluster file, estimate.cost in plan JSON.
// Expected figures are worked out by hand in the comments.
#include "testutil.h"
#include "example_request.h"

#include "core/base/errors.h"
#include "core/io/examples.h"
#include "core/io/json_io.h"
#include "core/io/schema_validate.h"
#include "core/model/catalog_json.h"
#include "core/model/pricing.h"
#include "core/planners/planner.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>
#include <cmath>
#include <limits>

using namespace hetplan;

namespace {
// One pipeline of one stage over `gpus`, moving `tokensPerSecond` (only what pricing reads is filled in).
Plan planOn(const Cluster& cluster, std::vector<int> gpus, double tokensPerSecond)
{
    Plan p;
    p.cluster = cluster;
    Stage s;
    s.endLayer = 1;
    s.dataParallel = int(gpus.size());
    s.gpus = std::move(gpus);
    Pipeline pl;
    pl.stages = {s};
    p.pipelines.push_back(pl);
    p.estimate.tokensPerSecond = tokensPerSecond;
    return p;
}

const DeviceType* builtinDevice(const std::string& type) { return DeviceCatalog::builtin().find(type); }

// uniform's plan for gpt2-amp on amp-het-cluster (V100-16GB and T4, both priced): a whole, readable plan.
Plan plannedPlan()
{
    Progress progress;
    return runPlanner("uniform", test::exampleRequest("amp-het-cluster", "gpt2-amp", 32), progress);
}

QJsonObject withNodeField(const Cluster& c, const char* key, const QJsonValue& value)
{
    QJsonObject o = toJson(c);
    QJsonArray nodes = o["nodes"].toArray();
    QJsonObject n0 = nodes[0].toObject();
    n0[key] = value;
    nodes[0] = n0;
    o["nodes"] = nodes;
    return o;
}
} // namespace

class TestPricing : public QObject {
    Q_OBJECT
private slots:
    // 4 GPUs at $2/h = $8/h; 10,000 tok/s = 3.6e7 tok/h, so $8 / 36 M tokens = $0.2222 per million.
    void costOfFourGpusAtTwoDollars()
    {
        const auto cost = costOf({2.0, 2.0, 2.0, 2.0}, 10000);
        QVERIFY(cost.has_value());
        QCOMPARE(cost->dollarsPerHour, 8.0);
        QVERIFY(std::abs(cost->dollarsPerMillionTokens - 0.222222) < 1e-6);
    }

    // Mixed: 2 × $3.06 + 2 × $0.526 = $7.172/h; at 5,000 tok/s (1.8e7 tok/h): 7.172 / 18 = $0.398444/M.
    void costOfMixedPrices()
    {
        const auto cost = costOf({3.06, 3.06, 0.526, 0.526}, 5000);
        QVERIFY(cost.has_value());
        QVERIFY(std::abs(cost->dollarsPerHour - 7.172) < 1e-12);
        QVERIFY(std::abs(cost->dollarsPerMillionTokens - 0.398444) < 1e-6);
    }

    // No cost rather than a wrong one: an unpriced GPU would understate it, no tokens give no $/token.
    void costAbsentWhenUnknownOrNoTokens()
    {
        QVERIFY(!costOf({2.0, std::nullopt}, 10000));
        QVERIFY(!costOf({2.0, 2.0}, 0));
        QVERIFY(!costOf({}, 10000));
    }

    void nodeOverrideWinsOverCatalog()
    {
        const DeviceType* v100 = builtinDevice("V100-16GB");
        QVERIFY(v100 && v100->pricePerGpuHour);
        Node n;
        n.deviceType = "V100-16GB";
        QCOMPARE(gpuHourPrice(n, v100), v100->pricePerGpuHour);
        n.pricePerGpuHour = 1.25;
        QCOMPARE(gpuHourPrice(n, v100), std::optional<double>(1.25));
        n.pricePerGpuHour = -1;
        QVERIFY(!gpuHourPrice(n, builtinDevice("RTX-3090"))); // a consumer card has no cloud price
        n.pricePerGpuHour = 0.4;
        QCOMPARE(gpuHourPrice(n, builtinDevice("RTX-3090")), std::optional<double>(0.4));
    }

    // V100-16GB is $3.06 in the catalog, RTX-3090 has no price. GPUs 0,1 are node a, 2,3 node b.
    void planCostCountsUsedGpusOnly()
    {
        Cluster c = test::twoNodeCluster("V100-16GB", 2, "RTX-3090", 2);
        // Only node a: 2 × 3.06 = $6.12/h; 1,000 tok/s = 3.6e6 tok/h: 6.12 / 3.6 = $1.7/M.
        auto cost = planCost(planOn(c, {0, 1}, 1000), builtinDevice);
        QVERIFY(cost.has_value());
        QVERIFY(std::abs(cost->dollarsPerHour - 6.12) < 1e-12);
        QVERIFY(std::abs(cost->dollarsPerMillionTokens - 1.7) < 1e-12);
        // Using the unpriced node: no cost; priced by the node's override: 6.12 + 2 × 0.5 = $7.12/h.
        QVERIFY(!planCost(planOn(c, {0, 1, 2, 3}, 1000), builtinDevice));
        c.nodes[1].pricePerGpuHour = 0.5;
        cost = planCost(planOn(c, {0, 1, 2, 3}, 1000), builtinDevice);
        QVERIFY(cost.has_value());
        QVERIFY(std::abs(cost->dollarsPerHour - 7.12) < 1e-12);
    }

    // Every catalog row says where its price (or its absence) comes from and when.
    void catalogPricesHaveSourceAndDate()
    {
        int priced = 0;
        for (const DeviceType& d : DeviceCatalog::builtin().all()) {
            QVERIFY2(!d.priceSource.empty() && !d.priceDate.empty(), d.name.c_str());
            if (d.pricePerGpuHour) {
                ++priced;
                QVERIFY2(*d.pricePerGpuHour > 0.1 && *d.pricePerGpuHour < 50, d.name.c_str());
            }
        }
        QVERIFY(priced >= 10);
        QCOMPARE(builtinDevice("T4")->pricePerGpuHour, std::optional<double>(0.526));
        QVERIFY(!builtinDevice("RTX-4090")->pricePerGpuHour);
        // The JSON form keeps all three.
        const DeviceType t4 = *builtinDevice("T4");
        QVERIFY(deviceFromJson(toJson(t4), "d.json", "devices[0]") == t4);
    }

    void catalogRejectsBadPrice_data()
    {
        QTest::addColumn<QString>("price");
        QTest::addColumn<bool>("withSource");
        QTest::newRow("zero") << "0" << true;
        QTest::newRow("negative") << "-1.5" << true;
        QTest::newRow("text") << "\"cheap\"" << true;
        QTest::newRow("no source") << "2.5" << false;
    }
    void catalogRejectsBadPrice()
    {
        QFETCH(QString, price);
        QFETCH(bool, withSource);
        QJsonObject d = toJson(*builtinDevice("T4"));
        d["price_per_gpu_hour"] = QJsonDocument::fromJson(("[" + price + "]").toUtf8()).array()[0];
        if (!withSource)
            d.remove("price_source");
        const auto e = test::errorOf([&] { deviceFromJson(d, "d.json", "devices[3]"); });
        QVERIFY(e.has_value());
        QCOMPARE(e->file(), std::string("d.json"));
        QCOMPARE(e->field(), std::string("devices[3].price_per_gpu_hour"));
    }

    void clusterOverrideRoundTrips()
    {
        Cluster c = test::twoNodeCluster("V100-16GB", 2, "T4", 2);
        c.nodes[0].pricePerGpuHour = 1.75;
        const QJsonObject o = toJson(c);
        QCOMPARE(o["nodes"].toArray()[0].toObject()["price_per_gpu_hour"].toDouble(), 1.75);
        QVERIFY(!o["nodes"].toArray()[1].toObject().contains("price_per_gpu_hour")); // unset: not written
        const Cluster back = clusterFromJson(o, "c.json");
        QCOMPARE(back.nodes[0].pricePerGpuHour, 1.75);
        QCOMPARE(back.nodes[1].pricePerGpuHour, -1.0);
        // A file written before prices existed loads with the catalog's price.
        QCOMPARE(clusterFromJson(toJson(test::twoNodeCluster("T4", 1, "T4", 1)), "old.json").nodes[0].pricePerGpuHour,
                 -1.0);
    }

    void clusterRejectsBadOverride_data()
    {
        QTest::addColumn<QJsonValue>("value");
        QTest::newRow("zero") << QJsonValue(0);
        QTest::newRow("negative") << QJsonValue(-2);
        QTest::newRow("text") << QJsonValue("2 dollars");
        QTest::newRow("bool") << QJsonValue(true);
    }
    void clusterRejectsBadOverride()
    {
        QFETCH(QJsonValue, value);
        const QJsonObject o = withNodeField(test::twoNodeCluster("V100-16GB", 2, "T4", 2), "price_per_gpu_hour", value);
        const auto e = test::errorOf([&] { clusterFromJson(o, "c.json"); });
        QVERIFY(e.has_value());
        QCOMPARE(e->file(), std::string("c.json"));
        QCOMPARE(e->field(), std::string("nodes[0].price_per_gpu_hour"));
        QVERIFY(!std::string(e->what()).empty());
    }

    // A node edited in memory (the GUI) is checked the same way: NaN and infinity are no prices.
    void clusterValidateRejectsNonFinite()
    {
        for (double bad : {std::nan(""), std::numeric_limits<double>::infinity(), 0.0}) {
            Cluster c = test::twoNodeCluster("V100-16GB", 2, "T4", 2);
            c.nodes[1].pricePerGpuHour = bad;
            const auto e = test::errorOf([&] { c.validate(DeviceCatalog::builtin(), "c.json"); });
            QVERIFY(e && e->field() == "nodes[1].price_per_gpu_hour");
        }
    }

    // A planned plan carries estimate.cost: on amp-het-cluster every GPU is priced (V100-16GB, T4), so the
    // cost is the used GPUs' catalog prices summed; it round-trips through plan JSON and fits the schema.
    void plannedPlanCarriesCost()
    {
        const Plan p = plannedPlan();
        QVERIFY(p.estimate.cost.has_value());
        double perHour = 0;
        for (int g : p.usedGpus())
            perHour += p.cluster.nodeOf(g).deviceType == "T4" ? 0.526 : 3.06;
        QVERIFY(std::abs(p.estimate.cost->dollarsPerHour - perHour) < 1e-9);
        QVERIFY(std::abs(p.estimate.cost->dollarsPerMillionTokens -
                         perHour / (p.estimate.tokensPerSecond * 3600) * 1e6) < 1e-9);
        const QJsonObject o = toJson(p);
        QVERIFY(o["estimate"].toObject()["cost"].toObject().contains("dollars_per_million_tokens"));
        QVERIFY(validatePlanJson(o).empty());
        QVERIFY(planFromJson(o, "p.json").estimate.cost == p.estimate.cost);
        // A cost that is not a positive amount is refused on reading, naming the field.
        QJsonObject bad = o;
        QJsonObject est = bad["estimate"].toObject();
        est["cost"] = QJsonObject{{"dollars_per_hour", -1}, {"dollars_per_million_tokens", 0.2}};
        bad["estimate"] = est;
        const auto e = test::errorOf([&] { planFromJson(bad, "p.json"); });
        QVERIFY(e && e->field() == "estimate.cost.dollars_per_hour");
        QVERIFY(!validatePlanJson(bad).empty());
    }

    // Every plan JSON carries estimate.cost: when a used GPU has no price (RTX-3090 here) both figures are
    // null and the unpriced types are named, never a partial sum; the form round-trips and fits the schema.
    void unpricedPlanWritesWhyCostIsUnknown()
    {
        const Cluster c = test::twoNodeCluster("V100-16GB", 2, "RTX-3090", 2);
        Plan p = planOn(c, {0, 1, 2, 3}, 1000);
        priceEstimate(p, builtinDevice);
        QVERIFY(!p.estimate.cost);
        QCOMPARE(p.estimate.unpricedDeviceTypes, std::vector<std::string>{"RTX-3090"});
        QCOMPARE(costUnknownReason(p.estimate), std::string("no price for RTX-3090"));
        // Written into a whole plan: nulls, the reason and the types; read back the same; schema-valid.
        Plan whole = plannedPlan();
        whole.estimate.cost.reset();
        whole.estimate.unpricedDeviceTypes = p.estimate.unpricedDeviceTypes;
        const QJsonObject o = toJson(whole);
        const QJsonObject cost = o["estimate"].toObject()["cost"].toObject();
        QVERIFY(cost["dollars_per_hour"].isNull() && cost["dollars_per_million_tokens"].isNull());
        QCOMPARE(cost["unknown_because"].toString(), QString("no price for RTX-3090"));
        QCOMPARE(cost["unpriced_device_types"].toArray(), QJsonArray{"RTX-3090"});
        const auto violations = validatePlanJson(o);
        QVERIFY2(violations.empty(), violations.empty() ? "" : violations.front().message.c_str());
        const Plan back = planFromJson(o, "p.json");
        QVERIFY(!back.estimate.cost);
        QCOMPARE(back.estimate.unpricedDeviceTypes, p.estimate.unpricedDeviceTypes);
        // Priced by the node's override, the same plan has a cost and no unpriced types.
        p.cluster.nodes[1].pricePerGpuHour = 0.5;
        priceEstimate(p, builtinDevice);
        QVERIFY(p.estimate.cost && p.estimate.unpricedDeviceTypes.empty());
        QVERIFY(!toJson(p)["estimate"].toObject()["cost"].toObject().contains("unknown_because"));
    }

    // Two unpriced types are both named, once each and sorted; a plan moving no tokens says so, and a plan
    // that moves tokens on priced GPUs yet has no cost can only have overflowed.
    void unknownReasonNamesEachTypeOnce()
    {
        Cluster c = test::twoNodeCluster("RTX-4090", 2, "RTX-3090", 2);
        Plan p = planOn(c, {0, 1, 2, 3}, 1000);
        priceEstimate(p, builtinDevice);
        QCOMPARE(costUnknownReason(p.estimate), std::string("no price for RTX-3090, RTX-4090"));
        Plan idle = planOn(test::twoNodeCluster("V100-16GB", 2, "T4", 2), {0, 1}, 0);
        priceEstimate(idle, builtinDevice);
        QCOMPARE(costUnknownReason(idle.estimate), std::string("the plan moves no tokens"));
        Plan whole = plannedPlan();
        whole.estimate.cost.reset();
        const QJsonObject o = toJson(whole);
        QCOMPARE(o["estimate"].toObject()["cost"].toObject()["unknown_because"].toString(),
                 QString("the cost is not a finite number of dollars"));
        QVERIFY(!o["estimate"].toObject()["cost"].toObject().contains("unpriced_device_types"));
        QVERIFY(validatePlanJson(o).empty());
    }

    // The unknown form is held to its shape: a number beside a null, an empty type name, or an unknown
    // key are refused by the reader (naming the field) and by the schema.
    void unknownCostFormIsChecked_data()
    {
        QTest::addColumn<QJsonObject>("cost");
        QTest::addColumn<QString>("field");
        QTest::newRow("half null") << QJsonObject{{"dollars_per_hour", QJsonValue::Null},
                                                  {"dollars_per_million_tokens", 0.2},
                                                  {"unknown_because", "x"}}
                                   << "estimate.cost.dollars_per_million_tokens";
        QTest::newRow("empty type") << QJsonObject{{"dollars_per_hour", QJsonValue::Null},
                                                   {"dollars_per_million_tokens", QJsonValue::Null},
                                                   {"unknown_because", "x"},
                                                   {"unpriced_device_types", QJsonArray{""}}}
                                    << "estimate.cost.unpriced_device_types[0]";
        QTest::newRow("stray key") << QJsonObject{{"dollars_per_hour", QJsonValue::Null},
                                                  {"dollars_per_million_tokens", QJsonValue::Null},
                                                  {"unknown_because", "x"},
                                                  {"currency", "EUR"}}
                                   << "estimate.cost.currency";
    }
    void unknownCostFormIsChecked()
    {
        QFETCH(QJsonObject, cost);
        QFETCH(QString, field);
        QJsonObject o = toJson(plannedPlan());
        QJsonObject est = o["estimate"].toObject();
        est["cost"] = cost;
        o["estimate"] = est;
        const auto e = test::errorOf([&] { planFromJson(o, "p.json"); });
        QVERIFY(e.has_value());
        QCOMPARE(QString::fromStdString(e->field()), field);
        QVERIFY(!validatePlanJson(o).empty());
    }
};

QTEST_GUILESS_MAIN(TestPricing)
#include "tst_pricing.moc"
