// Tensor-parallel all-reduces run over the links the tp group really has: the node's own intra-node
// bandwidth, or a NIC when the group spans nodes — in the cost model, the simulator and AMP alike.
#include "testutil.h"

#include "core/cost/costmodel.h"
#include "core/io/examples.h"
#include "core/sim/simulator.h"

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
        // Two tp layers, 2 samples each: 16 MB per all-reduce; ring over 2 ranks moves 2·(1/2)·16 MB.
        const double perLayer = 16e6 / 1e9 - (16e6 / assumed.bandwidth + 2 * 5e-6);
        QVERIFY(qAbs(costs.tpLinkDelta(0, 3, "V100-16GB", 2, 2, slow) - 2 * perLayer) < 1e-12);
        const LayerTiming base = costs.range(0, 3, "V100-16GB", 2, 2);
        const LayerTiming moved = costs.range(0, 3, "V100-16GB", 2, 2, slow);
        QVERIFY(qAbs(moved.forward - base.forward - 2 * perLayer) < 1e-12);
        QVERIFY(qAbs(moved.backward - base.backward - 2 * perLayer) < 1e-12);
        QCOMPARE(costs.tpLinkDelta(0, 3, "V100-16GB", 1, 2, slow), 0.0); // no tp, nothing to move
    }

    // A time measured at tp > 1 already contains its all-reduces (issue 9, item 6): no link, fast or slow,
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
};

QTEST_GUILESS_MAIN(TestTpLinks)
#include "tst_tp_links.moc"
