#pragma once
// Internals shared by the pipeline and ZeRO parts of the simulator (not a public API).
#include "simulator.h"

#include "core/base/errors.h"

#include <string>
#include <vector>

namespace hetplan::simdetail {

// Throws the InputError for a timeline that would pass `maxEvents` (kept out of line: Recorder::add is hot).
[[noreturn]] void refuseTimeline(int maxEvents);

// Per-GPU accumulators plus the optional event list. GPUs are dense cluster indices.
struct Recorder {
    const SimOptions& options;
    SimResult& result;
    std::vector<double> busy;   // compute seconds per GPU
    std::vector<double> finish; // when each GPU's last event ends
    std::vector<char> used;

    Recorder(const SimOptions& o, SimResult& r, int gpuCount)
        : options(o), result(r), busy(gpuCount, 0.0), finish(gpuCount, 0.0), used(gpuCount, 0)
    {}

    void touch(int gpu, double end)
    {
        used[gpu] = 1;
        if (end > finish[gpu])
            finish[gpu] = end;
    }
    // One event on one GPU; compute kinds also count as busy time. Returns its index in result.events (-1
    // without a timeline), for TimelineEvent::waitedOn.
    int add(int gpu, EventKind kind, int pipeline, int replica, int stage, int microBatch, double start, double end,
            int waitedOn = -1, int chunk = 0)
    {
        touch(gpu, end);
        if (!isCommunication(kind))
            busy[gpu] += end - start;
        if (!options.timeline)
            return -1;
        if (result.events.size() >= size_t(options.maxEvents))
            refuseTimeline(options.maxEvents);
        if ((result.events.size() & 4095) == 4095 && options.stop.stop_requested())
            throw CancelledError("cancelled");
        result.events.push_back({gpu, kind, pipeline, replica, stage, microBatch, start, end, waitedOn, chunk});
        return int(result.events.size()) - 1;
    }
};

// The slowest (largest forward+backward) timing of layers [first, end) over the device types of `gpus`.
LayerTiming slowestRange(const Plan& plan, const CostModel& costs, const std::vector<int>& gpus, int first, int end,
                         int tp, double microBatch, std::string* deviceOut = nullptr);

// Optimizer step of `params` parameters on one GPU: the measured update time when there is one, else three
// memory passes over the optimizer states at the device's memory bandwidth. `shards` divides both (ZeRO).
double optimizerSeconds(const CostModel& costs, const std::string& device, double measuredUpdate, double params,
                        double shards);

// A per-layer count (parameters, expert parameters) of layers [first, end) on one tensor-parallel rank: tp
// divides it where the layer splits.
double perTensorRank(const ModelSpec& model, int first, int end, int tp, double LayerSpec::*count);
// Parameters of layers [first, end) held by one tensor-parallel rank.
double paramsPerRank(const ModelSpec& model, int first, int end, int tp);

void simulatePipelines(const Plan& plan, const CostModel& costs, Recorder& rec);
void simulateZero(const Plan& plan, const CostModel& costs, Recorder& rec);
void simulateSpmd(const Plan& plan, const CostModel& costs, Recorder& rec);

} // namespace hetplan::simdetail
