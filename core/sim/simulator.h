#pragma once
// The one iteration simulator that scores every plan from every planner on equal terms, and produces the
// timeline the Gantt chart draws and the per-GPU peak memory.
#include "core/cost/costmodel.h"
#include "core/model/plan.h"

#include <stop_token>

#include <map>
#include <string>
#include <vector>

namespace hetplan {

enum class EventKind {
    Forward,
    Backward,
    Recompute,
    Optimizer, // compute track
    SendActivation,
    SendGradient, // pipeline p2p (communication track)
    AllReduce,
    AllGather,
    ReduceScatter,
    AllToAll,
    Broadcast // collectives (communication track)
};
std::string toString(EventKind k);
bool isCommunication(EventKind k);
// A communication event among a group of GPUs (all-reduce, all-gather, ...), not a pipeline send.
bool isCollective(EventKind k);

struct TimelineEvent {
    int gpu = 0; // dense GPU index
    EventKind kind = EventKind::Forward;
    int pipeline = 0, replica = 0, stage = 0;
    int microBatch = -1; // -1 for per-iteration events (all-reduce, optimizer)
    double start = 0, end = 0;
    // Index into SimResult::events of the event on another stage whose output this one waited for (the send
    // that delivered a pipeline op's input, or the neighbour's compute when the send costs nothing); -1 when
    // only its own GPU's earlier events held it. Only the pipeline simulator records it; the critical path
    // (critical_path.h) follows it.
    int waitedOn = -1;
    // Interleaved 1F1B: the model chunk a forward, backward or send belongs to (virtual stage = chunk ×
    // stages + stage); 0 otherwise.
    int chunk = 0;
};

// The most events a timeline may hold (a Chrome trace, the Gantt chart). Measured near the limit (4 stages ×
// 70,000 micro-batches, 980,000 events): a 167 MB trace, 1.8 GB peak RSS for `simulate --trace`. A plan
// with more (millions of micro-batches) is refused with InputError(plan, "timeline", ...) as soon as the
// limit is passed, before its memory grows with it; its timings still simulate without a timeline.
constexpr int kMaxTimelineEvents = 1'000'000;

struct SimOptions {
    bool timeline = true; // collect events (off for fast scoring inside searches)
    int maxEvents = kMaxTimelineEvents; // with a timeline: refuse plans that need more events
    // Pipeline sends: false (default) = a stage's send occupies the stage until the transfer completes, as
    // Megatron's and DeepSpeed's non-interleaved 1F1B wait on their send/recv pairs; true = sends run in the
    // background and the stage computes on (an idealised asynchronous runtime).
    bool overlappedSends = false;
    // With a timeline: polled every few thousand events; once stop is requested, simulate() throws
    // CancelledError (a long timeline for a plan the user no longer wants).
    std::stop_token stop{};
};

struct SimResult {
    double iterationSeconds = 0;
    double tokensPerSecond = 0;
    std::map<int, double> busySeconds;     // per GPU: compute time
    std::map<int, double> peakMemoryBytes; // per GPU: memory.at(gpu).total()
    // Per GPU, what its peak is made of (core/cost/memory.h): the schedules fill the stage's part, simulate()
    // the communicators (from rankGroups) and the context.
    std::map<int, GpuMemory> memory;
    std::map<int, RankGroups> rankGroups; // per GPU: the communicators it belongs to
    bool feasible = true;                  // every GPU's peak within its memory
    std::vector<TimelineEvent> events;
};

// Simulates one training iteration of `plan` (pipelines, ZeRO or SPMD parts) with layer times from `costs`.
// Throws InputError if the plan is structurally invalid.
SimResult simulate(const Plan& plan, const CostModel& costs, const SimOptions& options = {});

// Fills plan.estimate from simulate() (the simulator's score, the one all planners are compared on).
void scorePlan(Plan& plan, const CostModel& costs);

} // namespace hetplan
