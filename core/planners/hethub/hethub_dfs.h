#pragma once
// The DFS of HetHub sec. 3.3.2-3.3.3 over the first level of the search tree: how many decoder layers each
// device type gets (n_i); its p_i stages then get n_i / p_i layers each (±1, rule 1), so a type's total
// fixes its stages. At a leaf the stages are ordered by descending estimated time (rule 3) and scored by
// the predictor; leaves that do not fit memory are dropped.
//
// Bottleneck bound (rule 2). The paper only says an upper bound on the bottleneck stage prunes extreme
// splits. We use the one that is provably safe: the predicted iteration time is at least M · (slowest
// stage), so with U = the k-th best predicted time found so far (k = the number of leaves kept for the
// simulator), a partial split is dropped when
//   - a type's largest stage (⌈n_i / p_i⌉ decoder layers) already takes ≥ U / M, or
//   - the types still to assign cannot hold the remaining layers with every stage below U / M.
// A second bound covers few micro-batches, where fill and drain dominate: the predicted time is also at
// least Σ_s t_s (micro-batch 0 passes every stage), with the unassigned layers costed at the fastest
// remaining type's single layer; a choice of n_i whose bound reaches U is skipped.
// A memory bound prunes splits no leaf of which can fit, whatever the order: a type whose largest stage
// holds more than Predictor::maxStageLayers, or types still to assign whose stages cannot hold the
// remaining layers within that count. Without it a cluster where little fits (many small GPUs, a big
// model) enumerates every split while the time bounds, which need k feasible leaves, never start.
// Such subtrees cannot contain one of the k best leaves, so the DFS returns exactly what enumerating every
// split would (tests/core/tst_hethub.cpp checks this). Each level walks n_i outwards from the
// speed-proportional share, so a good bound is found at the first leaf.
#include "hethub_predictor.h"

#include "core/planners/planner.h"

#include <vector>

namespace hetplan::hethub {

struct ScoredLeaf {
    int config = 0;                 // index into the searched configs
    std::vector<int> layersPerType; // n_i
    std::vector<StageSlot> order;   // pipeline order
    double seconds = 0;             // predicted iteration time
};

// The k best feasible leaves over all configs searched so far (a max-heap on seconds) and the counters.
class LeafPool {
public:
    explicit LeafPool(int keep) : keep_(keep) {}
    // Prune threshold: the k-th best time once k leaves are kept, +inf before.
    double bound() const;
    // Keeps `leaf` if it is among the k best; a leaf already kept (same config and split, found again by a
    // later pass) is not kept twice.
    void offer(ScoredLeaf leaf);
    std::vector<ScoredLeaf> sorted() const; // best first

    long long leaves = 0;        // leaves scored by the predictor
    long long pruned = 0;        // subtrees cut by the bottleneck bound
    long long droppedMemory = 0; // leaves that did not fit memory
    long long prunedMemory = 0;  // of `pruned`, subtrees cut by the memory bounds

private:
    int keep_;
    std::vector<ScoredLeaf> heap_;
};

// Searches one config's splits into `pool`; `prune` = false enumerates every split (the test oracle's
// twin). `leafBudget` > 0 ends the search after that many leaves (the seeding pass, see searchHetHub).
// Returns the stop reason if progress was stopped.
StopReason searchSplits(const Predictor& predictor, int configIndex, LeafPool& pool, const Progress& progress,
                        bool prune = true, long long leafBudget = 0);

} // namespace hetplan::hethub
