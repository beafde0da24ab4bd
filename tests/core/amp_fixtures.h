#pragma once
// Fixtures shared by the AMP tests (tst_amp; tst_amp_memory: the memory handling): small clusters and
// profiles with exactly known numbers, requests, and the invariants every amp plan must satisfy.
#include "core/base/errors.h"
#include "core/cost/memory.h"
#include "core/io/examples.h"
#include "core/io/importers.h"
#include "core/planners/amp/amp_cost.h"
#include "core/planners/amp/amp_planner.h"
#include "core/planners/amp/domino.h"
#include "core/planners/common/bounds.h"
#include "core/planners/common/strategy.h"
#include "core/sim/simulator.h"
#include "testutil.h"

#include <QFileInfo>
#include <QTest>

#include <cmath>
#include <limits>
#include <random>
#include <set>
#include <tuple>

namespace hetplan::amptest {

// Two nodes of `gpus` GPUs each; 100 GB/s inside a node, 1 GB/s between nodes, no latency.
inline Cluster plainTwoNodes(const std::string& typeA, const std::string& typeB, int gpus)
{
    Cluster c = test::twoNodeCluster(typeA, gpus, typeB, gpus, 1e9);
    for (Node& n : c.nodes)
        n.intraBandwidth = 100e9;
    c.intraLatency = 0;
    c.interLatency = 0;
    return c;
}

// Measured per-layer times at tp 1, micro-batch 1 (so layer times are exactly known).
inline Profile flatProfile(const std::string& device, int layers, double fwd, double bwd)
{
    Profile p;
    p.model = "toy";
    p.source = "test";
    p.set({device, 1, 1}, std::vector<LayerTiming>(layers, LayerTiming{fwd, bwd, 0, -1}));
    return p;
}

inline Job jobWithBatch(int gbs)
{
    Job j;
    j.globalBatchSize = gbs;
    return j;
}

inline PlanRequest request(const Cluster& c, const ModelSpec& m, int gbs)
{
    PlanRequest r;
    r.cluster = c;
    r.model = m;
    r.job = jobWithBatch(gbs);
    return r;
}

inline Plan run(const std::string& planner, const PlanRequest& req)
{
    Progress progress;
    return runPlanner(planner, req, progress);
}

// Structural and memory invariants every pipeline plan from these planners must satisfy.
inline void checkPlan(const Plan& plan, const CostModel& costs)
{
    QCOMPARE(int(plan.pipelines.size()), 1);
    // Layers once in order, GPU counts, no GPU double-booked, all GPUs used, batches, memory fits.
    test::checkPipelineInvariants(plan, &costs, true);
    if (QTest::currentTestFailed())
        return;
    QVERIFY(plan.estimate.feasible);
    QVERIFY(plan.plannerEstimate.has_value() && *plan.plannerEstimate > 0);
}

inline Cluster v100Grid4x4()
{
    // AMP's heterogeneous-model setup: 4 p3.8xlarge (4 × V100, NVLink ~170 Gbps), 10 Gbps between nodes.
    Cluster c;
    c.name = "v100-4x4";
    for (int i = 0; i < 4; ++i) {
        Node n;
        n.name = "p3-" + std::to_string(i);
        n.deviceType = "V100-16GB";
        n.gpus = 4;
        n.intraBandwidth = 170e9 / 8;
        n.nicBandwidth = 10e9 / 8;
        c.nodes.push_back(n);
    }
    c.interLatency = 50e-6;
    return c;
}

} // namespace hetplan::amptest
