#pragma once
// What every planner returns (one type for all planners) plus the inputs it was made from, so a plan is
// self-contained: pipelines of stages, or per-GPU ZeRO batches, or an SPMD program with sharding ratios.
#include "cluster.h"
#include "gpu_memory.h"
#include "job.h"
#include "model.h"
#include "plan_summary.h"
#include "profile.h"

#include <QJsonObject>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hetplan {

struct Stage {
    int firstLayer = 0, endLayer = 0; // half-open [first, end)
    // All GPUs of this stage across the pipeline's replicas: replicas × dataParallel × tensorParallel
    // dense indices, ordered replica-major, then data-parallel rank, then tensor-parallel rank.
    std::vector<int> gpus;
    int tensorParallel = 1;
    int dataParallel = 1; // data parallelism inside the stage (HetHub); splits each micro-batch
    bool operator==(const Stage&) const = default;
    int layerCount() const { return endLayer - firstLayer; }
};

// Interleaved 1F1B (Megatron's virtual pipeline stages): one model chunk of a stage, with the layers it runs.
struct ModelChunk {
    int stage = 0, chunk = 0;
    int firstLayer = 0, endLayer = 0; // half-open
};

struct Pipeline {
    int replicas = 1;       // identical copies (data parallel) of this pipeline
    int microBatchSize = 1; // samples per micro-batch per replica
    int microBatches = 1;   // micro-batches per iteration per replica
    // Model chunks per stage under interleaved 1F1B (Megatron's virtual pipeline size); 1 = plain 1F1B.
    // With v > 1 a stage still holds end − first layers, but as v chunks spread over the model: see chunks().
    int virtualStages = 1;
    // Megatron's context parallelism: each stage's data-parallel ranks form groups of contextParallel
    // consecutive ranks that share samples and split the sequence (ring attention passes keys and values
    // around the group). Every stage's dataParallel is a multiple of it; 1 = off.
    int contextParallel = 1;
    // Megatron's expert parallelism: a stage's data-parallel ranks over all replicas (replica × dataParallel +
    // rank) form groups of expertParallel consecutive ranks, each holding 1/expertParallel of every MoE layer's
    // experts; tokens reach their experts by all-to-all. 1 = experts replicated.
    int expertParallel = 1;
    std::vector<Stage> stages;
    bool operator==(const Pipeline&) const = default;
    long long samples() const { return (long long)replicas * microBatchSize * microBatches; }
    // GPUs of replica r in stage s (dataParallel × tensorParallel of them).
    std::vector<int> stageGpus(int s, int r) const;
    // The model chunks in model order (virtual stage q = chunk × stages + stage, as Megatron numbers them).
    // Stage s's layers other than the embedding and the head split evenly over its virtualStages chunks, the
    // first ones one layer larger when they do not divide; the embedding rides with the first chunk of stage
    // 0 and the head with the last chunk of the last stage, as Megatron places them. With one virtual stage,
    // one chunk per stage with the stage's own layers.
    std::vector<ModelChunk> chunks(const ModelSpec& model) const;
    // Stage s's chunks in chunk order: the layers its GPUs really run.
    std::vector<ModelChunk> stageChunks(const ModelSpec& model, int s) const;
    // "[4,7) + [16,19)": stage s's layers as its chunks hold them ("[7,13)" without interleaving).
    std::string stageLayersText(const ModelSpec& model, int s) const;
};

struct ZeroGpu {
    int gpu = 0;
    int microBatchSize = 0;
    int accumulationSteps = 0;  // micro-batches per iteration, the last one possibly smaller
    int lastMicroBatchSize = 0; // size of the final micro-batch (1..microBatchSize), 0 if no steps
    bool operator==(const ZeroGpu&) const = default;
    long long samples() const
    {
        return accumulationSteps > 0 ? (long long)(accumulationSteps - 1) * microBatchSize + lastMicroBatchSize : 0;
    }
};

struct ZeroPlan {
    int stage = 0;
    std::vector<ZeroGpu> gpus;
    bool operator==(const ZeroPlan&) const = default;
};

// One instruction of an SPMD program with what the simulator needs to run it (the plan stays
// self-contained: no tensor graph is needed to score it). Every GPU runs every instruction.
struct SpmdInstruction {
    enum class Kind { Load, Compute, Collective };
    Kind kind = Kind::Compute;
    std::string collective; // Collective: "all-reduce", "all-gather", "grouped-broadcast", "reduce-scatter",
                            // "all-to-all", "slice" (core/cost/spmd_costs.h)
    int segment = 0;        // index into shardingRatios
    std::string group;      // op group drawn in the Gantt chart (the model layer it belongs to)
    bool backward = false;
    double flops = 0;     // Compute: FLOP of the unsharded op
    bool sharded = false; // Compute: FLOP and output scale with the GPU's ratio; Load: the tensor is sharded
    double bytes = 0;     // Collective: unsharded tensor bytes; Load/Compute: bytes of the produced tensor
    bool parameter = false; // Load: a parameter (model state), not an input; Collective: reduces a
                            // parameter's gradient (bucketed after the backward, core/cost/gradient_reduction.h)
    int fromSegment = -1;   // Collective "rebalance": the segment whose ratios the tensor leaves
    int dimension = -1;     // sharded: index into SpmdPlan::dimensions (whole units per GPU); -1: the
                            // segment's sharding ratio
    bool operator==(const SpmdInstruction&) const = default;
};

// A sharded dimension rounded to whole units per GPU (HAP section 5.1): experts, heads, features or
// samples. shards[g] units on GPU g, sum of shards = size; an instruction sharded on it computes and holds
// shards[g] / size of the tensor on GPU g.
struct SpmdDimension {
    std::string label;             // what is split, for listings: the op's label ("b", "E", "f", ...)
    long long size = 0;            // units in the dimension
    int segment = 0;               // the ratio segment whose ratios were rounded
    std::vector<long long> shards; // per GPU
    bool operator==(const SpmdDimension&) const = default;
};

