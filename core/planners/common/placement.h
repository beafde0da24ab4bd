#pragma once
// Device placement for 3D-parallel pipelines: which GPU runs each virtual rank (pipeline stage s,
// data-parallel replica r, tensor-parallel rank t), and the Pipeline a placement describes.
#include "core/model/cluster.h"
#include "core/model/plan.h"
#include "core/planners/common/degrees.h"

#include <random>
#include <vector>

namespace hetplan {

// A bijection from virtual ranks to dense GPU indices.
struct Placement {
    Degrees degrees;
    std::vector<int> gpus; // size pp·dp·tp; rank (s·dp + r)·tp + t

    int at(int s, int r, int t) const { return gpus[(size_t(s) * degrees.dp + r) * degrees.tp + t]; }
    // The stage's GPUs in Stage::gpus order (replica-major, then tensor rank).
    std::vector<int> stageGpus(int s) const;
    std::vector<int> tensorGroup(int s, int r) const; // the tp ranks of one replica of a stage
    std::vector<int> dataGroup(int s, int t) const;   // the replicas of one tp rank of a stage
};

// Megatron's order: tensor-parallel ranks on consecutive GPUs of a node first, then data-parallel
// replicas, then pipeline stages — i.e. rank i runs on dense GPU i (dense order is node-major).
Placement megatronPlacement(const Cluster& cluster, Degrees d);

// A uniformly random bijection (the random-search baseline: no heuristic at all). With `intraNodeTensor`
// (tp must divide every node's GPU count) tensor-parallel groups stay inside a node, as frameworks require;
// which GPUs form a group and where each group goes is still random.
Placement randomPlacement(const Cluster& cluster, Degrees d, std::mt19937_64& rng, bool intraNodeTensor);

// The Pipeline for a placement: replicas = dp, tensorParallel = tp, dataParallel = 1, stage GPUs
// replica-major; `bounds` has pp+1 entries.
Pipeline makePipeline(const Placement& p, int microBatchSize, int microBatches, const std::vector<int>& bounds);

} // namespace hetplan
