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

struct Group { // one stage of one replica of one pipeline
    int pipeline = 0, replica = 0, stage = 0;
    int first = 0, end = 0, tp = 1, dp = 1;
    std::vector<int> gpus;
    std::string device; // slowest device type of the group
    double f = 0, b = 0, update = 0;
    double ready = 0;    // end of its last backward
    double syncDone = 0; // end of its gradient reduction
    double optEnd = 0;   // end of its optimizer step
};

struct Boundary {             // stage s → s+1 of one replica
    double seconds = 0;       // one send (either direction; same bytes)
    std::vector<int> senders; // representative GPUs of stage s
    std::vector<int> receivers;
};

Boundary makeBoundary(const Plan& plan, const Group& a, const Group& b, double microBatchSize)
{
    Boundary bd;
    const int pairs = std::max(a.dp, b.dp);
    const double bytes = plan.model.layers[a.end - 1].outputBytes * plan.job.activationScale() * microBatchSize / pairs;
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

// Runs the fixed per-stage op orders of one replica: 1F1B (PipeDream-flush: w warm-up forwards, then F/B
// alternating, then w cool-down backwards) or GPipe (all M forwards, then all M backwards), micro-batches
// in increasing order. groups[s] / bounds[s] are this replica's.
class ReplicaSchedule {
public:
    ReplicaSchedule(std::vector<Group*>& groups, const std::vector<Boundary>& bounds, int M, bool gpipe, Recorder& rec)
        : groups_(groups),
          bounds_(bounds),
          S_(int(groups.size())),
          M_(M),
          gpipe_(gpipe),
          rec_(rec),
          actArrive_(size_t(S_) * M, -1.0),
          gradArrive_(size_t(S_) * M, -1.0),
          next_(S_, 0),
          clock_(S_, 0.0),
          linkFwd_(S_, 0.0),
          linkBwd_(S_, 0.0)
    {}

    void run()
    {
        int remaining = S_ * 2 * M_;
        while (remaining > 0) {
            bool moved = false;
            // The forward sweep lets forwards ripple down in one pass, the backward sweep gradients up.
            for (int s = 0; s < S_; ++s)
                moved |= advance(s);
            for (int s = S_ - 1; s >= 0; --s)
                moved |= advance(s);
            remaining = 0;
            for (int s = 0; s < S_; ++s)
                remaining += 2 * M_ - next_[s];
            if (!moved && remaining > 0)
                throw std::logic_error("pipeline schedule made no progress");
        }
        for (int s = 0; s < S_; ++s)
            groups_[s]->ready = clock_[s];
    }

private:
    int warmup(int s) const { return gpipe_ ? M_ : std::min(S_ - s - 1, M_); }

    // Which op stage s runs i-th.
    void opAt(int s, int i, bool& forward, int& m) const
    {
        const int w = warmup(s);
        if (gpipe_) {
            forward = i < M_;
            m = forward ? i : i - M_;
        } else if (i < w) {
            forward = true;
            m = i;
        } else if (i < 2 * M_ - w) {
            const int j = i - w;
            forward = (j % 2) == 0;
            m = forward ? w + j / 2 : j / 2;
        } else {
            forward = false;
            m = i - M_;
        }
    }

    // When the input of stage s's op (forward or backward of micro-batch m) arrives; < 0 = not yet known.
    double inputReady(int s, bool forward, int m) const
    {
        if (forward && s > 0)
            return actArrive_[size_t(s - 1) * M_ + m];
        if (!forward && s < S_ - 1)
            return gradArrive_[size_t(s + 1) * M_ + m];
        return 0;
    }

    // The op's output crosses the boundary: activations go down, gradients go up; one link per direction.
    void send(int s, bool forward, int m, double end)
    {
        const Group& g = *groups_[s];
        if (forward && s < S_ - 1) {
            const Boundary& bd = bounds_[s];
            const double start = std::max(end, linkFwd_[s]);
            linkFwd_[s] = start + bd.seconds;
            actArrive_[size_t(s) * M_ + m] = linkFwd_[s];
            if (bd.seconds > 0)
                for (int gpu : bd.senders)
                    rec_.add(gpu, EventKind::SendActivation, g.pipeline, g.replica, s, m, start, linkFwd_[s]);
        } else if (!forward && s > 0) {
            const Boundary& bd = bounds_[s - 1];
            const double start = std::max(end, linkBwd_[s - 1]);
            linkBwd_[s - 1] = start + bd.seconds;
            gradArrive_[size_t(s) * M_ + m] = linkBwd_[s - 1];
            if (bd.seconds > 0)
                for (int gpu : bd.receivers)
                    rec_.add(gpu, EventKind::SendGradient, g.pipeline, g.replica, s, m, start, linkBwd_[s - 1]);
        }
    }

    // Runs stage s's ops until one waits for an input not yet known; true if any ran.
    bool advance(int s)
    {
        bool moved = false;
        const Group& g = *groups_[s];
        while (next_[s] < 2 * M_) {
            bool forward;
            int m;
            opAt(s, next_[s], forward, m);
            const double ready = inputReady(s, forward, m);
            if (ready < 0)
                break;
            const double start = std::max(clock_[s], ready);
            const double end = start + (forward ? g.f : g.b);
            clock_[s] = end;
            const EventKind kind = forward ? EventKind::Forward : EventKind::Backward;
            for (int gpu : g.gpus)
                rec_.add(gpu, kind, g.pipeline, g.replica, g.stage, m, start, end);
            send(s, forward, m, end);
            ++next_[s];
            moved = true;
        }
        return moved;
    }

    std::vector<Group*>& groups_;
    const std::vector<Boundary>& bounds_;
    const int S_, M_;
    const bool gpipe_;
    Recorder& rec_;
    std::vector<double> actArrive_, gradArrive_;
    std::vector<int> next_;
    std::vector<double> clock_, linkFwd_, linkBwd_;
};

struct Holder { // one data-parallel copy of a layer segment
    int group = 0;
    std::vector<int> gpus; // its tensor-parallel GPUs
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
        order.push_back({r, -int(i)}); // ties: later layers first (backward finishes them first)
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

// Stage s of replica r of pipeline p, with its compute times; records its memory peak.
Group makeGroup(const Plan& plan, const CostModel& costs, int p, int r, int s, Recorder& rec)
{
    const Job& job = plan.job;
    const Pipeline& pl = plan.pipelines[p];
    const Stage& st = pl.stages[s];
    const int S = int(pl.stages.size());
    Group g;
    g.pipeline = p;
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
    const int inFlight = job.schedule == Schedule::GPipe ? pl.microBatches : std::min(S - s, pl.microBatches);
    const int shards = job.zeroStage > 0 ? pl.replicas * st.dataParallel : 1;
    const double peak = costs.stagePeak(g.first, g.end, g.device, g.tp, shards, mb, inFlight);
    for (int gpu : g.gpus)
        rec.result.peakMemoryBytes[gpu] = peak;
    return g;
}

// Every group of every pipeline; group (p, r, s) is groups[pipeOffset[p] + r·S + s].
struct Groups {
    std::vector<Group> all;
    std::vector<size_t> pipeOffset;
    Group& at(const Plan& plan, size_t p, int r, int s)
    {
        return all[pipeOffset[p] + size_t(r) * plan.pipelines[p].stages.size() + s];
    }
};

Groups makeGroups(const Plan& plan, const CostModel& costs, Recorder& rec)
{
    Groups gs;
    for (size_t p = 0; p < plan.pipelines.size(); ++p) {
        const Pipeline& pl = plan.pipelines[p];
        gs.pipeOffset.push_back(gs.all.size());
        for (int r = 0; r < pl.replicas; ++r)
            for (int s = 0; s < int(pl.stages.size()); ++s)
                gs.all.push_back(makeGroup(plan, costs, int(p), r, s, rec));
    }
    return gs;
}

void runSchedules(const Plan& plan, Groups& gs, Recorder& rec)
{
    const bool gpipe = plan.job.schedule == Schedule::GPipe;
    for (size_t p = 0; p < plan.pipelines.size(); ++p) {
        const Pipeline& pl = plan.pipelines[p];
        const int S = int(pl.stages.size());
        for (int r = 0; r < pl.replicas; ++r) {
            std::vector<Group*> stages(S);
            for (int s = 0; s < S; ++s)
                stages[s] = &gs.at(plan, p, r, s);
            std::vector<Boundary> bounds;
            for (int s = 0; s + 1 < S; ++s)
                bounds.push_back(makeBoundary(plan, *stages[s], *stages[s + 1], pl.microBatchSize));
            ReplicaSchedule(stages, bounds, pl.microBatches, gpipe, rec).run();
        }
    }
}

// The segment [first, end) and its data-parallel copies: one holder per (pipeline, replica, stage dp rank).
Segment makeSegment(const Plan& plan, Groups& gs, int first, int end)
{
    Segment seg;
    seg.first = first;
    seg.end = end;
    int minTp = 1 << 30;
    std::vector<int> reps;
    for (size_t p = 0; p < plan.pipelines.size(); ++p) {
        const Pipeline& pl = plan.pipelines[p];
        int s = 0;
        while (pl.stages[s].endLayer <= first)
            ++s;
        for (int r = 0; r < pl.replicas; ++r) {
            const Group& g = gs.at(plan, p, r, s);
            minTp = std::min(minTp, g.tp);
            for (int d = 0; d < g.dp; ++d) {
                Holder h;
                h.group = int(&g - gs.all.data());
                h.gpus.assign(g.gpus.begin() + d * g.tp, g.gpus.begin() + (d + 1) * g.tp);
                reps.push_back(h.gpus.front());
                seg.holders.push_back(std::move(h));
            }
        }
    }
    seg.bytes = paramsPerRank(plan.model, first, end, minTp) * plan.job.bytesPerValue();
    seg.link = groupLink(plan.cluster, reps);
    return seg;
}

// The model cut at every stage boundary of every pipeline.
std::vector<Segment> makeSegments(const Plan& plan, Groups& gs)
{
    std::set<int> cuts{0, plan.model.layerCount()};
    for (const Pipeline& pl : plan.pipelines)
        for (const Stage& st : pl.stages)
            cuts.insert(st.firstLayer);
    const std::vector<int> cutList(cuts.begin(), cuts.end());
    std::vector<Segment> segs;
    for (size_t i = 0; i + 1 < cutList.size(); ++i)
        segs.push_back(makeSegment(plan, gs, cutList[i], cutList[i + 1]));
    return segs;
}

// Optimizer step per group (on its ZeRO shard when sharded), after its gradients are synchronised.
void stepOptimizers(const Plan& plan, const CostModel& costs, Groups& gs, bool sharded, Recorder& rec)
{
    for (Group& g : gs.all) {
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
}

} // namespace

void simulatePipelines(const Plan& plan, const CostModel& costs, Recorder& rec)
{
    Groups gs = makeGroups(plan, costs, rec);
    runSchedules(plan, gs, rec);
    std::vector<Segment> segs = makeSegments(plan, gs);

    // Gradient synchronisation per segment, then the optimizer, then (ZeRO) the updated shards' all-gather.
    std::vector<double> commFree(plan.cluster.gpuCount(), 0.0);
    for (Group& g : gs.all)
        g.syncDone = g.ready;
    auto readyAfterBackward = [](const Group& g) { return g.ready; };
    auto markSync = [](Group& g, double t) { g.syncDone = std::max(g.syncDone, t); };
    const bool sharded = plan.job.zeroStage > 0;
    runSegmentCollectives(plan, segs, gs.all, commFree, sharded ? EventKind::ReduceScatter : EventKind::AllReduce,
                          readyAfterBackward, markSync, rec);
    stepOptimizers(plan, costs, gs, sharded, rec);
    if (sharded) {
        auto readyAfterStep = [](const Group& g) { return g.optEnd; };
        auto ignore = [](Group&, double) {};
        runSegmentCollectives(plan, segs, gs.all, commFree, EventKind::AllGather, readyAfterStep, ignore, rec);
    }
}

} // namespace hetplan::simdetail
