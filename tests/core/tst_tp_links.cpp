// Tensor-parallel all-reduces run over the links the tp group really has: the node's own intra-node
// bandwidth, or a NIC when the group spans nodes — in the cost model, the simulator and AMP alike.
#include "testutil.h"

#include "core/cost/analytic.h"
#include "core/cost/costmodel.h"
#include "core/io/examples.h"
#include "core/io/json_io.h"
#include "core/io/schema_validate.h"
#include "core/model/catalog_json.h"
#include "core/sim/simulator.h"

#include <QJsonArray>
#include <QTest>

using namespace hetplan;

namespace {
Plan tpPlan(const Cluster& c, const ModelSpec& m, std::vector<int> gpus)
{
    // One stage, one replica, tp 4 on the given GPUs.
    Plan p;
    p.cluster = c;
    p.model = m;
    p.job.globalBatchSize = 8;
    Pipeline pl;
    pl.microBatchSize = 2;
    pl.microBatches = 4;
    pl.stages = {{0, m.layerCount(), std::move(gpus), 4, 1}};
    p.pipelines = {pl};
    return p;
}
} // namespace

class TestTpLinks : public QObject {
    Q_OBJECT
private slots:
    void deltaIsTheRingDifference()
    {
        ModelSpec m = test::toyModel(3);
        for (LayerSpec& l : m.layers)
            l.tpAllReduceBytes = 8e6;
        m.layers[1].tensorParallel = false; // not split: no all-reduce
        const CostModel costs(m, Job{}, Profile{});
        const DeviceType& v100 = costs.device("V100-16GB");
        const LinkParams slow{1e9, 0};
        const LinkParams assumed{v100.intraNodeBandwidth, 5e-6};
        // Two tp layers, 2 samples each: 16 MB per pass, in Megatron's two all-reduces of 8 MB; a ring over
        // 2 ranks moves 2·(1/2)·8 MB per call and pays 2·(2-1) = 2 latency steps per call, so 4 per pass.
        // The fixed per-call cost (dispatch + NCCL base latency) is the same on both links and cancels.
        const double perLayer = 16e6 / 1e9 - (16e6 / assumed.bandwidth + 4 * 5e-6);
        QVERIFY(qAbs(costs.tpLinkDelta(0, 3, "V100-16GB", 2, 2, slow) - 2 * perLayer) < 1e-12);
        const LayerTiming base = costs.range(0, 3, "V100-16GB", 2, 2);
        const LayerTiming moved = costs.range(0, 3, "V100-16GB", 2, 2, slow);
        QVERIFY(qAbs(moved.forward - base.forward - 2 * perLayer) < 1e-12);
        QVERIFY(qAbs(moved.backward - base.backward - 2 * perLayer) < 1e-12);
        QCOMPARE(costs.tpLinkDelta(0, 3, "V100-16GB", 1, 2, slow), 0.0); // no tp, nothing to move
    }

    // A time measured at tp > 1 already contains its all-reduces: no link, fast or slow,
    // adds any on top; the unmeasured tp 4 still gets the slow link's cost.
    void measuredTimesHoldTheirAllReduces()
    {
        ModelSpec m = test::toyModel(2);
        for (LayerSpec& l : m.layers)
            l.tpAllReduceBytes = 8e6;
        Profile p;
        p.set({"T4", 2, 1}, {{0.01, 0.02, 0, -1}, {0.01, 0.02, 0, -1}});
        const CostModel costs(m, Job{}, p);
        QCOMPARE(costs.tpLinkDelta(0, 2, "T4", 2, 1, LinkParams{1e13, 0}), 0.0);
        QCOMPARE(costs.tpLinkDelta(0, 2, "T4", 2, 1, LinkParams{1e8, 0}), 0.0);
        QVERIFY(costs.tpLinkDelta(0, 2, "T4", 4, 1, LinkParams{1e8, 0}) > 0);
    }

    void spanningNodesCostsTheNic()
    {
        Cluster c = exampleCluster("amp-homogeneous"); // 4 nodes × 4 T4
        for (Node& n : c.nodes)
            n.nicBandwidth = 1.25e8; // 1 Gbps between nodes
        const ModelSpec m = buildExampleModel("gpt2-amp");
        const CostModel costs(m, Job{}, Profile{});
        Plan inside = tpPlan(c, m, {0, 1, 2, 3});
        Plan across = tpPlan(c, m, {0, 4, 8, 12});
        // Same devices, same work; only the tp group's links differ.
        QVERIFY(simulate(across, costs, {false}).iterationSeconds >
                2 * simulate(inside, costs, {false}).iterationSeconds);
    }

