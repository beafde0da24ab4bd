#pragma once
// HetHub's performance predictor (sec. 3.2) as the DFS uses it: each device type's layer times are
// computed once per (tp, micro-batch) as prefix sums, so any stage's time is O(1); a leaf's iteration time
// and per-stage peak memory come from those tables.
//
// Iteration estimate of a 1F1B pipeline (see pipelineSeconds) whose boundary sends c_s go over the links of
// hethub_links.h, as the simulator sends them. Stage 0's drain ends the pipeline at P and reaches stage s
// earlier, at r_s = P − Σ_{s'<s} b_s' − Σ_{s'<s−1} c_s'. Each stage then all-reduces its gradients (tied
// embeddings after both ends are done) and steps its optimizer: T = max_s (r_s + all-reduce_s + step_s).
// T ≥ M · max t_s and T ≥ Σ t_s, the lower bounds the DFS prunes with. Peak memory uses the shared memory
// model with min(S − s, M) micro-batches in flight at position s; the simulator re-scores the best leaves.
#include "hethub_links.h"

#include "core/cost/costmodel.h"
#include "core/model/job.h"

#include <vector>

namespace hetplan::hethub {

// The 1F1B pipeline's span for stage times t_s (forward + backward of one micro-batch), backward times b_s,
// sends c_s from s to s + 1 and M micro-batches. Sends block the sender (the simulator's default, as in
// Megatron), so stage s spends e_s = t_s + c_s + c_{s−1} per micro-batch. Stage s is first reached after
// A_s = Σ_{s'<s} (f_s' + c_s'), works M · e_s, idles in its warm-up while micro-batch 0's round trip below
// it outlasts its w_s = min(S − s − 1, M) warm-up forwards, and the drain above it takes
// D_s = Σ_{s'<s} b_s' + Σ_{s'<s−1} c_s':
//     P = max_s (A_s + M · e_s + idle_s + D_s).
// Unlike Σ t_s + 2 Σ c_s + (M − 1) · max e_s, it does not charge a slow first stage for the fill and drain
// of the fast ones below it. Against the simulator's schedule on 500 random pipelines (2-12 stages, 1-32
// micro-batches) it is off by 0.7 % on average (−12 % to +6 %); the former was 0 to +22 %.
double pipelineSeconds(const std::vector<double>& t, const std::vector<double>& back, const std::vector<double>& c,
                       int M);

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
    std::vector<double> back;    // backward alone
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
    ChunkLinks links_;
    std::vector<double> paramsPerRank_; // prefix sums of parameters per tp rank
};

} // namespace hetplan::hethub
