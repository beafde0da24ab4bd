#pragma once
// Ditto's plan recovery (section 6): from a template on the virtual homogeneous cluster back to real
// devices. Both return the real template's stages (empty: no plan found) with shapes and times.
//
// DP recovery (algorithm 2). The virtual template has S single-GPU stages (S = V, the folded GPU count).
// A choice (i, x, y) merges y consecutive virtual stages onto x GPUs of type i, for y in
// ((x - 1) d_i, x d_i] (x = the fewest GPUs of type i worth y weakest GPUs; the paper's "x devices merge up
// to x d_i stages"). One state per virtual-stage boundary keeps the best (devices used, cost, template),
// eq. 6-9, with the paper's feasibility rules: a choice that needs more GPUs of a type than are left is
// skipped and an infeasible state stays infeasible. Cost = the partial template's T. Decisions: (1) the
// table runs over suffixes (dp[j] = the best template of virtual stages j .. S-1) so a merged stage knows
// how many stages follow it, and (2) a choice whose stage does not fit its GPUs' memory with its 1F1B
// in-flight micro-batches is skipped too (the paper's future work), so recovered plans never exceed memory.
// (3) One state per cell (the paper's table, beam = 1) often strands the plan: the cheapest suffix takes
// the fast GPUs, and the stages in front, which hold the most micro-batches in flight, then fit nowhere.
// Each cell therefore keeps the `beam` best states with distinct (GPUs used, stage count), ranked by their
// cost plus a lower bound for the virtual stages still in front given the GPUs left (PrefixBound); the work
// stays O(beam · types · M · d · S), polynomial as the paper's. (4) With memory binding, the folded
// choices leave no slack: sum_i N_i d_i = V, so every GPU must take exactly its d_i share, and the deep
// front stages (most micro-batches in flight) cannot. Section 6.4 names the remedy, merging more than
// x d_i stages on x GPUs; `merge` = any allows every y (O(beam · types · M · S^2), still polynomial),
// `merge` = folded keeps the paper's choices.
//
// Greedy recovery (algorithm 1). The virtual template is Oobleck's best for the virtual cluster (stages of
// up to M virtual GPUs, fixed). From the strongest type to the weakest, each GPU batch goes to the largest
// unassigned stage (most virtual GPUs, the paper's "largest remaining stages"), ties to the one where it
// lowers T most (try_assign; unassigned stages count at their virtual time). Stage j takes ceil(g_j / d_i)
// GPUs of type i, or (decision) the fewest more, up to a node, on which it fits memory. Stages no type can
// take (GPUs exhausted or memory) leave the template unrecovered.
#include "folding.h"

#include <vector>

namespace hetplan {

struct RecoveryOptions {
    int beam = 64;        // states kept per cell (1 = the paper's table)
    bool anyMerge = true; // choices (i, x, y) for every y, not only ((x - 1) r d_i, x r d_i]
    int granularity = 1;  // r: virtual devices per weakest GPU
    // The published algorithm: choices y = x r d_i exactly, cells ranked by their own cost (eq. 7) rather
    // than cost plus the bound for the stages in front.
    bool paper = false;
};

// `progress` (may be null) is polled as the cells are filled (a wide beam takes seconds); a stop throws
// CancelledError.
std::vector<TemplateStage> recoverDp(const StageCosts& costs, const Folding& folding, const std::vector<int>& available,
                                     const std::vector<int>& virtualBounds, const RecoveryOptions& options,
                                     const Progress* progress = nullptr);

std::vector<TemplateStage> recoverGreedy(const StageCosts& costs, const Folding& folding,
                                         const std::vector<int>& available,
                                         const std::vector<TemplateStage>& virtualStages);

} // namespace hetplan
