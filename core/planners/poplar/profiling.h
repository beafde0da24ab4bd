#pragma once
// Poplar's online profiling (algorithm 1), run against our models instead of the GPUs: the memory model
// is the out-of-memory oracle and the cost model (measured profile first, analytic otherwise) gives the
// time of one training step at each batch size tried.
//
// Per device type (GPUs of one type are identical in a cluster description, so "each GPU in parallel" is
// one run per type), at the ZeRO stage being tried:
//   1. Estimate: bf = memory before the forward (model states), af = after a forward of one sample;
//      mbs_est = (capacity − bf) / (af − bf). This is the theoretical maximum (it ignores the runtime
//      reserve), the search below corrects it.
//   2. Doubling: run 1, 2, 4, ... until a size does not fit or mbs_est is reached (mbs_est itself is run as
//      the last size); when mbs_est still fits, keep doubling past it (the estimate assumes memory linear in
//      the batch). Sizes never exceed the global batch.
//   3. Binary search between the last size that fit and the first that did not.
// Every size run records its compute time: TimeConsumedDuringStep is forward + backward of one micro-batch,
// communication excluded (what the paper subtracts in ZeRO-2/3, and what it measures in ZeRO-0/1).
// When one sample does not fit some device type at a stage, the whole job moves to the next stage, as the
// paper does (the stage is one setting for all GPUs), and the reason is kept for the plan.
#include "core/cost/costmodel.h"
#include "core/planners/common/zero_batches.h"
#include "core/planners/planner.h"

#include <string>
#include <vector>

namespace hetplan::poplar {

struct ProfiledPoint {
    int microBatch = 0;
    double seconds = 0; // forward + backward of one micro-batch on one GPU
};

struct DeviceProfile {
    std::string device;
    Node node; // the type's node with the least usable memory: the memory oracle's limit
    std::vector<int> gpus;
    int estimatedMax = 0;              // step 1
    int maxMicroBatch = 0;             // mbs after steps 2-3; 0 when one sample does not fit
    std::vector<ProfiledPoint> points; // sizes run that fit, ascending
    std::vector<int> outOfMemory;      // sizes run that did not fit, ascending
    int runs = 0;                      // model steps run (fitting or not)
};

struct ProfilingResult {
    int requestedStage = 0;
    int stage = 0;                        // the stage every device type fits at
    std::vector<std::string> escalations; // one line per stage given up, with the reason
    std::vector<DeviceProfile> devices;
};

// Algorithm 1 for one device type at one stage, sharded over `ranks` GPUs, sizes capped at `cap`.
DeviceProfile profileDevice(const CostModel& costs, const Job& job, int stage, int ranks, const DeviceGroup& group,
                            int cap);

// Algorithm 1 for every device type of the cluster, from the job's ZeRO stage up (when `escalate`).
// Throws InfeasibleError when one sample does not fit even at ZeRO-3 (or at the job's stage without
// escalation).
ProfilingResult profileCluster(const PlanRequest& req, const CostModel& costs, bool escalate, Progress& progress);

} // namespace hetplan::poplar
