// Pipeline plans: every replica of every pipeline runs its own 1F1B or GPipe schedule; activations and
// gradients cross stage boundaries as point-to-point sends; then gradients are synchronised per layer
// segment across every GPU holding those layers, tied embeddings are synchronised between the first and
// last stage, and each stage steps its optimizer.
//
// Modelling choices (kept simple on purpose, documented here once):
// - A stage of one replica is dataParallel × tensorParallel GPUs computing together; each micro-batch is
//   split over the data-parallel ranks, so compute uses micro-batch mbs / dataParallel at degree tp. A group
//   mixing device types runs at the pace of its slowest type.
// - Per-stage op order is fixed, so start times are found by walking the ops in dependency order (sweeping
//   stages forwards then backwards until all ops are placed) instead of a general event queue.
// - Sends block (default): as in Megatron's and DeepSpeed's non-interleaved 1F1B, which wait on their
//   send/recv pairs, a stage's send occupies the stage until the transfer completes, so slow links
//   serialise with compute. SimOptions::overlappedSends lets the stage compute on instead. The receiver's
//   side of the rendezvous is not modelled (a send starts when the sender is done and the link is free).
// - A boundary send pairs data-parallel rank j of the sender with rank j of the receiver (modulo each side's
//   dp), each pair carrying its share of the micro-batch; tensor-parallel rank t sends to rank t (modulo the
//   receiver's tp). What each tp rank sends follows Job::framework (core/cost/pipeline_p2p.h): the whole
//   tensor (Megatron-core), 1/tp of it (sequence parallelism), or 1/tp followed by an all-gather inside the
//   receiving tp group (legacy Megatron's scatter/gather, DeepSpeed's partitioned pipe). The flows of one
//   boundary in all replicas of a pipeline run at once (the replicas are identical and in lockstep) and
//   share the NICs they leave and enter (sharedBandwidths); a replica's transfer takes its slowest flow's
//   time. Sends in one direction over one boundary are serialised; the two directions are independent (full
//   duplex). Flows of different boundaries or different pipelines are not contended. The receiver's
//   all-gather starts when the transfer ends and delays the input's arrival; the link is free again at the
//   transfer's end and a blocking sender waits for the transfer only (the gather runs on the receiver).
// - Gradient sync: the model is cut at every stage boundary of every pipeline; each resulting layer segment
//   is all-reduced among its data-parallel copies, one ring per tensor-parallel rank, all rings at once
//   sharing NICs (concurrentRingsLink); bytes = the segment's parameters per tp rank × Job::gradReduceBytes
//   (bf16 gradients are reduced in fp32). With ZeRO-1 the all-reduce becomes reduce-scatter (gradient
//   bytes) → optimizer on its 1/(replicas·dp) shard → all-gather of the updated parameters (parameter
//   bytes). ZeRO ≥ 2 with more than one stage is refused (simulator.cpp), as DeepSpeed's pipeline engine
//   does; a one-stage pipeline is plain data parallelism: ZeRO-2 moves what ZeRO-1 does, ZeRO-3 also
//   all-gathers the stage's parameters before each forward and each backward of every micro-batch.
// - Tied embeddings: a stage holding the head but not the embedding keeps a copy of the word embedding
//   (ModelSpec::tiedCopyParams); after the data-parallel sync, each (replica, dp, tp) rank of the last stage
//   all-reduces that copy's gradient with its counterpart in the first stage, before either steps.
// - Timeline: compute events go on every GPU of the group; a send is recorded on the sending side's
//   representative GPUs with the sending stage's index (SendGradient of stage s travels to s−1).
#include "sim_detail.h"

#include "core/cost/collectives.h"
#include "core/cost/memory.h"
#include "core/cost/pipeline_p2p.h"

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
    double gather = 0;   // ZeRO-3: parameter all-gather before each forward and backward
    double ready = 0;    // end of its last backward
    double syncDone = 0; // end of its gradient reduction
    double optEnd = 0;   // end of its optimizer step
};