struct SpmdPlan {
    std::vector<std::string> program;                // one instruction per line (HAP's instruction set)
    std::vector<std::vector<double>> shardingRatios; // per segment, per GPU
    std::vector<SpmdInstruction> instructions;       // program[i] describes instructions[i] (when filled)
    std::vector<std::string> segments;               // segment names (index = shardingRatios row)
    std::vector<SpmdDimension> dimensions;           // integer shard sizes of the sharded dimensions
    // The share of an instruction's sharded work and tensor that GPU g has: its dimension's whole units
    // when it has one, else the segment's ratio.
    double share(const SpmdInstruction& ins, int g) const;
    bool operator==(const SpmdPlan&) const = default;
};
std::string toString(SpmdInstruction::Kind k);                      // "load", "compute", "collective"
bool parseSpmdInstructionKind(const std::string& s, SpmdInstruction::Kind& out); // false if unknown

// Whether a training framework can run the plan as planned, and if not, why (one reason per rule broken).
struct FrameworkVerdict {
    bool ok = true;
    std::vector<std::string> reasons;
    bool operator==(const FrameworkVerdict&) const = default;
};

// What a plan costs to run at its GPUs' prices (core/model/pricing.h).
struct PlanCost {
    double dollarsPerHour = 0;          // sum over the GPUs the plan uses of their price per GPU-hour
    double dollarsPerMillionTokens = 0; // dollarsPerHour / (tokens/s · 3600) · 1e6
    bool operator==(const PlanCost&) const = default;
};

struct Estimate {
    double iterationSeconds = 0;
    double tokensPerSecond = 0;
    std::map<int, double> peakMemoryBytes; // per dense GPU index
    std::map<int, GpuMemory> memory;       // per dense GPU index: what its peak is made of (total = the peak)
    bool feasible = true;
    std::map<std::string, FrameworkVerdict> frameworks; // "megatron", "deepspeed" (core/model/frameworks.h)
    std::optional<PlanCost> cost; // absent when a used GPU has no price or the plan moves no tokens
    // The device types the plan uses that have no known price (why `cost` is absent); sorted, unique.
    std::vector<std::string> unpricedDeviceTypes;
    bool operator==(const Estimate&) const = default;
};

// Why a search ended before it was done; its plan is then the best found so far.
enum class StopReason { None, Cancelled, TimeLimit };
std::string toString(StopReason r); // "", "cancelled", "time-limit" (the plan JSON's search.stopped)
bool parseStopReason(const std::string& s, StopReason& out); // "cancelled" or "time-limit"

struct SearchStats {
    double seconds = 0;
    long long candidates = 0;
    std::map<std::string, double> extra; // planner-specific counters (e.g. dropped_for_memory)
    StopReason stopped = StopReason::None;
    bool operator==(const SearchStats&) const = default;
};

// One ranked strategy a search considered (AMP keeps the top-k; others may too).
struct Candidate {
    int pp = 1, dp = 1, tp = 1, microBatchSize = 1;
    std::vector<int> layersPerStage;
    double plannerCost = 0;
    std::optional<double> simulatedCost;
    bool operator==(const Candidate&) const = default;
};

// The kind of decision a plan holds. Code that must handle every kind switches over kind() without a
// default, so the compiler (-Wswitch, an error in CI) lists every place a new kind has to reach.
enum class PlanKind { Pipelines, Zero, Spmd, Empty };

struct RankInfo {
    int rank = 0, gpu = 0, localRank = 0;
    std::string host;
};

struct Plan {
    std::string planner;
    std::map<std::string, std::string> options;
    // Inputs
    Cluster cluster;
    ModelSpec model;
    Job job;
    Profile profile; // measured parts only, limited to the device types the plan uses
    // Decision
    std::vector<Pipeline> pipelines;
    std::optional<ZeroPlan> zero;
    std::optional<SpmdPlan> spmd;
    // Scores
    Estimate estimate;                     // the shared simulator's
    std::optional<PlanSummary> summary;    // from the same simulator (summarize()); absent in older files
    std::optional<double> plannerEstimate; // the planner's own iteration seconds
    SearchStats search;
    std::vector<Candidate> candidates;
    // A planner's own sections (its templates, foldings, metrics, curves), each written verbatim as a
    // top-level key of the plan JSON named after it ("ditto", "hethub", ...). Keys are lower case and may
    // not be one of the plan's own keys.
    std::map<std::string, QJsonObject> details;

    bool operator==(const Plan&) const = default;

    // Pipelines win over ZeRO over SPMD when several parts are filled (validate() refuses such plans).
    PlanKind kind() const;
    long long samplesPerIteration() const;
    // Global rank order as Megatron and DeepSpeed number ranks (tp fastest, then dp, then pp): stage by stage,
    // and inside a stage the pipelines in order with their GPUs in listed order (replica, dp rank, tp rank),
    // so rank r of a grid of equal stages runs stage r / (dp·tp) on the GPU the plan chose. Pipelines of
    // different stage counts (no framework runs them): pipeline by pipeline. ZeRO: listed order.
    std::vector<RankInfo> ranks() const;
    std::vector<int> usedGpus() const;
    // Structural checks: layers covered exactly once per pipeline, GPU counts match degrees, no GPU used
    // twice, batches add up to the global batch. Throws InputError(file, field, reason).
    void validate(const std::string& file) const;
    // validate() without the rule that batches add up to the global batch (the simulator also scores
    // plans whose batch differs from the job's).
    void validateStructure(const std::string& file) const;
};

} // namespace hetplan
