// Pipeline plans: every replica of every pipeline runs its own 1F1B or GPipe schedule; activations and
// gradients cross stage boundaries as point-to-point sends; then gradients are synchronised per layer
// segment across every GPU holding those layers, and each stage steps its optimizer.
//
// Modelling choices (kept simple on purpose, documented here once):
// - A stage of one replica is dataParallel × tensorParallel GPUs computing together; each micro-batch is
//   split over the data-parallel ranks, so compute uses micro-batch mbs / dataParallel at degree tp. A group
//   mixing device types runs at the pace of its slowest type.
// - Per-stage op order is fixed, so start times are found by walking the ops in dependency order (sweeping
//   stages forwards then backwards until all ops are placed) instead of a general event queue.
// - A boundary send pairs data-parallel rank j of the sender with rank j of the receiver (modulo each side's
//   dp), each pair carrying its share of the micro-batch over its own link; the transfer takes the slowest
//   pair's time. Sends in one direction over one boundary are serialised (they share the link); the two
//   directions are independent (full duplex). Links shared by different replicas are not contended.
// - Gradient sync: the model is cut at every stage boundary of every pipeline; each resulting layer segment
//   is all-reduced (ring over the bottleneck link) among one representative GPU per data-parallel copy (the
//   first GPU of its tensor-parallel group), with bytes = the segment's parameters per tp rank × bytes per
//   value. Rings of the other tp ranks run alongside and are not modelled separately. With job.zeroStage ≥ 1
//   the all-reduce becomes reduce-scatter → optimizer on its 1/(replicas·dp) shard → all-gather.
// - Timeline: compute events go on every GPU of the group; a send is recorded on the sending side's
//   representative GPUs with the sending stage's index (SendGradient of stage s travels to s−1).
#include "sim_detail.h"

#include "core/cost/collectives.h"
#include "core/cost/memory.h"

#include <algorithm>
#include <numeric>
#include <set>
#include <stdexcept>

