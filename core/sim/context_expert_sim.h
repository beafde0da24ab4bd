#pragma once
// Context and expert parallelism inside a pipeline stage (internal to the simulator): what they add to a
// micro-batch's forward and backward, and what expert parallelism takes off a rank's parameters.
#include "pipeline_schedule.h"

namespace hetplan::simdetail {

// Seconds one micro-batch of chunk [first, end) adds on group g: the ring attention's exposed transfers
// (context parallelism), the MoE dispatch and combine all-to-alls (expert parallelism) and, with a padded
// capacity factor, the experts' extra (or spared) FLOP. Recomputation reruns the forward's transfers in the
// backward (full: the ring and the all-to-alls; selective: the attention core's ring). `mb`: the group's samples per rank as the compute
// sees them (micro-batch / dataParallel: a context-parallel rank's share of its samples' tokens).
struct ChunkExtra {
    OpComm forwardComm, backwardComm; // the ring's and the all-to-alls' exposed seconds
    double forwardCompute = 0, backwardCompute = 0; // the padded experts' extra FLOP (negative below 1)
};
ChunkExtra contextExpertSeconds(const Plan& plan, const CostModel& costs, const Group& g, int first, int end,
                                double mb);

// The experts' parameters in [first, end) one tensor-parallel rank holds before expert parallelism divides them.
double expertParamsPerRank(const ModelSpec& model, int first, int end, int tp);

// The parameters whose optimizer step one rank runs, counted so that optimizerSeconds(..., shards) divides
// them right: with expert parallelism a rank updates 1/ep of the experts, over dpShards / ep shards when the
// optimizer is distributed (which leaves expert / dpShards, as without it).
double optimizerParams(double params, double expertParams, int ep, bool sharded);

} // namespace hetplan::simdetail
