#pragma once
// Internals of the synthesizer shared by the A* search, the exhaustive oracle and the cost replay.
#include "synthesis.h"

#include <array>
#include <cstdint>

namespace hetplan::hap::detail {

// A property as one sorted integer: tensor << 6 | code. Codes: a form (0..15), kCommunicated, or
// kTarget + form (the form the tensor's gradient must reach: its producer's dual, or a parameter's form).
constexpr uint32_t kCommunicated = 16;
constexpr uint32_t kTarget = 32;
inline uint32_t key(int t, uint32_t code) { return uint32_t(t) << 6 | code; }
inline int tensorOf(uint32_t k) { return int(k >> 6); }
inline uint32_t codeOf(uint32_t k) { return k & 63u; }

constexpr int kMaxClasses = 8; // device types per cluster the synthesizer handles
// An open compute group: alpha[C] (seconds per unit of ratio) then beta[C] (fixed seconds), per class.
using Group = std::array<double, 2 * kMaxClasses>;

struct State {
    int pos = 0;                 // next position in Prepared::order
    std::vector<uint32_t> props; // sorted
    Group f{}, g{};              // open forward / backward compute groups
    double closed = 0;
    double gradBytes = 0;       // parameter gradients reduced in buckets after the backward (bytes moved)
    double replicated = 0;      // bytes every GPU holds whatever its ratios (memory pruning)
    int parent = -1, step = -1; // search bookkeeping
};

struct Prepared {
    const SynthesisContext& ctx;
    const TensorGraph& g;
    int classes = 0;
    std::vector<int> order;                    // non-leaf forward ops
    std::vector<int> lastUse;                  // per tensor: last forward consumer (-1 none)
    std::vector<bool> needsGrad;               // per tensor
    std::vector<std::vector<Rule>> rules;      // per position
    std::vector<double> gradFlops, accFlops;   // per op: its Grad ops, its dy accumulations
    std::vector<std::vector<double>> lbF, lbG; // [pos][class]: lower bound of the remaining compute
    explicit Prepared(const SynthesisContext& c);
    int segment(int op) const { return ctx.ratioSegmentOf[g.ops[op].segment]; }
    double bytes(int t) const { return g.tensors[t].elements() * ctx.valueBytes; }
    double maxShare(int seg) const;
    AffineCost comm(SpmdCollective c, int t) const;
    // Seconds per FLOP of class k on ops of graph segment `graphSegment`.
    double spf(int graphSegment, int k, bool backward) const;
    double activationScale(int graphSegment) const;
    bool isParameter(int t) const;
};

bool has(const std::vector<uint32_t>& props, uint32_t k);
void insert(std::vector<uint32_t>& props, uint32_t k);
// The forms (codes < 16) tensor t has.
struct Forms {
    std::array<Form, 4> form{};
    int count = 0;
    const Form* begin() const { return form.data(); }
    const Form* end() const { return form.data() + count; }
};
Forms formsOf(const std::vector<uint32_t>& props, int t);
bool targetOf(const std::vector<uint32_t>& props, int t, Form& out);

// Every step the rules allow from state s (each with its rule index in Prepared::rules[s.pos]).
std::vector<std::pair<Step, int>> successors(const Prepared& p, const State& s);
// Applies a step: the new state, its cost, and (with terms) the affine cost pieces it closes.
State advance(const Prepared& p, const State& s, Step& st, const Rule& r, CostTerms* terms);
// Is s complete (all ops placed, loss | All-Reduce)?
bool complete(const Prepared& p, const State& s);
State initialState(const Prepared& p);

} // namespace hetplan::hap::detail