    void theNodesOwnIntraBandwidthCounts()
    {
        Cluster c = exampleCluster("amp-homogeneous");
        const ModelSpec m = buildExampleModel("gpt2-amp");
        const CostModel costs(m, Job{}, Profile{});
        const double fast = simulate(tpPlan(c, m, {0, 1, 2, 3}), costs, {false}).iterationSeconds;
        c.nodes[0].intraBandwidth /= 10;
        const double slow = simulate(tpPlan(c, m, {0, 1, 2, 3}), costs, {false}).iterationSeconds;
        QVERIFY(slow > fast);
    }

    // PCIe servers: a ring hop under one switch with P2P runs at the GPU's link; every other hop is staged
    // through host memory and shares its switch uplinks with the ring's other staged hops.
    void consumerCardsStageEveryHop()
    {
        // RTX 3090: PCIe 4.0 x16 (32 GB/s in the catalog), P2P off in the catalog, default 4 GPUs a switch.
        Cluster c = test::twoNodeCluster("RTX-3090", 8, "RTX-3090", 8);
        const double link = 32e9;
        QCOMPARE(c.intraBandwidthOf(c.nodes[0]), link);
        // tp 8 over 0..7: all 8 hops staged. Switch 0 (GPUs 0-3) sends 0→1, 1→2, 2→3, 3→4 up its uplink
        // (4 hops) and receives 7→0, 0→1, 1→2, 2→3 (4 hops); switch 1 the same: every hop gets 32/4 = 8 GB/s.
        for (double bw : ringHopBandwidths(c, {0, 1, 2, 3, 4, 5, 6, 7}))
            QCOMPARE(bw, link / 4);
        QCOMPARE(groupLink(c, {0, 1, 2, 3, 4, 5, 6, 7}).bandwidth, link / 4);
        // tp 4 under one switch: 4 staged hops up and down the same uplink: 8 GB/s.
        QCOMPARE(groupLink(c, {0, 1, 2, 3}).bandwidth, link / 4);
        // tp 2: 0→1 and 1→0 share switch 0's uplink: 16 GB/s.
        QCOMPARE(groupLink(c, {0, 1}).bandwidth, link / 2);
        // One switch per pair (gpus_per_switch 2): tp 8 has 2 staged hops per uplink direction: 16 GB/s.
        c.nodes[0].pcie.gpusPerSwitch = 2;
        QCOMPARE(groupLink(c, {0, 1, 2, 3, 4, 5, 6, 7}).bandwidth, link / 2);
        // P2P switched on (e.g. a patched driver): only the 2 switch-crossing hops 3→4 and 7→0 (with 4 a
        // switch) are staged, each alone on its uplink direction: the full link.
        c.nodes[0].pcie = {4, 1};
        QCOMPARE(groupLink(c, {0, 1, 2, 3, 4, 5, 6, 7}).bandwidth, link);
        // The analytic profile assumes the same default server: 8 GB/s at tp 4 and 8, 16 at tp 2.
        const DeviceType& rtx = *DeviceCatalog::builtin().find("RTX-3090");
        QVERIFY(!rtx.pcieP2p);
        QCOMPARE(analyticTpLink(rtx, 8).bandwidth, link / 4);
        QCOMPARE(analyticTpLink(rtx, 4).bandwidth, link / 4);
        QCOMPARE(analyticTpLink(rtx, 2).bandwidth, link / 2);
    }

    void dataCentreAndNvlinkNodesKeepTheirLink()
    {
        // A100 PCIe (P2P on): within a switch P2P; across the two switches one staged hop per uplink
        // direction, so an 8-GPU ring still runs at the 32 GB/s link. With P2P off: 4 per uplink, 8 GB/s.
        Cluster c = test::twoNodeCluster("A100-80GB-PCIe", 8, "A100-80GB-PCIe", 8);
        QCOMPARE(groupLink(c, {0, 1, 2, 3, 4, 5, 6, 7}).bandwidth, 32e9);
        QCOMPARE(analyticTpLink(*DeviceCatalog::builtin().find("A100-80GB-PCIe"), 8).bandwidth, 32e9);
        c.nodes[0].pcie.p2p = 0;
        QCOMPARE(groupLink(c, {0, 1, 2, 3, 4, 5, 6, 7}).bandwidth, 8e9);
        // NVLink (V100 SXM2: 150 GB/s) is not PCIe: the topology is ignored.
        Cluster v = test::twoNodeCluster("V100-16GB", 8, "V100-16GB", 8);
        v.nodes[0].pcie = {2, 0};
        QCOMPARE(groupLink(v, {0, 1, 2, 3, 4, 5, 6, 7}).bandwidth, 150e9);
        QCOMPARE(analyticTpLink(*DeviceCatalog::builtin().find("V100-16GB"), 8).bandwidth, 150e9);
        // Between nodes the NIC rules as before: hop 1→8 and 15→0 leave the node (1.25 GB/s).
        QCOMPARE(groupLink(c, {0, 1, 8, 15}).bandwidth, 1.25e9);
    }

