#pragma once
// Parallelism degrees and device placement for 3D-parallel pipelines (AMP's strategy space, sec. 3.3):
// which GPU runs each virtual rank (pipeline stage s, data-parallel replica r, tensor-parallel rank t).
// Shared by the AMP-family planners (amp, megatron, random, annealing).
#include "core/model/cluster.h"
#include "core/model/plan.h"

#include <functional>
#include <optional>
#include <random>
#include <vector>

namespace hetplan {

struct Degrees {
    int pp = 1, dp = 1, tp = 1;
    bool operator==(const Degrees&) const = default;
};

// A bijection from virtual ranks to dense GPU indices.
struct Placement {
    Degrees degrees;
    std::vector<int> gpus;   // size pp·dp·tp; rank (s·dp + r)·tp + t

    int at(int s, int r, int t) const { return gpus[(size_t(s) * degrees.dp + r) * degrees.tp + t]; }
    // The stage's GPUs in Stage::gpus order (replica-major, then tensor rank).
    std::vector<int> stageGpus(int s) const;
    std::vector<int> tensorGroup(int s, int r) const;   // the tp ranks of one replica of a stage
    std::vector<int> dataGroup(int s, int t) const;     // the replicas of one tp rank of a stage
};

std::vector<int> divisors(int n);   // ascending

// Tensor-parallel degrees that keep every tp group inside one node under the Megatron placement:
// those dividing every node's GPU count (so also ≤ the smallest node).
std::vector<int> intraNodeTensorDegrees(const Cluster& cluster);

// All (pp, dp, tp) with pp·dp·tp = gpus, tp from `tps`, 1 ≤ pp ≤ layers and dp dividing the global
// batch (every replica gets the same number of samples). Ordered by tp, then dp.
std::vector<Degrees> enumerateDegrees(int gpus, int layers, int globalBatch, const std::vector<int>& tps);

// Megatron's order: tensor-parallel ranks on consecutive GPUs of a node first, then data-parallel
// replicas, then pipeline stages — i.e. rank i runs on dense GPU i (dense order is node-major).
Placement megatronPlacement(const Cluster& cluster, Degrees d);

// A uniformly random bijection (the random-search baseline: no heuristic at all).
Placement randomPlacement(const Cluster& cluster, Degrees d, std::mt19937_64& rng);

// AMP's domino-tiling placement (sec. 6.3). The cluster is drawn as a 2D mesh, one column per node
// (column height = the node's GPU count), so vertical neighbours share a node. A domino covers the
// tp·dp GPUs of one pipeline stage; stages are tiled in order, each anchored at the first free cell in
// column-major order, with a randomly chosen rectangular shape h×w (h·w = tp·dp) that fits. Inside a
// domino ranks run down each column first with the tp rank fastest, so h = tp gives intra-node tp
// groups with dp across nodes (the paper's vertical domino), h = tp·dp puts the whole stage in one node,
// and h = 1 spreads tp across nodes. Returns nullopt if `attempts` random tilings all dead-end.
std::optional<Placement> randomDominoPlacement(const Cluster& cluster, Degrees d, std::mt19937_64& rng,
                                               int attempts = 64);

// A uniformly random split of `layers` layers into `stages` non-empty contiguous stages (bounds, size
// stages+1, from 0 to layers).
std::vector<int> randomBounds(int layers, int stages, std::mt19937_64& rng);

// Layers split as evenly as possible; the extra layers go to the last stages (the first stages of 1F1B
// keep the most activations in flight).
std::vector<int> uniformBounds(int layers, int stages);

// Contiguous split minimising the largest per-stage sum of `weights` (e.g. parameters per layer); every
// stage non-empty. Ties prefer later cuts.
std::vector<int> balancedBounds(const std::vector<double>& weights, int stages);

// The Pipeline for a placement: replicas = dp, tensorParallel = tp, dataParallel = 1, stage GPUs
// replica-major; `bounds` has pp+1 entries.
Pipeline makePipeline(const Placement& p, int microBatchSize, int microBatches, const std::vector<int>& bounds);

// One complete AMP-space strategy (sec. 3.3: degrees, placement, micro-batch, layer split) and the score a
// planner gave it.
struct Strategy {
    Placement placement;
    int microBatchSize = 1;
    int microBatches = 1;             // gas
    std::vector<int> bounds;          // pp+1 layer boundaries
    double plannerCost = 0;           // the planner's own estimate, seconds
    bool fitsMemory = true;
};

// A plan holding the strategy as its one pipeline, with the inputs filled in (ready to simulate).
Plan strategyPlan(const Strategy& s, const Cluster& cluster, const ModelSpec& model, const Job& job);
Candidate strategyCandidate(const Strategy& s);

// The AMP paper's "real trials" step with the shared simulator standing in for the cluster: build each
// strategy's plan, `score` it (callers pass the simulator's scorePlan), record the simulated seconds in
// `candidates` (one per strategy, same order) and return the best plan — simulator-feasible first, then
// fastest, then earliest in the list. `checkpoint` runs before each trial (cancellation).
// Requires a non-empty list.
Plan pickBySimulation(const std::vector<Strategy>& strategies, const Cluster& cluster, const ModelSpec& model,
                      const Job& job, const std::function<void(Plan&)>& score,
                      const std::function<void()>& checkpoint, std::vector<Candidate>& candidates);

// Shorthands used by the uniform planner: equal layers per stage (bounds, = uniformBounds) and the
// Megatron-placed pipeline on GPUs 0 .. pp·dp·tp-1 with those bounds.
std::vector<int> evenSplit(int layers, int stages);
Pipeline megatronPipeline(int dp, int tp, const std::vector<int>& bounds, int microBatchSize, int microBatches);

} // namespace hetplan
