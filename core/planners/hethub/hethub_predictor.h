#pragma once
// HetHub's performance predictor (sec. 3.2) as the DFS uses it: each device type's layer times are
// computed once per (tp, micro-batch) as prefix sums, so any stage's time is O(1); a leaf's iteration time
// and per-stage peak memory come from those tables.
//
// Iteration estimate of a 1F1B pipeline with stage times t_s (forward + backward of one micro-batch),
// boundary sends c_s and M micro-batches:
//     T = Σ t_s + 2 Σ c_s + (M − 1) · max(max t_s, max c_s) + max_s (gradient all-reduce_s + optimizer_s)
// (fill and drain once, then the bottleneck for every other micro-batch). T ≥ M · max t_s, which is the
// lower bound the DFS prunes with. Peak memory uses the shared memory model with min(S − s, M) micro-batches
// in flight at position s, so the stage order matters for memory but not for T; the shared simulator,
// which models the order's effect on time, re-scores the best leaves.
#include "hethub_space.h"

#include "core/cost/costmodel.h"
#include "core/model/job.h"

#include <vector>

namespace hetplan::hethub {

// One pipeline stage of a leaf: its device type and how many decoder layers it holds.
struct StageSlot {
    int type = 0;
    int layers = 0;
    bool operator==(const StageSlot&) const = default;
};

struct LeafScore {
    double seconds = 0; // predicted iteration time
    bool fits = true;   // every stage within its GPUs' memory
};

// Per-type prefix sums over all layers for one (tp, micro-batch).
struct TypeTable {
    std::vector<double> time;    // forward + backward, tp all-reduces over the type's real tp links
    std::vector<double> update;  // optimizer step
    std::vector<double> decoder; // decoder[n]: the fastest window of n decoder layers (pruning bound)
};

class Predictor {
public:
    Predictor(const Cluster& cluster, const CostModel& costs, const std::vector<TypeGroup>& groups,
              const SpaceConfig& config);

    const SpaceConfig& config() const { return config_; }
    int typeCount() const { return int(groups_.size()); }
    int decoderCount() const { return decoders_.count(); }
    // Lower bound on the forward + backward time of a stage of type i holding n decoder layers.
    double decoderSeconds(int type, int n) const { return tables_[type].decoder[n]; }
    // Memory bounds for the DFS. inFlightTolerance(i, n): the most micro-batches in flight (at most M) with
    // which some window of n decoder layers fits a GPU of type i (its roomiest node), without embedding or
    // head; 0 when none fits even with one. A real stage of n decoder layers holds at least such a window's
    // states and activations, so at a position with more in flight than this it never fits, whatever the
    // order. Nonincreasing in n (a window of n + 1 layers holds one of n).
    int inFlightTolerance(int type, int n) const { return tolerance_[type][n]; }
    // The most decoder layers a stage of type i can hold at all (tolerance ≥ 1).
    int maxStageLayers(int type) const { return maxStageLayers_[type]; }
    // The paper's order: each type's stages get n_i / p_i layers (the first n_i mod p_i one more), all
    // stages sorted by descending decoder time; ties keep type order.
    std::vector<StageSlot> descendingOrder(const std::vector<int>& layersPerType) const;
    LeafScore score(const std::vector<StageSlot>& order) const;
    // Layer bounds (S + 1 entries, 0 .. L): embeddings with the first stage, heads with the last.
    std::vector<int> bounds(const std::vector<StageSlot>& order) const;
    // Dense GPUs of every stage in order: the k-th stage of a type takes the type's k-th chunk.
    std::vector<std::vector<int>> stageGpus(const std::vector<StageSlot>& order) const;

private:
    TypeTable makeTable(const TypeGroup& g) const;
    std::vector<int> computeTolerance(const TypeGroup& g) const;

    const Cluster& cluster_;
    const CostModel& costs_;
    const std::vector<TypeGroup>& groups_;
    SpaceConfig config_;
    DecoderRange decoders_;
    std::vector<TypeTable> tables_;
    std::vector<std::vector<int>> tolerance_; // [type][n decoder layers]
    std::vector<int> maxStageLayers_;
    std::vector<LinkParams> dataLinks_;
    std::vector<double> paramsPerRank_; // prefix sums of parameters per tp rank
};

} // namespace hetplan::hethub
