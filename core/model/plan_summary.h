#pragma once
// What a plan is, in the numbers a user reads first: its degrees and layer split, the pipeline bubble,
// where each GPU type's time goes, its memory headroom, MFU, throughput and the bottleneck in words.
// Plain data filled from one simulated iteration by summarize() (core/sim/summary.h); written as the plan
// JSON's `summary` object.
#include "gpu_memory.h"

#include <optional>
#include <string>
#include <vector>

namespace hetplan {

struct StageSummary {
    int firstLayer = 0, endLayer = 0; // half-open layer range
    std::string deviceType;           // of its first GPU ("mixed" when its GPUs differ)
    int tensorParallel = 1;
    int dataParallel = 1; // inside the stage, per pipeline replica
    int gpus = 0;         // over all replicas
    bool operator==(const StageSummary&) const = default;
};

struct PipelineSummary {
    int replicas = 1, microBatchSize = 1, microBatches = 1;
    std::vector<StageSummary> stages;
    bool operator==(const PipelineSummary&) const = default;
};

// One GPU type's share of the iteration (averaged over its GPUs; the three shares add up to 1) and its
// memory: the capacity, the largest peak among its GPUs, what that peak is made of, and the headroom
// capacity − peak (negative: the plan does not fit).
struct DeviceTypeSummary {
    std::string deviceType;
    int gpus = 0;
    double computeShare = 0, communicationShare = 0, idleShare = 0;
    double memoryCapacityBytes = 0, peakMemoryBytes = 0, headroomBytes = 0;
    GpuMemory peakMemory; // the breakdown of peakMemoryBytes (its total)
    bool operator==(const DeviceTypeSummary&) const = default;
};

// The GPU that is busy longest: "stage 3 on T4 is the slowest stage: 41 % of the iteration".
struct Bottleneck {
    std::string text;
    std::string deviceType;
    int pipeline = -1, stage = -1; // -1 when the plan has no pipelines
    double share = 0;              // its busy (compute + communication) time / iteration time
    bool operator==(const Bottleneck&) const = default;
};

struct PlanSummary {
    std::string kind; // "pipelines", "zero" or "spmd"
    // Headline degrees: stages of the longest pipeline, data-parallel copies of the model (pipeline
    // replicas × in-stage dp, or GPUs for ZeRO and SPMD plans), the largest tensor-parallel degree.
    int pp = 1, dp = 1, tp = 1;
    int microBatchSize = 0, microBatches = 0; // the first pipeline's (ZeRO: the largest per GPU)
    std::vector<PipelineSummary> pipelines;   // per-stage degrees and the layer split
    std::optional<double> bubbleFraction;     // pipelines only: idle share of the forward/backward phase
    std::vector<DeviceTypeSummary> deviceTypes;
    double mfu = 0; // model FLOP per iteration / (iteration time × peak FLOP/s of the GPUs used)
    double iterationSeconds = 0, tokensPerSecond = 0;
    Bottleneck bottleneck;
    bool operator==(const PlanSummary&) const = default;
};

} // namespace hetplan
