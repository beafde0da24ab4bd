#pragma once
// What crosses a pipeline stage boundary per tensor-parallel rank, by training framework (Job::framework,
// Job::sequenceParallel). Shared by the simulator; docs/architecture.md ("Pipeline boundary sends") says
// why each framework sends what.
//
// With `fullBytes` the boundary tensor one tensor-parallel group hands to the next (s·b·h values of the
// micro-batch share, at the job's activation width) and tp the sending stage's tensor-parallel degree:
// - megatron-core without sequence parallelism: every tp rank sends all of it (its copy is replicated
//   across the group), so a boundary moves tp × fullBytes;
// - megatron-core or megatron-legacy with sequence parallelism: the boundary tensor is already split along
//   the sequence, (s/tp, b, h) per rank, and the next stage's first layer works on that split: fullBytes / tp
//   per rank, nothing to gather (legacy Megatron turns its scatter/gather off under sequence parallelism);
// - megatron-legacy (scatter_gather_tensors_in_pipeline, on by default; Megatron-DeepSpeed too) and
//   deepspeed-pipe (pipe_partitioned / grad_partitioned, on by default): each rank sends its 1/tp slice
//   of the flattened tensor, and the receiving tensor-parallel group all-gathers the full tensor inside
//   its node before using it (activations forward, gradients backward alike).
// A sending stage with tp 1 always sends the full tensor.
#include "collectives.h"

#include "core/model/job.h"

namespace hetplan {

struct BoundaryTraffic {
    double bytesPerRank = 0; // each tensor-parallel rank of the sending stage sends this to its peer
    int gatherRanks = 1;     // > 1: the receiving tensor-parallel group all-gathers gatherBytes over these ranks
    double gatherBytes = 0;  // the full tensor each receiving rank ends up with (ringAllGather's `bytes`)
};

// `moeModel`: the model has MoE blocks (Megatron-core then runs sequence parallelism under tp > 1).
BoundaryTraffic boundaryTraffic(const Job& job, double fullBytes, int senderTp, int receiverTp, bool moeModel = false);

// The receiver's all-gather (0 when there is none), priced as a ring over its tensor-parallel group's link.
double boundaryGatherSeconds(const BoundaryTraffic& t, LinkParams receiverGroupLink);

} // namespace hetplan
