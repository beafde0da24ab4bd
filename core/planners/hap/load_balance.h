#pragma once
// HAP's load balancer (section 5): the optimal sharding ratios for a fixed program as a linear program
// (eq. 3, one ratio vector per segment, section 5.2), solved with COIN-OR CLP; integer shard sizes
// (section 5.1); and the alternating optimization of section 3.1.
#include "synthesis.h"

#include <functional>
#include <vector>

namespace hetplan::hap {

struct Ratios {
    std::vector<std::vector<double>> perGpu; // [segment][class]: share of one GPU of the class
    double seconds = 0;                      // t(Q, B) at these ratios
};

// min_B Σ stages (comm(max_c B) + max_c comp_c(B_c)) subject to Σ_c gpus_c · B_c = 1 and B ≥ 0 per
// segment. Throws std::runtime_error if the solver fails.
Ratios optimalRatios(const CostTerms& terms, const std::vector<DeviceClass>& classes, int segments);

// Ratios proportional to the classes' compute speed (the starting point B(0), and DP-CP's ratios).
std::vector<double> proportionalRatios(const std::vector<DeviceClass>& classes);

// Section 5.1: integer shard sizes of a dimension of `length` from per-shard ratios (Σ ratios = 1): the
// nearest integers, then ±1 on the shards with the smallest rounding error until they sum to `length`.
std::vector<long long> roundShards(const std::vector<double>& ratios, long long length);

struct BalancedProgram {
    Program program;
    Ratios ratios;
    int rounds = 0;            // synthesize + balance rounds run
    std::string stoppedBy;     // "converged", "oscillation", "round limit"
    std::vector<double> trace; // t(Q, B) after each round
};

// Section 3.1: B(0) proportional to compute, then Q(s) = argmin_Q t(Q, B(s-1)) and B(s) = argmin_B t(Q(s), B)
// until B repeats (convergence), a program repeats (oscillation) or `maxRounds`; returns the best pair.
// `stop` is passed to the synthesizer; a stop keeps the best pair found so far.
BalancedProgram optimize(SynthesisContext ctx, int maxRounds, const std::function<bool()>& stop = {},
                         SynthesisStats* stats = nullptr);

} // namespace hetplan::hap