struct Boundary {             // stage s → s+1 of one replica
    double fwdSeconds = 0;    // one activation transfer s → s+1 (link time)
    double bwdSeconds = 0;    // one gradient transfer s+1 → s
    double fwdGather = 0;     // stage s+1's all-gather of the activation after the transfer (0: none)
    double bwdGather = 0;     // stage s's all-gather of the gradient
    std::vector<int> senders; // representative GPUs of stage s
    std::vector<int> receivers;
};

// The flows of one boundary send from group a to group b: data-parallel rank j of the sender pairs with
// rank j of the receiver (modulo each side's dp); tensor-parallel rank t with rank t (modulo b's tp).
std::vector<Flow> boundaryFlows(const Group& a, const Group& b)
{
    std::vector<Flow> flows;
    const int pairs = std::max(a.dp, b.dp);
    for (int j = 0; j < pairs; ++j)
        for (int t = 0; t < a.tp; ++t)
            flows.push_back({a.gpus[(j % a.dp) * a.tp + t], b.gpus[(j % b.dp) * b.tp + t % b.tp]});
    return flows;
}

// The receiving group's all-gather of a boundary tensor: the slowest of its data-parallel ranks' tp groups.
double gatherSeconds(const Cluster& cluster, const Group& g, const BoundaryTraffic& t)
{
    double worst = 0;
    for (int d = 0; d < g.dp && t.gatherRanks > 1; ++d) {
        const std::vector<int> tpGroup(g.gpus.begin() + d * g.tp, g.gpus.begin() + (d + 1) * g.tp);
        worst = std::max(worst, boundaryGatherSeconds(t, groupLink(cluster, tpGroup)));
    }
    return worst;
}

