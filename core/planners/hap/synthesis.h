#pragma once
// HAP's program synthesizer (section 4): the A* search of fig. 10 over distributed programs, with the
// search-time optimizations of section 4.5, and an exhaustive search over the same program space (the
// test oracle).
//
// Program space (our canonical form, a decision written down here):
//  - compute instructions follow the single-device forward order; each is one rule instance of theory.h;
//  - Placeholder/Parameter loads are fused into their first consumer (4.5, first optimization): a leaf is
//    loaded in the form its first consumer needs, and never communicated (4.5, second optimization);
//  - a communication instruction on a tensor sits right before the compute that needs its result, and a
//    tensor is communicated at most once (4.5, second optimization: e | ¬Communicated);
//  - properties of tensors whose consumers have all run are dropped (4.5, third optimization), so two
//    partial programs that differ only in dead tensors share one property set and prune each other;
//  - the backward of each compute instruction uses the same rule (autograd of the distributed program);
//    a gradient contribution whose form differs from the form its producer's backward needs is converted
//    right after the consumer's backward, with the cheaper collective under the current ratios;
//  - ratio segments (section 5.2) are synchronisation points; every sharded tensor that crosses one is
//    re-balanced with an All-To-All, forward and backward.
// Cost t(Q, B) (section 3.2): the program splits into stages at each collective; a stage costs its
// collective (affine in the largest shard) plus the slowest device's compute, forward and backward groups
// counted separately. Dominance (fig. 10 lines 9-14) compares partial programs with the same property set
// and position, and their closed cost plus the worst per-device difference of their open compute groups, so
// pruning is exact and A* returns the same optimum as the exhaustive search.
#include "theory.h"

#include "core/cost/collectives.h"

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace hetplan::hap {

// GPUs of one device type (HAP's virtual devices, collapsed by symmetry: equal GPUs get equal ratios).
struct DeviceClass {
    std::string deviceType;
    int gpus = 1;
    double flopsRate = 1; // FLOP/s one GPU sustains
};

struct SynthesisContext {
    const TensorGraph* graph = nullptr;
    std::vector<DeviceClass> classes;
    std::vector<int> ratioSegmentOf;         // graph segment → ratio segment
    int ranks = 1;                           // GPUs in all
    LinkParams link;                         // ring bottleneck over all GPUs
    double valueBytes = 2;                   // bytes per tensor value (the job's precision)
    std::vector<std::vector<double>> ratios; // [ratio segment][class]: share of ONE GPU of the class
    // Dominance between partial programs with equal properties. Exact (tests): a program is dropped only
    // if another is no worse whatever follows (closed cost plus the worst per-device excess of its open
    // compute). Paper (default, fig. 10 as published): one program per property set, the cheaper by closed
    // cost plus its open groups' slowest device; much faster, may miss the optimum by a stage's imbalance.
    bool exactDominance = false;
    // Labels the search may shard (empty: all). "b" restricts programs to data parallelism (the DP baselines):
    // every op with one of these labels is sharded on it (no replicated compute), the rest may be replicated.
    std::string allowedLabels;
    // The most partial programs the A* search keeps (0 = no limit). At the limit the search stops: it
    // returns the best complete program found, or refuses (InputError "options", "max_states") without one.
    long long maxStates = 0;
    // Seconds per FLOP of one GPU of each class, [graph segment][class], forward and backward: the
    // layer-level cost model's rate (spmdSecondsPerFlop, what the simulator charges). Empty: 1 / flopsRate.
    std::vector<std::vector<double>> forwardSpf, backwardSpf;
    // Parameter gradients that need an All-Reduce are reduced as the simulator does: in DeepSpeed's buckets
    // of this many bytes after the backward (core/cost/gradient_reduction.h), so each costs its bandwidth
    // term where the program lists it, without synchronising the compute, and the ring's latency is paid
    // once per bucket at the end. Gradients move at gradientBytesPerValueByte × the tensor's bytes (fp32
    // for bf16). 0: one synchronous All-Reduce per tensor (the published cost model; tests).
    double bucketBytes = 0;
    double gradientBytesPerValueByte = 1;
    // Memory pruning: a partial program whose replicated bytes (replicated parameters at
    // stateBytesPerValueByte, replicated forward outputs at activationScale[graph segment]) exceed this
    // (the smallest GPU's usable memory) is dropped, since no ratios can make it fit. +inf: no pruning.
    double replicatedCapBytes = std::numeric_limits<double>::infinity();
    double stateBytesPerValueByte = 1;
    std::vector<double> activationScale; // [graph segment]; empty: 1
    int ratioSegments() const { return int(ratios.size()); }
};

struct Conversion {
    int tensor = -1; // forward: the tensor converted; backward: the tensor whose gradient is converted
    Form from, to;
    SpmdCollective collective = SpmdCollective::AllReduce;
};

// One forward compute instruction with its fused loads and its communications.
struct Step {
    int op = -1;
    char label = kReplicated;                // the rule
    std::vector<std::pair<int, Form>> loads; // leaves loaded by this step
    std::vector<Conversion> forward;         // before the compute
    std::vector<Conversion> backward;        // after the compute's backward
    std::vector<Conversion> rebalance;       // segment boundary after this step (All-To-All, both passes)
};

struct Program {
    std::vector<Step> steps;
    double cost = 0; // t(Q, B) under the ratios it was synthesized for
};

struct SynthesisStats {
    long long expanded = 0, generated = 0, pruned = 0;
};

// The affine pieces of t(Q, B) for the load balancer: per stage, the slowest device's compute (α_c·B_c + β_c
// per class) and the collective (fixed + perMaxShare · max_c B_c), each in one ratio segment.
struct CostTerms {
    struct Group {
        int segment = 0;
        std::vector<double> alpha, beta;
    };
    struct Comm {
        int segment = 0;
        AffineCost cost;
        int fromSegment = -1; // a re-balance: the cost is affine in max_c |B[from][c] - B[segment][c]|
    };
    std::vector<Group> groups;
    std::vector<Comm> comms;
    double evaluate(const std::vector<std::vector<double>>& ratios) const;
};

// Fig. 10: the cheapest complete program under ctx.ratios. `stop` is polled (true = give up: returns the
// best complete program found so far, or an empty program). Throws InfeasibleError when no program exists.
Program synthesize(const SynthesisContext& ctx, SynthesisStats* stats = nullptr,
                   const std::function<bool()>& stop = {});
// The oracle: every program of the same space, the cheapest (tests only: exponential).
Program exhaustiveSearch(const SynthesisContext& ctx, long long* programs = nullptr);
// t(Q, B) as affine terms (replays the program's steps).
CostTerms costTerms(const SynthesisContext& ctx, const Program& program);

} // namespace hetplan::hap
