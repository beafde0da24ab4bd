#pragma once
// The optimal single pipeline over a heterogeneous cluster (Ditto section 3, the exhaustive extension of
// Oobleck's template generation): stages of contiguous layers, each on g GPUs of one device type
// (1 ≤ g ≤ a node's GPUs), at most the available GPUs of each type, minimising
// T = sum_s t_s + (N_b - 1) max_s t_s (stage_costs.h) subject to every stage fitting memory with its 1F1B
// in-flight micro-batches. GPUs may stay idle: a pipeline that leaves slow GPUs out can be faster.
//
// Formulation (exact, and fast where the paper's recursion over (s, k, x') is exponential in the types):
// a dynamic program over suffixes. State (u, y): layers [u, L) are placed on y = (y_1..y_m) GPUs per type.
// Each state keeps the Pareto set of labels (sum, max, k): the suffix's stage-time sum, its largest stage
// time and its stage count. Prepending a stage [u', u) on g GPUs of type i maps a label to
// (sum + t, max(max, t), k + 1) at state (u', y + g e_i); the stage must fit with min(k + 1, N_b)
// micro-batches in flight.
//
// Why it is exact. (1) T of a complete pipeline is non-decreasing in (sum, max), and prepending a stage
// maps (sum, max) monotonically. (2) Whether a stage fits depends on its layers, type, g and k + 1 only,
// and a stage that fits with more micro-batches in flight fits with fewer. (3) Which stages can still be
// prepended depends only on the state (u, y). So if label A ≤ B in sum, max and k at the same state, every
// completion of B is also a completion of A with a T no larger: dropping B loses no optimum. (4) Bound:
// prepending only grows sum and max, so a label whose sum + (N_b - 1) max already reaches the best T
// found cannot lead to a better pipeline; since a stage's time grows as it takes more layers (and its
// memory grows too), the loop over u' stops at the first such stage. Ties keep the label found first,
// so the result is deterministic.
//
// Size: states (L + 1) · prod_i (c_i + 1); the labels per state stay small because (N_b - 1) max
// dominates T. Ditto Ex3 (4 types, 22 GPUs, gpt2-xl's 50 layers) has 80 k states.
#include "core/planners/common/template_placement.h"
#include "core/planners/planner.h"

#include <vector>

namespace hetplan {

struct ExactResult {
    std::vector<TemplateStage> stages; // empty: nothing fits
    double objective = kNoStage;
    long long labels = 0; // labels created
    long long states = 0; // (u, y) states of the search space
    StopReason stopped = StopReason::None;
};

// `available[i]`: GPUs of type i the pipeline may use. `progress` may be null.
ExactResult exactPipeline(const StageCosts& costs, const std::vector<int>& available, const Job& job,
                          const Progress* progress);

// Search-space size (states) for `available`, to refuse clusters that are too large up front.
double exactStateCount(int layers, const std::vector<int>& available);

} // namespace hetplan
