// ZeRO data-parallel plans with a per-GPU micro-batch, accumulation count and last micro-batch (Poplar).
// Each GPU computes its own micro-batches (its own sizes, its own device's times); the collectives of the
// plan's stage follow DeepSpeed (core/cost/zero_comm.h has the volumes):
//   ZeRO-0  all-reduce of the gradients once after the last backward, full optimizer step on every GPU;
//   ZeRO-1  reduce-scatter of the gradients after the last backward, optimizer step on the GPU's 1/N shard,
//           all-gather of the updated parameters;
//   ZeRO-2  a reduce-scatter of the gradients in every micro-step, shard step, all-gather;
//   ZeRO-3  per micro-step: all-gather weights → forward → all-gather weights → backward → reduce-scatter;
//           shard step at the end (parameters stay sharded, no final gather).
// Gradients are reduced in fp32 when training in bf16 (4 bytes per parameter), parameters move in the
// training precision. Training is bulk-synchronous: every collective spans all ZeRO GPUs (ring over the
// group's bottleneck link) and starts when the slowest GPU reaches it, so a faster GPU shows idle time
// before it; the iteration ends when the slowest GPU finishes. In ZeRO-2/3 every GPU joins every round
// (rounds = the largest accumulation count); a GPU with fewer micro-batches joins later rounds without
// computing.
#include "sim_detail.h"

#include "core/cost/collectives.h"
#include "core/cost/memory.h"
#include "core/cost/zero_comm.h"

#include <algorithm>

namespace hetplan::simdetail {

namespace {

struct ZGpu {
    int gpu = 0;
    int steps = 0;
    std::string device;
    LayerTiming full, last; // one micro-step at the regular and at the last micro-batch size
    double optimizer = 0;
    double clock = 0;
    const LayerTiming& step(int k) const { return k == steps - 1 ? last : full; }
};

// One iteration of a ZeRO plan: per-GPU clocks, bulk-synchronous collectives over all its GPUs.
class ZeroIteration {
public:
    ZeroIteration(const Plan& plan, const CostModel& costs, Recorder& rec)
        : plan_(plan),
          z_(*plan.zero),
          rec_(rec),
          N_(int(z_.gpus.size())),
          params_(paramsPerRank(plan.model, 0, plan.model.layerCount(), 1)),
          weightBytes_(params_ * plan.job.bytesPerValue())
    {
        std::vector<int> ring;
        for (const ZeroGpu& zg : z_.gpus)
            ring.push_back(zg.gpu);
        const std::vector<int> nodes = plan.cluster.nodesOf(ring);
        for (size_t i = 0; i < z_.gpus.size(); ++i)
            gs_.push_back(makeGpu(costs, z_.gpus[i], plan.cluster.nodes[size_t(nodes[i])].deviceType));
        link_ = groupLink(plan.cluster, ring);
        for (const ZGpu& g : gs_)
            rounds_ = std::max(rounds_, g.steps);
    }

    void run()
    {
        if (z_.stage <= 1)
            accumulateThenReduce();
        else if (z_.stage == 2)
            reduceScatterEveryRound();
        else
            gatherWeightsEveryRound();
        for (ZGpu& g : gs_)
            compute(g, EventKind::Optimizer, g.optimizer, -1);
        if (z_.stage == 1 || z_.stage == 2)
            collective(EventKind::AllGather, ringAllGather(weightBytes_, N_, link_), -1);
        for (const ZGpu& g : gs_)
            rec_.touch(g.gpu, g.clock);
    }

private:
    ZGpu makeGpu(const CostModel& costs, const ZeroGpu& zg, const std::string& device)
    {
        const int L = plan_.model.layerCount();
        ZGpu g;
        g.gpu = zg.gpu;
        g.steps = zg.accumulationSteps;
        g.device = device;
        if (g.steps > 0) {
            g.full = costs.range(0, L, g.device, 1, zg.microBatchSize);
            g.last = zg.lastMicroBatchSize == zg.microBatchSize ? g.full
                                                                : costs.range(0, L, g.device, 1, zg.lastMicroBatchSize);
        }
        const double measuredUpdate = g.steps > 0 ? g.full.update : costs.range(0, L, g.device, 1, 1).update;
        g.optimizer = optimizerSeconds(costs, g.device, measuredUpdate, params_, z_.stage >= 1 ? N_ : 1);
        // ZeRO plans run on DeepSpeed's engine: its gradient buffer, one data-parallel communicator.
        Job memJob = plan_.job;
        memJob.zeroStage = z_.stage;
        memJob.framework = Framework::DeepSpeedPipe;
        const GpuMemory mem = stageMemory(plan_.model, 0, L, 1, N_, g.steps > 0 ? zg.microBatchSize : 0, 1, memJob);
        rec_.result.peakMemoryBytes[zg.gpu] = mem.stagePart();
        rec_.result.memory[zg.gpu] = mem;
        rec_.result.rankGroups[zg.gpu] = RankGroups::dataParallel(N_);
        rec_.touch(zg.gpu, 0);
        return g;
    }

