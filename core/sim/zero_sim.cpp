// ZeRO data-parallel plans with a per-GPU micro-batch, accumulation count and last micro-batch (Poplar).
// The collectives each stage adds follow Poplar's appendix (after the ZeRO papers):
//   ZeRO-0  all-reduce of the gradients once after the last backward, full optimizer step on every GPU;
//   ZeRO-1  the same all-reduce, optimizer step on the GPU's 1/N shard, all-gather of the parameters;
//   ZeRO-2  a reduce-scatter of the gradients after every accumulation round, shard step, all-gather;
//   ZeRO-3  per round: all-gather weights → forward → all-gather weights → backward → reduce-scatter;
//           shard step at the end (parameters stay sharded, no final gather).
// Training is bulk-synchronous: every collective spans all ZeRO GPUs (ring over the group's bottleneck link)
// and starts when the slowest GPU reaches it. In ZeRO-2/3 every GPU joins every round (rounds = the
// largest accumulation count); a GPU with fewer micro-batches joins later rounds without computing.
#include "sim_detail.h"

#include "core/cost/collectives.h"
#include "core/cost/memory.h"

#include <algorithm>

namespace hetplan::simdetail {

namespace {

struct ZGpu {
    int gpu = 0;
    int steps = 0;
    std::string device;
    LayerTiming full, last;    // one micro-step at the regular and at the last micro-batch size
    double optimizer = 0;
    double clock = 0;
    const LayerTiming& step(int k) const { return k == steps - 1 ? last : full; }
};

} // namespace

void simulateZero(const Plan& plan, const CostModel& costs, Recorder& rec)
{
    const ZeroPlan& z = *plan.zero;
    const int L = plan.model.layerCount();
    const int N = int(z.gpus.size());
    Job memJob = plan.job;
    memJob.zeroStage = z.stage;
    const double params = paramsPerRank(plan.model, 0, L, 1);
    const double bytes = params * plan.job.bytesPerValue();   // gradients and parameters alike

    std::vector<int> ring;
    std::vector<ZGpu> gs;
    for (const ZeroGpu& zg : z.gpus) {
        ZGpu g;
        g.gpu = zg.gpu;
        g.steps = zg.accumulationSteps;
        g.device = plan.cluster.nodeOf(zg.gpu).deviceType;
        if (g.steps > 0) {
            g.full = costs.range(0, L, g.device, 1, zg.microBatchSize);
            g.last = zg.lastMicroBatchSize == zg.microBatchSize ? g.full
                                                                 : costs.range(0, L, g.device, 1, zg.lastMicroBatchSize);
        }
        const double measuredUpdate = g.steps > 0 ? g.full.update : costs.range(0, L, g.device, 1, 1).update;
        g.optimizer = optimizerSeconds(costs, g.device, measuredUpdate, params, z.stage >= 1 ? N : 1);
        rec.result.peakMemoryBytes[zg.gpu] =
            stagePeakMemory(plan.model, 0, L, 1, N, g.steps > 0 ? zg.microBatchSize : 0, 1, memJob);
        rec.touch(zg.gpu, 0);
        ring.push_back(zg.gpu);
        gs.push_back(g);
    }
    const LinkParams link = groupLink(plan.cluster, ring);

    // A collective over all ZeRO GPUs once every GPU's clock has reached it.
    auto collective = [&](EventKind kind, double seconds, int microBatch) {
        double start = 0;
        for (const ZGpu& g : gs)
            start = std::max(start, g.clock);
        const double end = start + seconds;
        for (ZGpu& g : gs) {
            if (seconds > 0)
                rec.add(g.gpu, kind, 0, 0, 0, microBatch, start, end);
            g.clock = end;
        }
    };
    auto compute = [&](ZGpu& g, EventKind kind, double seconds, int microBatch) {
        if (seconds <= 0)
            return;
        rec.add(g.gpu, kind, 0, 0, 0, microBatch, g.clock, g.clock + seconds);
        g.clock += seconds;
    };

    int rounds = 0;
    for (const ZGpu& g : gs)
        rounds = std::max(rounds, g.steps);

    if (z.stage <= 1) {
        for (ZGpu& g : gs)
            for (int k = 0; k < g.steps; ++k) {
                compute(g, EventKind::Forward, g.step(k).forward, k);
                compute(g, EventKind::Backward, g.step(k).backward, k);
            }
        collective(EventKind::AllReduce, ringAllReduce(bytes, N, link), -1);
    } else if (z.stage == 2) {
        for (int k = 0; k < rounds; ++k) {
            for (ZGpu& g : gs)
                if (k < g.steps) {
                    compute(g, EventKind::Forward, g.step(k).forward, k);
                    compute(g, EventKind::Backward, g.step(k).backward, k);
                }
            collective(EventKind::ReduceScatter, ringReduceScatter(bytes, N, link), k);
        }
    } else {
        for (int k = 0; k < rounds; ++k) {
            collective(EventKind::AllGather, ringAllGather(bytes, N, link), k);
            for (ZGpu& g : gs)
                if (k < g.steps)
                    compute(g, EventKind::Forward, g.step(k).forward, k);
            collective(EventKind::AllGather, ringAllGather(bytes, N, link), k);
            for (ZGpu& g : gs)
                if (k < g.steps)
                    compute(g, EventKind::Backward, g.step(k).backward, k);
            collective(EventKind::ReduceScatter, ringReduceScatter(bytes, N, link), k);
        }
    }
    for (ZGpu& g : gs)
        compute(g, EventKind::Optimizer, g.optimizer, -1);
    if (z.stage == 1 || z.stage == 2)
        collective(EventKind::AllGather, ringAllGather(bytes, N, link), -1);
    for (const ZGpu& g : gs)
        rec.touch(g.gpu, g.clock);
}

} // namespace hetplan::simdetail
