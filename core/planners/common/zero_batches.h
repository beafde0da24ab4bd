#pragma once
// Helpers shared by the ZeRO data-parallel planners (poplar, whale, deepspeed-zero): the memory model as an
// out-of-memory oracle, GPUs grouped by device type, and the two ways a per-GPU batch becomes a ZeroGpu.
//
// Equal accumulation steps. In ZeRO-2/3 DeepSpeed reduces gradients inside every backward pass (and ZeRO-3
// gathers weights around every forward and backward), so every rank must run the same number of micro-steps
// or the collectives hang. Plans for stage ≥ 2 therefore give every GPU `gas` steps with at least one sample
// in each: micro-batch m_i in the first gas-1 steps and a last micro-batch in [1, m_i]. Such a split of the
// global batch exists iff (gas-1)·Σm_i + n ≤ gbs ≤ gas·Σm_i (n GPUs, each needs ≥1 sample in the last step).
#include "core/cost/costmodel.h"
#include "core/model/cluster.h"
#include "core/model/plan.h"

#include <functional>
#include <string>
#include <vector>

namespace hetplan {

// The GPUs of one device type, in dense index order.
struct DeviceGroup {
    std::string device;
    std::vector<int> gpus;
    Node node; // the group's node with the least usable memory: a batch sized for the type must fit there
};
std::vector<DeviceGroup> groupByDevice(const Cluster& cluster, const CostModel& costs);

// Peak memory of one GPU holding the whole model under ZeRO `stage` sharded over `ranks` GPUs, running
// micro-batches of `microBatch` samples (one in flight), and whether it fits `device` (the shared rule).
double zeroPeakMemory(const ModelSpec& model, const Job& job, int stage, int ranks, int microBatch);
bool zeroFits(const CostModel& costs, const ModelSpec& model, const Job& job, int stage, int ranks, const Node& node,
              int microBatch);

// The largest micro-batch in [1, cap] that fits (exponential then binary search on the oracle); 0 when not
// even one sample fits.
int largestFittingMicroBatch(const CostModel& costs, const ModelSpec& model, const Job& job, int stage, int ranks,
                             const Node& node, int cap);

// `total` samples on one GPU in steps of at most `cap` samples, split as evenly as the format allows:
// steps = ceil(total/cap), micro = ceil(total/steps), last = total - (steps-1)·micro. 0 samples: no steps.
ZeroGpu evenSteps(int gpu, int total, int cap);

// Seconds one GPU takes for one micro-step of `microBatch` samples (planner-side model).
using StepTime = std::function<double(int gpu, int microBatch)>;

// ZeRO-2/3 shape: every GPU runs `gas` steps. Given the wanted micro-batches m (≥ 1 each), shrinks them
// (one sample at a time from the GPU with the slowest step) until a split exists, then spreads the last
// step's remainder so the slowest last micro-step is as short as possible. Returns an empty vector when the
// global batch is smaller than the GPU count or no split exists.
std::vector<ZeroGpu> equalStepsSplit(const std::vector<int>& gpus, std::vector<int> micro, int globalBatch,
                                     const StepTime& stepTime);

} // namespace hetplan