    // A collective over all ZeRO GPUs once every GPU's clock has reached it.
    void collective(EventKind kind, double seconds, int microBatch)
    {
        double start = 0;
        for (const ZGpu& g : gs_)
            start = std::max(start, g.clock);
        const double end = start + seconds;
        for (ZGpu& g : gs_) {
            if (seconds > 0)
                rec_.add(g.gpu, kind, 0, 0, 0, microBatch, start, end);
            g.clock = end;
        }
    }

    void compute(ZGpu& g, EventKind kind, double seconds, int microBatch)
    {
        if (seconds <= 0)
            return;
        rec_.add(g.gpu, kind, 0, 0, 0, microBatch, g.clock, g.clock + seconds);
        g.clock += seconds;
    }

    void forwardBackward(ZGpu& g, int k)
    {
        compute(g, EventKind::Forward, g.step(k).forward, k);
        compute(g, EventKind::Backward, g.step(k).backward, k);
    }

    // ZeRO-0/1: every micro-step locally, then one all-reduce (ZeRO-0) or reduce-scatter (ZeRO-1).
    void accumulateThenReduce()
    {
        for (ZGpu& g : gs_)
            for (int k = 0; k < g.steps; ++k)
                forwardBackward(g, k);
        if (z_.stage == 0)
            collective(EventKind::AllReduce, gradientReduction(ringAllReduce, params_, plan_.job, N_, link_), -1);
        else
            collective(EventKind::ReduceScatter, gradientReduction(ringReduceScatter, params_, plan_.job, N_, link_), -1);
    }

    // ZeRO-2: a reduce-scatter after every accumulation round.
    void reduceScatterEveryRound()
    {
        for (int k = 0; k < rounds_; ++k) {
            for (ZGpu& g : gs_)
                if (k < g.steps)
                    forwardBackward(g, k);
            collective(EventKind::ReduceScatter, gradientReduction(ringReduceScatter, params_, plan_.job, N_, link_), k);
        }
    }

    // ZeRO-3: weights gathered before each forward and each backward, gradients reduce-scattered after.
    void gatherWeightsEveryRound()
    {
        for (int k = 0; k < rounds_; ++k) {
            collective(EventKind::AllGather, ringAllGather(weightBytes_, N_, link_), k);
            for (ZGpu& g : gs_)
                if (k < g.steps)
                    compute(g, EventKind::Forward, g.step(k).forward, k);
            collective(EventKind::AllGather, ringAllGather(weightBytes_, N_, link_), k);
            for (ZGpu& g : gs_)
                if (k < g.steps)
                    compute(g, EventKind::Backward, g.step(k).backward, k);
            collective(EventKind::ReduceScatter, gradientReduction(ringReduceScatter, params_, plan_.job, N_, link_), k);
        }
    }

    const Plan& plan_;
    const ZeroPlan& z_;
    Recorder& rec_;
    const int N_;
    const double params_;
    const double weightBytes_; // parameters as they are gathered
    std::vector<ZGpu> gs_;
    LinkParams link_;
    int rounds_ = 0;
};

} // namespace

void simulateZero(const Plan& plan, const CostModel& costs, Recorder& rec) { ZeroIteration(plan, costs, rec).run(); }

} // namespace hetplan::simdetail
