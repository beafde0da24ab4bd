#pragma once
// The ZeRO data-parallel baselines of the Poplar paper, as allocations any planner can build: DeepSpeed's
// one micro-batch for every GPU (the largest the tightest GPU fits), and Whale's batches proportional to
// each GPU's FLOP/s. The `deepspeed-zero` and `whale` planners return them; `poplar` also builds both at
// the stage it chose and keeps whichever simulates fastest, so it is never worse than the baselines its
// space contains.
#include "core/cost/costmodel.h"
#include "core/model/plan.h"
#include "core/planners/planner.h"

#include <string>
#include <vector>

namespace hetplan {

// Empty with `why` set when the global batch cannot be split that way or one sample does not fit.
std::vector<ZeroGpu> uniformZeroBatches(const PlanRequest& request, const CostModel& costs, int stage, std::string& why,
                                        Progress* progress = nullptr);

// Which FLOP/s Whale's shares follow: the fp32 rate (the Poplar paper's Whale baseline, and the default)
// or the dense 16-bit tensor peak.
enum class WhaleFlops { Fp32, Tensor };
std::vector<ZeroGpu> flopsProportionalBatches(const PlanRequest& request, const CostModel& costs, int stage,
                                              WhaleFlops flops, std::string& why, Progress* progress = nullptr);

} // namespace hetplan
