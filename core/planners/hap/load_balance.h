#pragma once
// HAP's load balancer (section 5): the optimal sharding ratios for a fixed program as a linear program
// (eq. 3, one ratio vector per segment, section 5.2), solved with COIN-OR CLP; integer shard sizes
// (section 5.1); and the alternating optimization of section 3.1.
#include "synthesis.h"

#include "core/cost/spmd_costs.h"

#include <functional>
#include <vector>

namespace hetplan::hap {

struct Ratios {
    std::vector<std::vector<double>> perGpu; // [segment][class]: share of one GPU of the class
    double seconds = 0;                      // t(Q, B) at these ratios
    bool stopped = false;                    // the LP was stopped before its optimum (no ratios)
};

// Memory in the search: a program's per-GPU memory is affine in its ratios (SpmdMemoryTerms, the
// simulator's rule), so "every GPU fits" is one linear row per class of the LP. HAP's paper leaves memory
// out; we add it because compute-proportional shares overflow the fast GPUs (V100s take 1.7x a P100's
// samples in fp32, 6.7x in fp16) where even shares fit.
struct MemoryLimit {
    Job job;                      // precision and optimizer bytes (Megatron's bytes per parameter)
    std::vector<double> capacity; // [class] bytes a GPU has for states and activations (memory − overhead)
    // Headroom for section 5.1's rounding: a GPU's rounded share may exceed its LP share by up to this much
    // (1 / batch when the batch is the sharded dimension), so the LP keeps it free in every segment.
    double roundingSlack = 0;
    std::function<SpmdMemoryTerms(const SynthesisContext&, const Program&)> terms; // of a program
};

// min_B Σ stages (comm(max_c B) + max_c comp_c(B_c)) subject to Σ_c gpus_c · B_c = 1 and B ≥ 0 per
// segment, and with `memory`, fixed_c + Σ_k perShare_k · B_k,c ≤ capacity_c per class. Returns
// seconds = +inf when no ratios fit memory; throws InfeasibleError when the solver ends without an optimum
// otherwise (no plan for this input, not a fault).
// `stop` is polled before the solve and after every simplex iteration; when it says stop, the result is
// {stopped = true, seconds = +inf} (a large LP takes seconds, and a cancel must not wait for it).
Ratios optimalRatios(const CostTerms& terms, const std::vector<DeviceClass>& classes, int segments,
                     const SpmdMemoryTerms* memory = nullptr, const MemoryLimit* limit = nullptr,
                     const std::function<bool()>& stop = {});

// Ratios proportional to the classes' compute speed (the starting point B(0), and DP-CP's ratios).
std::vector<double> proportionalRatios(const std::vector<DeviceClass>& classes);

// Section 5.1: integer shard sizes of a dimension of `length` from per-shard ratios (Σ ratios = 1) by the
// largest remainder: each shard gets the floor of ratio × length, and the units left go one each to the
// shards with the largest fractional parts (ties to the lower index), so the sizes sum to `length` exactly
// and none is off its exact share by a unit or more. A shard with a positive ratio gets at least one unit
// whenever the length has a unit for every such shard (a GPU the ratios give work is not left idle by
// rounding); a shard with ratio 0 gets none. With fewer units than positive shards, the shards with the
// largest ratios get one unit each and the rest none.
std::vector<long long> roundShards(const std::vector<double>& ratios, long long length);

// Why the synthesize + balance loop ended: the ratios stopped changing, they came back to an earlier
// round's, the round limit, `stop` said so, or the ratios were given (no loop).
enum class LoopEnd { Converged, Oscillation, RoundLimit, Stopped, FixedRatios };
std::string toString(LoopEnd e); // the plan's hap.stopped_by: "converged", ..., "fixed ratios"

struct BalancedProgram {
    Program program;
    Ratios ratios;
    int rounds = 0; // synthesize + balance rounds run
    LoopEnd stoppedBy = LoopEnd::RoundLimit;
    std::vector<double> trace; // t(Q, B) after each round
};

// Section 3.1: B(0) proportional to compute, then Q(s) = argmin_Q t(Q, B(s-1)) and B(s) = argmin_B t(Q(s), B)
// until B repeats (convergence), a program repeats (oscillation) or `maxRounds`; returns the best pair.
// `stop` is passed to the synthesizer and the LP, and polled between them; once it says stop, no new LP
// starts and the best pair found so far is kept: the balanced pairs of earlier rounds, and the program the
// stopped round synthesized at the ratios it was synthesized for, when those fit memory.
// With `memory`, each round's ratios must fit it; a program for which no ratios fit is skipped, and when no
// round's program fits, the result has seconds = +inf (the caller reports no feasible plan).
// `onRound(s)` is called as round s (0-based) starts (progress reports).
// `start` (optional): the pair the loop starts from instead of compute-proportional ratios (the hap planner
// passes data parallelism at memory-capped proportional ratios, one ratio row): it is the first pair kept
// (when it fits `memory`) and its ratios are B(0), so the result is never worse than it under t(Q, B).
BalancedProgram optimize(SynthesisContext ctx, int maxRounds, const std::function<bool()>& stop = {},
                         SynthesisStats* stats = nullptr, const MemoryLimit* memory = nullptr,
                         const std::function<void(int)>& onRound = {}, const BalancedProgram* start = nullptr);

} // namespace hetplan::hap