// Boundary s of every replica of one pipeline: all replicas' flows run at once and share NICs (both
// directions use the same pairs, reversed; NICs are full duplex, so the shares are the same).
std::vector<Boundary> makeBoundaries(const Plan& plan, const std::vector<std::vector<Group*>>& replicas, int s,
                                     double microBatchSize)
{
    std::vector<Flow> flows, back;
    std::vector<size_t> firstFlow; // replica r's flows are [firstFlow[r], firstFlow[r + 1])
    for (const std::vector<Group*>& stages : replicas) {
        firstFlow.push_back(flows.size());
        const std::vector<Flow> f = boundaryFlows(*stages[s], *stages[s + 1]);
        flows.insert(flows.end(), f.begin(), f.end());
    }
    firstFlow.push_back(flows.size());
    for (const Flow& f : flows)
        back.push_back({f.dst, f.src});
    const std::vector<double> bw = sharedBandwidths(plan.cluster, flows);
    const std::vector<double> bwBack = sharedBandwidths(plan.cluster, back);
    const bool moe = std::any_of(plan.model.layers.begin(), plan.model.layers.end(),
                                 [](const LayerSpec& l) { return l.kind == LayerKind::MoE; });
    std::vector<Boundary> out;
    for (size_t r = 0; r < replicas.size(); ++r) {
        const Group& a = *replicas[r][s];
        const Group& b = *replicas[r][s + 1];
        const double bytes = plan.model.layers[a.end - 1].outputBytes * plan.job.activationScale() * microBatchSize /
                             std::max(a.dp, b.dp);
        // Activations leave a's tp ranks for b's; gradients leave b's for a's (the same tensor shape).
        const BoundaryTraffic fwd = boundaryTraffic(plan.job, bytes, a.tp, b.tp, moe);
        const BoundaryTraffic bwd = boundaryTraffic(plan.job, bytes, b.tp, a.tp, moe);
        Boundary bd;
        for (size_t i = firstFlow[r]; i < firstFlow[r + 1]; ++i) {
            bd.fwdSeconds = std::max(bd.fwdSeconds, pointToPoint(fwd.bytesPerRank,
                                                                 {bw[i], plan.cluster.latency(flows[i].src, flows[i].dst)}));
            bd.bwdSeconds = std::max(bd.bwdSeconds, pointToPoint(bwd.bytesPerRank,
                                                                 {bwBack[i], plan.cluster.latency(back[i].src, back[i].dst)}));
        }
        bd.fwdGather = gatherSeconds(plan.cluster, b, fwd);
        bd.bwdGather = gatherSeconds(plan.cluster, a, bwd);
        // Representatives: the first GPU of each tensor-parallel group on either side.
        for (int d = 0; d < a.dp; ++d)
            bd.senders.push_back(a.gpus[d * a.tp]);
        for (int d = 0; d < b.dp; ++d)
            bd.receivers.push_back(b.gpus[d * b.tp]);
        out.push_back(std::move(bd));
    }
    return out;
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
          blocking_(!rec.options.overlappedSends),
          rec_(rec),
          actArrive_(size_t(S_) * M, -1.0),
          gradArrive_(size_t(S_) * M, -1.0),
          actEvent_(size_t(S_) * M, -1),
          gradEvent_(size_t(S_) * M, -1),
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

    // The event that delivered that input (TimelineEvent::waitedOn); -1 for none or no timeline.
    int inputEvent(int s, bool forward, int m) const
    {
        if (forward && s > 0)
            return actEvent_[size_t(s - 1) * M_ + m];
        if (!forward && s < S_ - 1)
            return gradEvent_[size_t(s + 1) * M_ + m];
        return -1;
    }

    // The op's output crosses the boundary: activations go down, gradients go up; one link per direction.
    // `op` is the op's event index; the receiver waits on the send or, when the send costs nothing, on the op.
    void send(int s, bool forward, int m, double end, int op)
    {
        const Group& g = *groups_[s];
        if (forward && s < S_ - 1) {
            const Boundary& bd = bounds_[s];
            const size_t i = size_t(s) * M_ + m;
            const double start = std::max(end, linkFwd_[s]);
            linkFwd_[s] = start + bd.fwdSeconds;
            actArrive_[i] = linkFwd_[s] + bd.fwdGather;
            actEvent_[i] = op;
            if (blocking_)
                clock_[s] = std::max(clock_[s], linkFwd_[s]);
            if (bd.fwdSeconds > 0)
                actEvent_[i] = recordSend(bd.senders, EventKind::SendActivation, g, s, m, start, linkFwd_[s]);
            if (bd.fwdGather > 0)
                actEvent_[i] = recordGather(*groups_[s + 1], m, linkFwd_[s], actArrive_[i], actEvent_[i]);
        } else if (!forward && s > 0) {
            const Boundary& bd = bounds_[s - 1];
            const size_t i = size_t(s) * M_ + m;
            const double start = std::max(end, linkBwd_[s - 1]);
            linkBwd_[s - 1] = start + bd.bwdSeconds;
            gradArrive_[i] = linkBwd_[s - 1] + bd.bwdGather;
            gradEvent_[i] = op;
            if (blocking_)
                clock_[s] = std::max(clock_[s], linkBwd_[s - 1]);
            if (bd.bwdSeconds > 0)
                gradEvent_[i] = recordSend(bd.receivers, EventKind::SendGradient, g, s, m, start, linkBwd_[s - 1]);
            if (bd.bwdGather > 0)
                gradEvent_[i] = recordGather(*groups_[s - 1], m, linkBwd_[s - 1], gradArrive_[i], gradEvent_[i]);
        }
    }

    // The receiving group's all-gather of a partitioned boundary tensor, on all its GPUs; returns the first
    // event's index.
    int recordGather(const Group& g, int m, double start, double end, int waitedOn)
    {
        int first = -1;
        for (int gpu : g.gpus) {
            const int i = rec_.add(gpu, EventKind::AllGather, g.pipeline, g.replica, g.stage, m, start, end, waitedOn);
            if (first < 0)
                first = i;
        }
        return first;
    }

    // One send event per representative GPU; returns the first one's index.
    int recordSend(const std::vector<int>& gpus, EventKind kind, const Group& g, int s, int m, double start,
                   double end)
    {
        int first = -1;
        for (int gpu : gpus) {
            const int i = rec_.add(gpu, kind, g.pipeline, g.replica, s, m, start, end);
            if (first < 0)
                first = i;
        }
        return first;
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
            double start = std::max(clock_[s], ready);
            int waitedOn = inputEvent(s, forward, m);
            if (g.gather > 0) { // ZeRO-3: the op waits for its stage's parameters
                for (int gpu : g.gpus)
                    rec_.add(gpu, EventKind::AllGather, g.pipeline, g.replica, g.stage, m, start, start + g.gather,
                             waitedOn);
                start += g.gather;
                waitedOn = -1; // the gather went first, on the same GPUs
            }
            const double end = start + (forward ? g.f : g.b);
            clock_[s] = end;
            const EventKind kind = forward ? EventKind::Forward : EventKind::Backward;
            int op = -1;
            for (int gpu : g.gpus) {
                const int i = rec_.add(gpu, kind, g.pipeline, g.replica, g.stage, m, start, end, waitedOn);
                if (op < 0)
                    op = i;
            }
            send(s, forward, m, end, op);
            ++next_[s];
            moved = true;
        }
        return moved;
    }

    std::vector<Group*>& groups_;
    const std::vector<Boundary>& bounds_;
    const int S_, M_;
    const bool gpipe_, blocking_;
    Recorder& rec_;
    std::vector<double> actArrive_, gradArrive_;
    std::vector<int> actEvent_, gradEvent_; // the events behind actArrive_ / gradArrive_
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
    double params = 0; // per tensor-parallel rank (the largest shard when holders' tp differ)
    LinkParams link;   // bottleneck of its rings, one per tensor-parallel rank, running at once
};

