#include "pipeline_schedule.h"

#include <algorithm>
#include <stdexcept>

namespace hetplan::simdetail {

namespace {

// The k-th forward (or backward) of an interleaved stage: micro-batches go in groups of S through the
// chunks, backwards through the chunks in reverse.
ScheduleOp interleavedOp(int k, int S, int v, bool forward)
{
    const int inGroup = k % (S * v);
    const int chunk = inGroup / S;
    return {forward, forward ? chunk : v - 1 - chunk, (k / (S * v)) * S + inGroup % S};
}

} // namespace

std::vector<ScheduleOp> stageOps(int S, int s, int M, int v, bool gpipe)
{
    std::vector<ScheduleOp> ops;
    if (gpipe) {
        for (int m = 0; m < M; ++m)
            ops.push_back({true, 0, m});
        for (int m = 0; m < M; ++m)
            ops.push_back({false, 0, m});
        return ops;
    }
    const int total = M * v;
    // Current Megatron-core (get_pp_rank_microbatches): the formula, capped at every op being a warm-up one.
    const int warmup = std::min(v == 1 ? S - s - 1 : (S - s - 1) * 2 + (v - 1) * S, total);
    auto forwardOp = [&](int k) { return v == 1 ? ScheduleOp{true, 0, k} : interleavedOp(k, S, v, true); };
    auto backwardOp = [&](int k) { return v == 1 ? ScheduleOp{false, 0, k} : interleavedOp(k, S, v, false); };
    for (int k = 0; k < warmup; ++k)
        ops.push_back(forwardOp(k));
    for (int j = 0; j < total - warmup; ++j) {
        ops.push_back(forwardOp(warmup + j));
        ops.push_back(backwardOp(j));
    }
    for (int j = total - warmup; j < total; ++j)
        ops.push_back(backwardOp(j));
    return ops;
}

double peakInFlight(const std::vector<ScheduleOp>& ops, const std::vector<double>& perMicroBatch)
{
    double now = 0, peak = 0;
    for (const ScheduleOp& op : ops) {
        now += (op.forward ? 1 : -1) * perMicroBatch[size_t(op.chunk)];
        peak = std::max(peak, now);
    }
    return peak;
}

ReplicaSchedule::ReplicaSchedule(std::vector<Group*>& groups, const std::vector<Boundary>& bounds, int M, int v,
                                 bool gpipe, Recorder& rec)
    : groups_(groups),
      bounds_(bounds),
      S_(int(groups.size())),
      M_(M),
      V_(v),
      Q_(int(groups.size()) * v),
      blocking_(!rec.options.overlappedSends && v == 1),
      rec_(rec),
      actArrive_(size_t(Q_) * M, -1.0),
      gradArrive_(size_t(Q_) * M, -1.0),
      actEvent_(size_t(Q_) * M, -1),
      gradEvent_(size_t(Q_) * M, -1),
      next_(S_, 0),
      clock_(S_, 0.0),
      linkFree_(size_t(S_) * S_, 0.0)
{
    for (int s = 0; s < S_; ++s)
        ops_.push_back(stageOps(S_, s, M_, V_, gpipe));
}

void ReplicaSchedule::run()
{
    const int perStage = 2 * M_ * V_;
    int remaining = S_ * perStage;
    while (remaining > 0) {
        bool moved = false;
        // The forward sweep lets forwards ripple down in one pass, the backward sweep gradients up.
        for (int s = 0; s < S_; ++s)
            moved |= advance(s);
        for (int s = S_ - 1; s >= 0; --s)
            moved |= advance(s);
        remaining = 0;
        for (int s = 0; s < S_; ++s)
            remaining += perStage - next_[s];
        if (!moved && remaining > 0)
            throw std::logic_error("pipeline schedule made no progress");
    }
    for (int s = 0; s < S_; ++s)
        groups_[s]->ready = clock_[s];
}

// When the input of virtual stage q's op (forward or backward of micro-batch m) arrives; < 0 = not yet known.
double ReplicaSchedule::inputReady(int q, bool forward, int m) const
{
    if (forward && q > 0)
        return actArrive_[size_t(q - 1) * M_ + m];
    if (!forward && q < Q_ - 1)
        return gradArrive_[size_t(q + 1) * M_ + m];
    return 0;
}

// The event that delivered that input (TimelineEvent::waitedOn); -1 for none or no timeline.
int ReplicaSchedule::inputEvent(int q, bool forward, int m) const
{
    if (forward && q > 0)
        return actEvent_[size_t(q - 1) * M_ + m];
    if (!forward && q < Q_ - 1)
        return gradEvent_[size_t(q + 1) * M_ + m];
    return -1;
}

// The op's output crosses the boundary: activations go to q + 1, gradients to q − 1; one link per direction
// between two neighbouring stages. `op` is the op's event index; the receiver waits on the send or, when the
// send costs nothing, on the op.
void ReplicaSchedule::send(int s, int q, bool forward, int m, double end, int op)
{
    if (forward && q < Q_ - 1) {
        const Boundary& bd = bounds_[q];
        const size_t i = size_t(q) * M_ + m;
        transfer({bd.fwdSeconds, bd.fwdGather, bd.senders, EventKind::SendActivation, link(s, (s + 1) % S_), actArrive_[i],
                  actEvent_[i], *groups_[(s + 1) % S_], (q + 1) / S_},
                 s, q / S_, m, end, op);
    } else if (!forward && q > 0) {
        const Boundary& bd = bounds_[q - 1];
        const int below = (s + S_ - 1) % S_; // the stage of q − 1
        const size_t i = size_t(q) * M_ + m;
        transfer({bd.bwdSeconds, bd.bwdGather, bd.receivers, EventKind::SendGradient, link(s, below), gradArrive_[i],
                  gradEvent_[i], *groups_[below], (q - 1) / S_},
                 s, q / S_, m, end, op);
    }
}

void ReplicaSchedule::transfer(const Transfer& t, int s, int chunk, int m, double end, int op)
{
    const double start = std::max(end, t.link);
    t.link = start + t.seconds;
    t.arrive = t.link + t.gather;
    t.event = op;
    if (blocking_)
        clock_[s] = std::max(clock_[s], t.link);
    if (t.seconds > 0)
        t.event = recordSend(t.representatives, t.kind, *groups_[s], chunk, m, start, t.link);
    if (t.gather > 0)
        t.event = recordGather(t.receiver, t.receiverChunk, m, t.link, t.arrive, t.event);
}

// The receiving group's all-gather of a partitioned boundary tensor, on all its GPUs; returns the first
// event's index.
int ReplicaSchedule::recordGather(const Group& g, int chunk, int m, double start, double end, int waitedOn)
{
    int first = -1;
    for (int gpu : g.gpus) {
        const int i =
            rec_.add(gpu, EventKind::AllGather, g.pipeline, g.replica, g.stage, m, start, end, waitedOn, chunk);
        if (first < 0)
            first = i;
    }
    return first;
}

// One send event per representative GPU; returns the first one's index.
int ReplicaSchedule::recordSend(const std::vector<int>& gpus, EventKind kind, const Group& g, int chunk, int m,
                                double start, double end)
{
    int first = -1;
    for (int gpu : gpus) {
        const int i = rec_.add(gpu, kind, g.pipeline, g.replica, g.stage, m, start, end, -1, chunk);
        if (first < 0)
            first = i;
    }
    return first;
}

// Runs stage s's ops until one waits for an input not yet known; true if any ran.
bool ReplicaSchedule::advance(int s)
{
    bool moved = false;
    const Group& g = *groups_[s];
    const std::vector<ScheduleOp>& ops = ops_[s];
    while (next_[s] < int(ops.size())) {
        const ScheduleOp& op = ops[size_t(next_[s])];
        const int q = op.chunk * S_ + s, m = op.microBatch;
        const double ready = inputReady(q, op.forward, m);
        if (ready < 0)
            break;
        double start = std::max(clock_[s], ready);
        int waitedOn = inputEvent(q, op.forward, m);
        if (g.gather > 0) { // ZeRO-3: the op waits for its stage's parameters
            for (int gpu : g.gpus)
                rec_.add(gpu, EventKind::AllGather, g.pipeline, g.replica, g.stage, m, start, start + g.gather,
                         waitedOn);
            start += g.gather;
            waitedOn = -1; // the gather went first, on the same GPUs
        }
        const double end = start + (op.forward ? g.f : g.b)[size_t(op.chunk)];
        clock_[s] = end;
        const EventKind kind = op.forward ? EventKind::Forward : EventKind::Backward;
        // The op's communication (ring attention, MoE all-to-alls) is drawn after its compute, on the
        // communication track: the ring as the all-gather of keys and values it is.
        const OpComm comm = (op.forward ? g.fComm : g.bComm)[size_t(op.chunk)];
        const double computeEnd = end - comm.total(), ringEnd = computeEnd + comm.ring;
        int last = -1;
        for (int gpu : g.gpus) {
            const int i = rec_.add(gpu, kind, g.pipeline, g.replica, g.stage, m, start, computeEnd, waitedOn, op.chunk);
            const int r = comm.ring > 0 ? rec_.add(gpu, EventKind::AllGather, g.pipeline, g.replica, g.stage, m,
                                                   computeEnd, ringEnd, -1, op.chunk)
                                        : i;
            const int a = comm.allToAll > 0 ? rec_.add(gpu, EventKind::AllToAll, g.pipeline, g.replica, g.stage, m,
                                                       ringEnd, end, -1, op.chunk)
                                            : r;
            if (last < 0)
                last = a;
        }
        send(s, q, op.forward, m, end, last);
        ++next_[s];
        moved = true;
    }
    return moved;
}

} // namespace hetplan::simdetail
