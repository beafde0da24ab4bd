#pragma once
// Shared inputs of the HAP tests: synthesis contexts, a counting stop callback, a large synthetic
// sharding-ratio LP and HAP's small V100 + P100 request.
#include "core/base/errors.h"
#include "core/io/examples.h"
#include "core/io/json_io.h"
#include "core/io/schema_validate.h"
#include "core/planners/hap/graph_builders.h"
#include "core/planners/hap/load_balance.h"
#include "core/planners/hap/program.h"
#include "core/planners/hap/synthesis.h"
#include "core/planners/planner.h"
#include "core/sim/simulator.h"
#include "testutil.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTest>

#include <cmath>
#include <ctime>
#include <functional>
#include <numeric>
#include <random>

namespace hetplan::haptest {

using namespace hetplan::hap;

// Two device classes (a fast and a slow GPU type), `segments` ratio segments.
inline SynthesisContext context(const TensorGraph& g, double fastShare, int fast, int slow, bool perLayer)
{
    SynthesisContext ctx;
    ctx.graph = &g;
    ctx.classes = {{"fast", fast, 4e12}, {"slow", slow, 1e12}};
    ctx.ranks = fast + slow;
    ctx.link = {1e9, 1e-5};
    const int segs = perLayer ? int(g.segments.size()) : 1;
    for (int s = 0; s < int(g.segments.size()); ++s)
        ctx.ratioSegmentOf.push_back(perLayer ? s : 0);
    const double slowShare = (1.0 - fast * fastShare) / slow;
    ctx.ratios.assign(segs, {fastShare, slowShare});
    return ctx;
}

// A stop callback that counts its polls and says stop from poll number `stopAt` on (0: never).
struct CountingStop {
    int stopAt = 0;
    int polls = 0;
    std::function<bool()> fn()
    {
        return [this] { return ++polls >= stopAt && stopAt > 0; };
    }
};

inline double cpuMsNow()
{
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

// A medium problem for the stop tests: gpt2-amp (26 layers) on 2 fast + 6 slow GPUs, per-layer ratios at
// the proportional start, so the sharding-ratio LP needs many simplex iterations.
inline SynthesisContext gptContext(const TensorGraph& g)
{
    SynthesisContext ctx = context(g, 0.25, 2, 6, true);
    ctx.ratios.assign(ctx.ratioSegments(), proportionalRatios(ctx.classes));
    return ctx;
}

// A large sharding-ratio LP without a search: `perSegment` compute stages per segment with per-class
// seconds α·B + β drawn at random around each class's speed, a collective per stage and a re-balance
// between neighbouring segments (the shapes costTerms produces).
inline CostTerms syntheticTerms(const std::vector<DeviceClass>& classes, int segments, int perSegment)
{
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> jitter(0.5, 1.5);
    CostTerms t;
    for (int k = 0; k < segments; ++k) {
        for (int i = 0; i < perSegment; ++i) {
            CostTerms::Group g;
            g.segment = k;
            for (const DeviceClass& c : classes) {
                g.alpha.push_back(1e13 / c.flopsRate * jitter(rng));
                g.beta.push_back(1e-4 * jitter(rng));
            }
            t.groups.push_back(g);
            t.comms.push_back({k, {1e-5, 1e-2 * jitter(rng)}, -1});
        }
        if (k > 0)
            t.comms.push_back({k, {1e-5, 1e-2 * jitter(rng)}, k - 1});
    }
    return t;
}

// 2 V100 + 2 P100 training a VGG in fp32: HAP's small heterogeneous test case.
inline PlanRequest vggOnV100AndP100(const std::string& model, int globalBatch)
{
    PlanRequest req;
    req.cluster = test::twoNodeCluster("V100-16GB", 2, "P100-16GB", 2);
    req.model = buildExampleModel(model);
    req.job.globalBatchSize = globalBatch;
    req.job.precision = Precision::FP32;
    return req;
}

} // namespace hetplan::haptest