double collectiveSeconds(EventKind kind, double bytes, int n, LinkParams link)
{
    switch (kind) {
    case EventKind::AllReduce: return ringAllReduce(bytes, n, link);
    case EventKind::ReduceScatter: return ringReduceScatter(bytes, n, link);
    case EventKind::AllGather: return ringAllGather(bytes, n, link);
    default: return 0;
    }
}

// Runs one collective per segment (segments ordered by when their holders are ready) on the GPUs'
// communication tracks, moving `bytesPerValue` per parameter. `readyOf(group)` says when a group may start;
// `doneOf(group)` collects the end.
template <class Ready, class Done>
void runSegmentCollectives(std::vector<Segment>& segs, std::vector<Group>& groups, std::vector<double>& commFree,
                           EventKind kind, double bytesPerValue, Ready readyOf, Done doneOf, Recorder& rec)
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
        const double dur = collectiveSeconds(kind, seg.params * bytesPerValue, n, seg.link);
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

// Parameters of a stage's layers per tensor-parallel rank, with its tied word-embedding copy.
double stageParamsPerRank(const ModelSpec& model, int first, int end, int tp)
{
    return paramsPerRank(model, first, end, tp) + model.tiedCopyParams(first, end) / std::max(1, tp);
}

// The rings of one collective among `holders` (each a tensor-parallel group of `tp` or more GPUs): ring k
// joins the k-th tensor-parallel rank of every holder.
std::vector<std::vector<int>> tensorRankRings(const std::vector<std::vector<int>>& holders, int tp)
{
    std::vector<std::vector<int>> rings(std::max(1, tp));
    for (const std::vector<int>& h : holders)
        for (int k = 0; k < int(rings.size()); ++k)
            rings[k].push_back(h[size_t(k) * h.size() / rings.size()]);
    return rings;
}

