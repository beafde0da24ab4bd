#pragma once
// AMP's domino-tiling placement (sec. 6.3), used by its simulated-annealing optimiser.
#include "core/planners/common/placement.h"

#include <optional>
#include <random>

namespace hetplan {

// The cluster is drawn as a 2D mesh, one column per node (column height = the node's GPU count), so
// vertical neighbours share a node. A domino covers the tp·dp GPUs of one pipeline stage; stages are tiled
// in order, each anchored at the first free cell in column-major order, with a randomly chosen rectangular
// shape h×w (h·w = tp·dp) that fits. Inside a domino ranks run down each column first with the tp rank
// fastest, so h = tp gives intra-node tp groups with dp across nodes (the paper's vertical domino),
// h = tp·dp puts the whole stage in one node, and h = 1 spreads tp across nodes. Returns nullopt if
// `attempts` random tilings all dead-end. With `intraNodeTensor`, only shapes whose height is a multiple
// of tp are drawn, so every tensor-parallel group lies in one column (node).
std::optional<Placement> randomDominoPlacement(const Cluster& cluster, Degrees d, std::mt19937_64& rng,
                                               bool intraNodeTensor, int attempts = 64);

} // namespace hetplan