    // On a consumer PCIe node the simulator's tp 8 group costs what the staged ring costs: the simulated
    // iteration with P2P off is slower than with P2P switched on, on the same GPUs.
    void simulatorUsesTheStagedRing()
    {
        Cluster c = test::twoNodeCluster("RTX-3090", 8, "RTX-3090", 8);
        const ModelSpec m = buildExampleModel("gpt2-amp");
        const CostModel costs(m, Job{}, Profile{});
        Plan p = tpPlan(c, m, {0, 1, 2, 3});
        const double staged = simulate(p, costs, {false}).iterationSeconds;
        p.cluster.nodes[0].pcie.p2p = 1;
        QVERIFY(simulate(p, costs, {false}).iterationSeconds < staged);
    }

    void pcieTopologyRoundTrips()
    {
        Cluster c = test::twoNodeCluster("RTX-3090", 8, "T4", 4);
        QVERIFY(!toJson(c)["nodes"].toArray()[0].toObject().contains("pcie_topology")); // defaults: not written
        c.nodes[0].pcie = {2, 1};
        c.nodes[1].pcie.p2p = 0;
        const QJsonObject o = toJson(c);
        const QJsonObject t0 = o["nodes"].toArray()[0].toObject()["pcie_topology"].toObject();
        QCOMPARE(t0["gpus_per_switch"].toInt(), 2);
        QCOMPARE(t0["p2p"].toBool(), true);
        QVERIFY(!o["nodes"].toArray()[1].toObject()["pcie_topology"].toObject().contains("gpus_per_switch"));
        QVERIFY(clusterFromJson(o, "c.json") == c);
        // The catalog's pcie_p2p round-trips too.
        const DeviceType& rtx = *DeviceCatalog::builtin().find("RTX-3090");
        QVERIFY(deviceFromJson(toJson(rtx), "d.json", "devices[0]") == rtx);
        // A plan carrying the cluster fits the schema.
        const ModelSpec m = test::toyModel(4);
        Plan p = tpPlan(c, m, {0, 1, 2, 3});
        p.job.globalBatchSize = 8;
        p.planner = "uniform";
        const auto violations = validatePlanJson(toJson(p));
        QVERIFY2(violations.empty(), describe(violations).c_str());
    }

    void pcieTopologyErrorsNameTheField_data()
    {
        QTest::addColumn<QJsonValue>("value");
        QTest::addColumn<QString>("field");
        QTest::newRow("zero per switch") << QJsonValue(QJsonObject{{"gpus_per_switch", 0}})
                                         << "nodes[0].pcie_topology.gpus_per_switch";
        QTest::newRow("text p2p") << QJsonValue(QJsonObject{{"p2p", "yes"}}) << "nodes[0].pcie_topology.p2p";
        QTest::newRow("unknown key") << QJsonValue(QJsonObject{{"sockets", 2}}) << "nodes[0].pcie_topology.sockets";
        QTest::newRow("not an object") << QJsonValue(4) << "nodes[0].pcie_topology";
    }
    void pcieTopologyErrorsNameTheField()
    {
        QFETCH(QJsonValue, value);
        QFETCH(QString, field);
        QJsonObject o = toJson(test::twoNodeCluster("RTX-3090", 8, "T4", 4));
        QJsonArray nodes = o["nodes"].toArray();
        QJsonObject n0 = nodes[0].toObject();
        n0["pcie_topology"] = value;
        nodes[0] = n0;
        o["nodes"] = nodes;
        const auto e = test::errorOf([&] { clusterFromJson(o, "c.json"); });
        QVERIFY(e.has_value());
        QCOMPARE(e->file(), std::string("c.json"));
        QCOMPARE(QString::fromStdString(e->field()), field);
    }
};

QTEST_GUILESS_MAIN(TestTpLinks)
#include "tst_tp_links.moc"