// ZeRO-3 in a one-stage pipeline: before each forward and backward, the stage's parameters are all-gathered
// over the replicas' data-parallel ranks (one ring per tensor-parallel rank, all at once).
double zero3GatherSeconds(const Plan& plan, const Group& g, const std::vector<std::vector<int>>& holders)
{
    const LinkParams link = concurrentRingsLink(plan.cluster, tensorRankRings(holders, g.tp));
    return ringAllGather(stageParamsPerRank(plan.model, g.first, g.end, g.tp) * plan.job.bytesPerValue(),
                         int(holders.size()), link);
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
    if (job.zeroStage >= 3 && S == 1) {
        std::vector<std::vector<int>> holders;
        for (size_t i = 0; i + st.tensorParallel <= st.gpus.size(); i += st.tensorParallel)
            holders.emplace_back(st.gpus.begin() + i, st.gpus.begin() + i + st.tensorParallel);
        g.gather = zero3GatherSeconds(plan, g, holders);
    }
    const int inFlight = job.schedule == Schedule::GPipe ? pl.microBatches : std::min(S - s, pl.microBatches);
    const int shards = job.zeroStage > 0 ? pl.replicas * st.dataParallel : 1;
    const GpuMemory mem = costs.stageMemory(g.first, g.end, g.device, g.tp, shards, mb, inFlight);
    // Its communicators: its tp group, the data-parallel group of every copy of its first layer (in every
    // pipeline), its pipeline neighbours and, when tied, the embedding group.
    int copies = 0;
    for (const Pipeline& q : plan.pipelines)
        for (const Stage& qs : q.stages)
            if (qs.firstLayer <= g.first && g.first < qs.endLayer)
                copies += q.replicas * qs.dataParallel;
    const RankGroups groups = RankGroups::pipelineStage(g.tp, copies, S, s, plan.model.arch.tiedEmbeddings);
    for (int gpu : g.gpus) {
        rec.result.peakMemoryBytes[gpu] = mem.stagePart();
        rec.result.memory[gpu] = mem;
        rec.result.rankGroups[gpu] = groups;
    }
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
        std::vector<std::vector<Group*>> replicas(pl.replicas, std::vector<Group*>(S));
        for (int r = 0; r < pl.replicas; ++r)
            for (int s = 0; s < S; ++s)
                replicas[r][s] = &gs.at(plan, p, r, s);
        std::vector<std::vector<Boundary>> bounds(pl.replicas); // [replica][boundary]
        for (int s = 0; s + 1 < S; ++s) {
            std::vector<Boundary> all = makeBoundaries(plan, replicas, s, pl.microBatchSize);
            for (int r = 0; r < pl.replicas; ++r)
                bounds[r].push_back(std::move(all[r]));
        }
        for (int r = 0; r < pl.replicas; ++r)
            ReplicaSchedule(replicas[r], bounds[r], pl.microBatches, gpipe, rec).run();
    }
}

