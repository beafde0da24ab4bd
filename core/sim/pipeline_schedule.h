#pragma once
// The fixed per-stage op orders of the pipeline schedules, and the replica runner that times them (internal
// to the simulator; pipeline_sim.cpp builds the groups and boundaries it runs on).
//
// - GPipe: all M forwards, then all M backwards.
// - 1F1B (PipeDream-flush): stage s of S runs min(S − s − 1, M) warm-up forwards, then forwards and
//   backwards alternate, then the cool-down backwards.
// - Interleaved 1F1B (Megatron's virtual pipeline stages, v model chunks per stage): forwards walk the
//   micro-batches in groups of S, each group through chunk 0, then chunk 1, ...; backwards walk the same
//   groups through the chunks in reverse. Stage s runs (S − s − 1)·2 + (v − 1)·S warm-up forwards (at most all of
//   them, as current Megatron-core caps it), then 1F1B. Virtual stage q = chunk·S + stage hands its output to q + 1, which for the last
//   stage is stage 0's next chunk: the extra sends that buy the smaller bubble (S − 1)/(v·M).
#include "sim_detail.h"

#include <vector>

namespace hetplan::simdetail {

struct ScheduleOp {
    bool forward = true;
    int chunk = 0;
    int microBatch = 0;
    bool operator==(const ScheduleOp&) const = default;
};

// The ops stage s of S runs, in order: 2·M·v of them.
std::vector<ScheduleOp> stageOps(int S, int s, int M, int v, bool gpipe);

// Activation memory a stage keeps at its peak under its op order: chunk c's forward adds perMicroBatch[c]
// until its backward; the largest running sum.
double peakInFlight(const std::vector<ScheduleOp>& ops, const std::vector<double>& perMicroBatch);

// Communication inside one micro-batch's forward or backward of a model chunk, in exposed seconds: context
// parallelism's ring attention and expert parallelism's all-to-alls (context_expert_sim.h).
struct OpComm {
    double ring = 0, allToAll = 0;
    double total() const { return ring + allToAll; }
};

struct Group { // one stage of one replica of one pipeline
    int pipeline = 0, replica = 0, stage = 0;
    int first = 0, end = 0, tp = 1, dp = 1;
    std::vector<int> gpus;
    std::string device;           // slowest device type of the group
    std::vector<double> f, b;     // forward / backward seconds of one micro-batch, per model chunk
    std::vector<OpComm> fComm, bComm; // the part of f and b that is communication, per model chunk
    double update = 0;
    double params = 0;   // parameters per tensor-parallel rank (its chunks' layers and tied copy)
    double expertParams = 0; // the experts' part of params, before expert parallelism divides it
    double gather = 0;   // ZeRO-3: parameter all-gather before each forward and backward
    double ready = 0;    // end of its last backward
    double syncDone = 0; // end of its gradient reduction
    double optEnd = 0;   // end of its optimizer step
};

struct Boundary {             // virtual stage q → q + 1 of one replica
    double fwdSeconds = 0;    // one activation transfer q → q+1 (link time)
    double bwdSeconds = 0;    // one gradient transfer q+1 → q
    double fwdGather = 0;     // the receiver's all-gather of the activation after the transfer (0: none)
    double bwdGather = 0;     // the sender's all-gather of the gradient
    std::vector<int> senders; // representative GPUs of the sending stage
    std::vector<int> receivers;
};

// Runs one replica's schedule: groups[s] are its stages, bounds[q] its S·v − 1 virtual-stage boundaries. A
// boundary's link is the physical one between its two stages, one per direction. Plain 1F1B and GPipe sends
// block the sender unless the recorder's options overlap them; interleaved sends never block: Megatron's
// training loop overlaps the interleaved schedule's point-to-point communication with compute by default
// (overlap_p2p_comm; --no-overlap-p2p-communication turns it off, and it is forced off without interleaving).
class ReplicaSchedule {
public:
    ReplicaSchedule(std::vector<Group*>& groups, const std::vector<Boundary>& bounds, int M, int v, bool gpipe,
                    Recorder& rec);
    void run();

private:
    // One boundary send in one direction: its link time and the receiver's all-gather, the representatives it
    // is drawn on, the link it occupies, and where the arrival and its event are kept.
    struct Transfer {
        double seconds, gather;
        const std::vector<int>& representatives;
        EventKind kind;
        double& link;
        double& arrive;
        int& event;
        const Group& receiver;
        int receiverChunk;
    };
    void transfer(const Transfer& t, int s, int chunk, int m, double end, int op);
    double inputReady(int q, bool forward, int m) const;
    int inputEvent(int q, bool forward, int m) const;
    void send(int s, int q, bool forward, int m, double end, int op);
    int recordGather(const Group& g, int chunk, int m, double start, double end, int waitedOn);
    int recordSend(const std::vector<int>& gpus, EventKind kind, const Group& g, int chunk, int m, double start,
                   double end);
    bool advance(int s);

    std::vector<Group*>& groups_;
    const std::vector<Boundary>& bounds_;
    const int S_, M_, V_, Q_;
    const bool blocking_;
    Recorder& rec_;
    std::vector<std::vector<ScheduleOp>> ops_;
    std::vector<double> actArrive_, gradArrive_; // [q·M + m]: q's output at q + 1 / q's gradient at q − 1
    std::vector<int> actEvent_, gradEvent_;     // the events behind them
    std::vector<int> next_;
    std::vector<double> clock_;    // per stage
    std::vector<double> linkFree_; // per direction, sender × S + receiver: when its queue is free
    // The queue of sends from stage `from` to stage `to` (one per direction: with two stages and interleaving,
    // activations 1 → 0 and gradients 1 → 0 share one).
    double& link(int from, int to) { return linkFree_[size_t(from) * S_ + to]; }
};

} // namespace hetplan::simdetail