namespace hetplan::simdetail {

namespace {

struct Group {                 // one stage of one replica of one pipeline
    int pipeline = 0, replica = 0, stage = 0;
    int first = 0, end = 0, tp = 1, dp = 1;
    std::vector<int> gpus;
    std::string device;        // slowest device type of the group
    double f = 0, b = 0, update = 0;
    double ready = 0;          // end of its last backward
    double syncDone = 0;       // end of its gradient reduction
    double optEnd = 0;         // end of its optimizer step
};

struct Boundary {              // stage s → s+1 of one replica
    double seconds = 0;        // one send (either direction; same bytes)
    std::vector<int> senders;  // representative GPUs of stage s
    std::vector<int> receivers;
};

Boundary makeBoundary(const Plan& plan, const Group& a, const Group& b, double microBatchSize)
{
    Boundary bd;
    const int pairs = std::max(a.dp, b.dp);
    const double bytes =
        plan.model.layers[a.end - 1].outputBytes * plan.job.activationScale() * microBatchSize / pairs;
    LinkParams link{0, 0};
    bool first = true;
    for (int j = 0; j < pairs; ++j) {
        const int src = a.gpus[(j % a.dp) * a.tp];
        const int dst = b.gpus[(j % b.dp) * b.tp];
        const double bw = plan.cluster.bandwidth(src, dst), lat = plan.cluster.latency(src, dst);
        if (first || bw < link.bandwidth)
            link.bandwidth = bw;
        if (first || lat > link.latency)
            link.latency = lat;
        first = false;
        if (std::find(bd.senders.begin(), bd.senders.end(), src) == bd.senders.end())
            bd.senders.push_back(src);
        if (std::find(bd.receivers.begin(), bd.receivers.end(), dst) == bd.receivers.end())
            bd.receivers.push_back(dst);
    }
    bd.seconds = pointToPoint(bytes, link);
    return bd;
}

// Runs the fixed per-stage op orders of one replica. groups[s] / bounds[s] are this replica's.
void runSchedule(std::vector<Group*>& groups, const std::vector<Boundary>& bounds, int M, bool gpipe,
                 Recorder& rec)
{
    const int S = int(groups.size());
    const int ops = 2 * M;
    // Arrival time of micro-batch m's activation at stage s+1 / gradient at stage s-1; < 0 = not yet known.
    std::vector<double> actArrive(size_t(S) * M, -1.0), gradArrive(size_t(S) * M, -1.0);
    std::vector<int> next(S, 0);
    std::vector<double> clock(S, 0.0), linkFwd(S, 0.0), linkBwd(S, 0.0);
    std::vector<int> warmup(S);
    for (int s = 0; s < S; ++s)
        warmup[s] = gpipe ? M : std::min(S - s - 1, M);

    // Which op stage s runs i-th: 1F1B (PipeDream-flush): w warm-up forwards, then F/B alternating, then w
    // cool-down backwards; GPipe: all M forwards, then all M backwards. Micro-batches in increasing order.
    auto opAt = [&](int s, int i, bool& forward, int& m) {
        const int w = warmup[s];
        if (gpipe) {
            forward = i < M;
            m = forward ? i : i - M;
        } else if (i < w) {
            forward = true;
            m = i;
        } else if (i < 2 * M - w) {
            const int j = i - w;
            forward = (j % 2) == 0;
            m = forward ? w + j / 2 : j / 2;
        } else {
            forward = false;
            m = i - M;
        }
    };

    auto advance = [&](int s) {
        bool moved = false;
        Group& g = *groups[s];
        while (next[s] < ops) {
            bool forward;
            int m;
            opAt(s, next[s], forward, m);
            double ready = 0;
            if (forward && s > 0) {
                ready = actArrive[size_t(s - 1) * M + m];
                if (ready < 0)
                    break;
            } else if (!forward && s < S - 1) {
                ready = gradArrive[size_t(s + 1) * M + m];
                if (ready < 0)
                    break;
            }
            const double start = std::max(clock[s], ready);
            const double end = start + (forward ? g.f : g.b);
            clock[s] = end;
            const EventKind kind = forward ? EventKind::Forward : EventKind::Backward;
            for (int gpu : g.gpus)
                rec.add(gpu, kind, g.pipeline, g.replica, g.stage, m, start, end);
            if (forward && s < S - 1) {
                const Boundary& bd = bounds[s];
                const double sendStart = std::max(end, linkFwd[s]);
                linkFwd[s] = sendStart + bd.seconds;
                actArrive[size_t(s) * M + m] = linkFwd[s];
                if (bd.seconds > 0)
                    for (int gpu : bd.senders)
                        rec.add(gpu, EventKind::SendActivation, g.pipeline, g.replica, s, m, sendStart, linkFwd[s]);
            } else if (!forward && s > 0) {
                const Boundary& bd = bounds[s - 1];
                const double sendStart = std::max(end, linkBwd[s - 1]);
                linkBwd[s - 1] = sendStart + bd.seconds;
                gradArrive[size_t(s) * M + m] = linkBwd[s - 1];
                if (bd.seconds > 0)
                    for (int gpu : bd.receivers)
                        rec.add(gpu, EventKind::SendGradient, g.pipeline, g.replica, s, m, sendStart,
                                linkBwd[s - 1]);
            }
            ++next[s];
            moved = true;
        }
        return moved;
    };

    int remaining = S * ops;
    while (remaining > 0) {
        bool moved = false;
        // Forward sweep lets forwards ripple down in one pass, the backward sweep lets gradients ripple up.
        for (int s = 0; s < S; ++s)
            moved |= advance(s);
        for (int s = S - 1; s >= 0; --s)
            moved |= advance(s);
        remaining = 0;
        for (int s = 0; s < S; ++s)
            remaining += ops - next[s];
        if (!moved && remaining > 0)
            throw std::logic_error("pipeline schedule made no progress");
    }
    for (int s = 0; s < S; ++s)
        groups[s]->ready = clock[s];
}

struct Holder {                // one data-parallel copy of a layer segment
    int group = 0;
    std::vector<int> gpus;     // its tensor-parallel GPUs
};

struct Segment {
    int first = 0, end = 0;
    std::vector<Holder> holders;
    double bytes = 0;
    LinkParams link;
};

// Runs one collective per segment (segments ordered by when their holders are ready) on the GPUs'
// communication tracks. `readyOf(group)` says when a group may start; `doneOf(group)` collects the end.
template <class Ready, class Done>
void runSegmentCollectives(const Plan& plan, std::vector<Segment>& segs, std::vector<Group>& groups,
                           std::vector<double>& commFree, EventKind kind, Ready readyOf, Done doneOf, Recorder& rec)
{
    std::vector<std::pair<double, int>> order;
    for (size_t i = 0; i < segs.size(); ++i) {
        double r = 0;
        for (const Holder& h : segs[i].holders)
            r = std::max(r, readyOf(groups[h.group]));
        order.push_back({r, -int(i)});   // ties: later layers first (backward finishes them first)
    }
    std::sort(order.begin(), order.end());
    for (auto [ready, negIdx] : order) {
        Segment& seg = segs[size_t(-negIdx)];
        const int n = int(seg.holders.size());
        double dur = 0;
        switch (kind) {
        case EventKind::AllReduce: dur = ringAllReduce(seg.bytes, n, seg.link); break;
        case EventKind::ReduceScatter: dur = ringReduceScatter(seg.bytes, n, seg.link); break;
        case EventKind::AllGather: dur = ringAllGather(seg.bytes, n, seg.link); break;
        default: break;
        }
        if (n <= 1 || dur <= 0) {
            for (const Holder& h : seg.holders)
                doneOf(groups[h.group], readyOf(groups[h.group]));
            continue;
        }
        double start = ready;
        for (const Holder& h : seg.holders)
            for (int gpu : h.gpus)
                start = std::max(start, commFree[gpu]);
        const double end = start + dur;
        for (const Holder& h : seg.holders) {
            const Group& g = groups[h.group];
            for (int gpu : h.gpus) {
                commFree[gpu] = end;
                rec.add(gpu, kind, g.pipeline, g.replica, g.stage, -1, start, end);
            }
            doneOf(groups[h.group], end);
        }
    }
}

} // namespace

void simulatePipelines(const Plan& plan, const CostModel& costs, Recorder& rec)
{
    const Job& job = plan.job;
    const bool gpipe = job.schedule == Schedule::GPipe;
    const int nLayers = plan.model.layerCount();

    // 1. Groups with their compute times and memory peaks.
    std::vector<Group> groups;
    std::vector<size_t> pipeOffset;   // first group index of each pipeline; group (p,r,s) = off + r*S + s
    for (size_t p = 0; p < plan.pipelines.size(); ++p) {
        const Pipeline& pl = plan.pipelines[p];
        const int S = int(pl.stages.size());
        pipeOffset.push_back(groups.size());
        for (int r = 0; r < pl.replicas; ++r)
            for (int s = 0; s < S; ++s) {
                const Stage& st = pl.stages[s];
                Group g;
                g.pipeline = int(p);
                g.replica = r;
                g.stage = s;
                g.first = st.firstLayer;
                g.end = st.endLayer;
                g.tp = st.tensorParallel;
                g.dp = st.dataParallel;
                const size_t per = size_t(st.dataParallel) * st.tensorParallel;
                g.gpus.assign(st.gpus.begin() + r * per, st.gpus.begin() + (r + 1) * per);
                const double mb = double(pl.microBatchSize) / st.dataParallel;
                const LayerTiming lt = slowestRange(plan, costs, g.gpus, g.first, g.end, g.tp, mb, &g.device);
                g.f = lt.forward;
                g.b = lt.backward;
                g.update = lt.update;
                const int inFlight = gpipe ? pl.microBatches : std::min(S - s, pl.microBatches);
                const int shards = job.zeroStage > 0 ? pl.replicas * st.dataParallel : 1;
                const double peak =
                    stagePeakMemory(plan.model, g.first, g.end, g.tp, shards, mb, inFlight, job);
                for (int gpu : g.gpus)
                    rec.result.peakMemoryBytes[gpu] = peak;
                groups.push_back(std::move(g));
            }
    }

    // 2. The schedule of every replica of every pipeline.
    for (size_t p = 0; p < plan.pipelines.size(); ++p) {
        const Pipeline& pl = plan.pipelines[p];
        const int S = int(pl.stages.size());
        for (int r = 0; r < pl.replicas; ++r) {
            std::vector<Group*> gs(S);
            for (int s = 0; s < S; ++s)
                gs[s] = &groups[pipeOffset[p] + size_t(r) * S + s];
            std::vector<Boundary> bounds;
            for (int s = 0; s + 1 < S; ++s)
                bounds.push_back(makeBoundary(plan, *gs[s], *gs[s + 1], pl.microBatchSize));
            runSchedule(gs, bounds, pl.microBatches, gpipe, rec);
        }
    }

    // 3. Gradient synchronisation per layer segment.
    std::set<int> cuts{0, nLayers};
    for (const Pipeline& pl : plan.pipelines)
        for (const Stage& st : pl.stages)
            cuts.insert(st.firstLayer);
    std::vector<int> cutList(cuts.begin(), cuts.end());
    std::vector<Segment> segs;
    for (size_t i = 0; i + 1 < cutList.size(); ++i) {
        Segment seg;
        seg.first = cutList[i];
        seg.end = cutList[i + 1];
        int minTp = 1 << 30;
        std::vector<int> reps;
        for (size_t p = 0; p < plan.pipelines.size(); ++p) {
            const Pipeline& pl = plan.pipelines[p];
            const int S = int(pl.stages.size());
            int s = 0;
            while (pl.stages[s].endLayer <= seg.first)
                ++s;
            for (int r = 0; r < pl.replicas; ++r) {
                const int gi = int(pipeOffset[p] + size_t(r) * S + s);
                const Group& g = groups[gi];
                minTp = std::min(minTp, g.tp);
                for (int d = 0; d < g.dp; ++d) {
                    Holder h;
                    h.group = gi;
                    h.gpus.assign(g.gpus.begin() + d * g.tp, g.gpus.begin() + (d + 1) * g.tp);
                    reps.push_back(h.gpus.front());
                    seg.holders.push_back(std::move(h));
                }
            }
        }
        seg.bytes = paramsPerRank(plan.model, seg.first, seg.end, minTp) * job.bytesPerValue();
        seg.link = groupLink(plan.cluster, reps);
        segs.push_back(std::move(seg));
    }

    std::vector<double> commFree(plan.cluster.gpuCount(), 0.0);
    for (Group& g : groups)
        g.syncDone = g.ready;
    auto readyAfterBackward = [](const Group& g) { return g.ready; };
    auto markSync = [](Group& g, double t) { g.syncDone = std::max(g.syncDone, t); };
    const bool sharded = job.zeroStage > 0;
    runSegmentCollectives(plan, segs, groups, commFree, sharded ? EventKind::ReduceScatter : EventKind::AllReduce,
                          readyAfterBackward, markSync, rec);

    // 4. Optimizer step per group (on its ZeRO shard when sharded).
    for (Group& g : groups) {
        const Pipeline& pl = plan.pipelines[g.pipeline];
        const double shards = sharded ? double(pl.replicas) * g.dp : 1.0;
        const double dur =
            optimizerSeconds(costs, g.device, g.update, paramsPerRank(plan.model, g.first, g.end, g.tp), shards);
        const double start = std::max(g.ready, g.syncDone);
        g.optEnd = start + dur;
        for (int gpu : g.gpus) {
            if (dur > 0)
                rec.add(gpu, EventKind::Optimizer, g.pipeline, g.replica, g.stage, -1, start, g.optEnd);
            else
                rec.touch(gpu, g.optEnd);
        }
    }

    // 5. ZeRO: gather the updated parameter shards.
    if (sharded) {
        auto readyAfterStep = [](const Group& g) { return g.optEnd; };
        auto ignore = [](Group&, double) {};
        runSegmentCollectives(plan, segs, groups, commFree, EventKind::AllGather, readyAfterStep, ignore, rec);
    }
}

} // namespace hetplan::simdetail