// The segment [first, end) and its data-parallel copies: one holder per (pipeline, replica, stage dp rank).
Segment makeSegment(const Plan& plan, Groups& gs, int first, int end)
{
    Segment seg;
    seg.first = first;
    seg.end = end;
    int minTp = 1 << 30;
    bool tiedCopy = false; // some holder keeps the tied word-embedding copy with this segment
    std::vector<std::vector<int>> holders;
    for (size_t p = 0; p < plan.pipelines.size(); ++p) {
        const Pipeline& pl = plan.pipelines[p];
        int s = 0;
        while (pl.stages[s].endLayer <= first)
            ++s;
        for (int r = 0; r < pl.replicas; ++r) {
            const Group& g = gs.at(plan, p, r, s);
            minTp = std::min(minTp, g.tp);
            tiedCopy |= plan.model.tiedCopyParams(g.first, g.end) > 0 &&
                        plan.model.tiedCopyParams(first, end) > 0; // the head is in this segment
            for (int d = 0; d < g.dp; ++d) {
                Holder h;
                h.group = int(&g - gs.all.data());
                h.gpus.assign(g.gpus.begin() + d * g.tp, g.gpus.begin() + (d + 1) * g.tp);
                holders.push_back(h.gpus);
                seg.holders.push_back(std::move(h));
            }
        }
    }
    seg.params =
        paramsPerRank(plan.model, first, end, minTp) + (tiedCopy ? plan.model.arch.wordEmbeddingParams() / minTp : 0.0);
    seg.link = concurrentRingsLink(plan.cluster, tensorRankRings(holders, minTp));
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

// Tied embeddings: in each pipeline whose last stage keeps a word-embedding copy, every (replica, dp, tp)
// rank of the last stage all-reduces that copy's gradient with its counterpart in the first stage. All
// pairs of the pipeline run at once (sharing NICs); each replica's pair starts when both stages are synced.
void syncTiedEmbeddings(const Plan& plan, Groups& gs, std::vector<double>& commFree, Recorder& rec)
{
    for (size_t p = 0; p < plan.pipelines.size(); ++p) {
        const Pipeline& pl = plan.pipelines[p];
        const int S = int(pl.stages.size());
        const double copy = plan.model.tiedCopyParams(pl.stages[S - 1].firstLayer, pl.stages[S - 1].endLayer);
        if (S < 2 || copy <= 0)
            continue;
        std::vector<std::vector<int>> pairs;
        for (int r = 0; r < pl.replicas; ++r) {
            const Group &a = gs.at(plan, p, r, 0), &b = gs.at(plan, p, r, S - 1);
            for (const Flow& f : boundaryFlows(a, b))
                pairs.push_back({f.src, f.dst});
        }
        const LinkParams link = concurrentRingsLink(plan.cluster, pairs);
        const int tp = pl.stages[S - 1].tensorParallel;
        const double dur = ringAllReduce(copy / tp * plan.job.gradReduceBytes(), 2, link);
        for (int r = 0; r < pl.replicas; ++r) {
            Group &a = gs.at(plan, p, r, 0), &b = gs.at(plan, p, r, S - 1);
            std::vector<int> gpus = a.gpus;
            gpus.insert(gpus.end(), b.gpus.begin(), b.gpus.end());
            double start = std::max(a.syncDone, b.syncDone);
            for (int gpu : gpus)
                start = std::max(start, commFree[gpu]);
            for (int gpu : gpus) {
                commFree[gpu] = start + dur;
                const Group& g = std::count(a.gpus.begin(), a.gpus.end(), gpu) ? a : b;
                rec.add(gpu, EventKind::AllReduce, g.pipeline, g.replica, g.stage, -1, start, start + dur);
            }
            a.syncDone = b.syncDone = start + dur;
        }
    }
}

// Optimizer step per group (on its ZeRO shard when sharded), after its gradients are synchronised.
void stepOptimizers(const Plan& plan, const CostModel& costs, Groups& gs, bool sharded, Recorder& rec)
{
    for (Group& g : gs.all) {
        const Pipeline& pl = plan.pipelines[g.pipeline];
        const double shards = sharded ? double(pl.replicas) * g.dp : 1.0;
        const double dur =
            optimizerSeconds(costs, g.device, g.update, stageParamsPerRank(plan.model, g.first, g.end, g.tp), shards);
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

    // Gradient synchronisation per segment, the tied embeddings, then the optimizer, then (ZeRO) the updated
    // shards' all-gather.
    std::vector<double> commFree(plan.cluster.gpuCount(), 0.0);
    for (Group& g : gs.all)
        g.syncDone = g.ready;
    auto readyAfterBackward = [](const Group& g) { return g.ready; };
    auto markSync = [](Group& g, double t) { g.syncDone = std::max(g.syncDone, t); };
    const bool sharded = plan.job.zeroStage > 0;
    runSegmentCollectives(segs, gs.all, commFree, sharded ? EventKind::ReduceScatter : EventKind::AllReduce,
                          plan.job.gradReduceBytes(), readyAfterBackward, markSync, rec);
    syncTiedEmbeddings(plan, gs, commFree, rec);
    stepOptimizers(plan, costs, gs, sharded, rec);
    if (sharded && plan.job.zeroStage < 3) { // ZeRO-3 keeps parameters sharded until the next forward
        auto readyAfterStep = [](const Group& g) { return g.optEnd; };
        auto ignore = [](Group&, double) {};
        runSegmentCollectives(segs, gs.all, commFree, EventKind::AllGather, plan.job.bytesPerValue(), readyAfterStep,
                              ignore, rec);
    }
}

} // namespace hetplan::simdetail
