#pragma once
// Poplar's algorithm 2 (optimal batch size searching) on the speed curves. Readings chosen where the paper
// is ambiguous (its pseudo-code is not executable as printed):
//
// ZeRO-0/1 (no collective until the last backward, so each GPU may accumulate on its own):
//   speed_i = the peak of its curve over b ≤ mbs_i, reached at b*_i; time_opt = gbs / Σ speed_i;
//   gmbs_i = ⌊time_opt · speed_i⌋ samples per iteration, run as micro-batches of b*_i and a last
//   micro-batch (lbs) of the rest. The printed lines 9-10 make u_i = time_opt for every GPU, which decides
//   nothing; we read eq. 2-3 as intended: each remaining sample (fewer than n remain after the floors) goes
//   to the GPU that is least loaded after taking it, i.e. whose compute time t_i(gmbs_i + 1) is smallest,
//   ties to the faster GPU (larger p_i, the weight in eq. 3). This is the greedy that minimises T = max t_i.
//
// ZeRO-2/3 (collectives every micro-step, all GPUs in lock-step):
//   t ranges over every distinct step time T_i(b), b ≤ mbs_i, no smaller than max_i T_i(1) (so every GPU
//   gets at least one sample per step, which DeepSpeed needs: see common/zero_batches.h); find(g_i, t) is
//   the largest b whose step takes at most t; micro_batch_size = Σ b_i; gas = ⌈gbs / micro_batch_size⌉.
//   The paper's wall time (t + time_communication) · gas is refined to what the run does: gas − 1 full
//   steps of max_i T_i(b_i), one last step carrying the remainder (spread so the slowest last micro-step is
//   shortest), time_communication after every step, plus the once-per-iteration collectives. Candidates
//   are ranked by this estimate; the best one whose batches split the global batch exactly (with equal
//   steps) wins.
#include "speed_curve.h"

#include "core/cost/zero_comm.h"

#include <vector>

namespace hetplan::poplar {

struct Allocation {
    std::vector<ZeroGpu> gpus; // dense GPU order
    double seconds = 0;        // Poplar's own estimate of the iteration
    long long candidates = 0;  // t values (ZeRO-2/3) or GPUs (ZeRO-0/1) considered
    double stepLimit = 0;      // ZeRO-2/3: the chosen t
    int accumulation = 0;      // ZeRO-2/3: gas
};

// `curves[k]` belongs to `devices[k]`.
Allocation allocateByPeakSpeed(const std::vector<DeviceProfile>& devices, const std::vector<SpeedCurve>& curves,
                               int globalBatch, const ZeroCollectiveSeconds& comm);
Allocation searchWallTime(const std::vector<DeviceProfile>& devices, const std::vector<SpeedCurve>& curves,
                          int globalBatch, const ZeroCollectiveSeconds& comm);

} // namespace hetplan::poplar
