#pragma once
// Parallelism degrees of a 3D-parallel strategy and their enumeration (the strategy space that AMP, the
// Megatron heuristic and the search baselines share).
#include "core/model/cluster.h"
#include "core/model/model.h"

#include <vector>

namespace hetplan {

struct Degrees {
    int pp = 1, dp = 1, tp = 1;
    bool operator==(const Degrees&) const = default;
};

std::vector<int> divisors(int n); // ascending

// Tensor-parallel degrees that keep every tp group inside one node under the Megatron placement:
// those dividing every node's GPU count (so also ≤ the smallest node).
std::vector<int> intraNodeTensorDegrees(const Cluster& cluster);

// The tensor-parallel degrees planners search: intraNodeTensorDegrees() that also split the model's shapes
// (core/model/frameworks.h), so every plan built from them can run on Megatron-LM.
// With `crossNode`, degrees up to the largest node that divide the GPU count (groups may then span nodes,
// as AMP's domino placement allows) and split the model's shapes.
std::vector<int> allowedTensorDegrees(const ModelSpec& model, const Cluster& cluster, bool crossNode = false);

// All (pp, dp, tp) with pp·dp·tp = gpus, tp from `tps`, 1 ≤ pp ≤ layers and dp dividing the global
// batch (every replica gets the same number of samples). Ordered by tp, then dp.
std::vector<Degrees> enumerateDegrees(int gpus, int layers, int globalBatch, const std::vector<int>& tps);

} // namespace hetplan
