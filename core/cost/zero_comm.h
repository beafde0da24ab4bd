#pragma once
// The collectives of one ZeRO iteration as DeepSpeed runs them, shared by the simulator (which places them
// on the timeline) and the ZeRO planners (which count them in their own estimates). Ψ = parameter count.
//   ZeRO-0  all-reduce of the gradients after the last micro-step (2Ψ gradient bytes on the wire per rank);
//   ZeRO-1  reduce-scatter of the gradients after the last micro-step, optimizer step on the rank's shard,
//           all-gather of the updated parameters (Ψ + Ψ: 2Ψ, not the 3Ψ of an all-reduce plus a gather);
//   ZeRO-2  a reduce-scatter of the gradients in every micro-step's backward, the shard step, one
//           all-gather of the parameters at the end;
//   ZeRO-3  per micro-step an all-gather of the parameters before the forward, another before the
//           backward, a reduce-scatter of the gradients after it; the shard step; no final gather.
// Gradients travel in the precision they are reduced in: fp32 (4 bytes) for bf16 training (Megatron's
// default, gradients accumulated and reduced in fp32), the training precision otherwise. Parameters travel
// in the training precision.
#include "collectives.h"
#include "gradient_reduction.h"

#include "core/model/job.h"

namespace hetplan {

double gradientReduceBytesPerParam(const Job& job);

// Seconds of the gradient reduction of `params` parameters by `collective` (ringAllReduce or
// ringReduceScatter) in DeepSpeed's buckets (core/cost/gradient_reduction.h).
double gradientReduction(double (*collective)(double, int, LinkParams), double params, const Job& job, int ranks,
                         LinkParams link);

struct ZeroCollectiveSeconds {
    double perMicroStep = 0; // collectives every micro-step adds (ZeRO-2/3)
    double perIteration = 0; // collectives once per iteration
};

// Ring collectives over `ranks` GPUs on `link` for `params` parameters.
ZeroCollectiveSeconds zeroCollectiveSeconds(int stage, double params, const Job& job, int ranks, LinkParams link);

} // namespace hetplan
