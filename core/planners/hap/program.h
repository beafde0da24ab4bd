#pragma once
// The complete distributed program: the synthesized forward steps lowered to instructions, followed by the
// backward (each forward instruction's Grad ops under the same rule, gradient conversions, re-balancing),
// and an independent checker that replays it.
#include "synthesis.h"

#include <string>
#include <vector>

namespace hetplan::hap {

struct Instruction {
    enum class Kind { Load, Compute, Collective };
    Kind kind = Kind::Compute;
    int op = -1;              // Load/Compute: the graph op (a leaf, a forward op or a backward op)
    int tensor = -1;          // the tensor produced (Load/Compute) or communicated (Collective)
    char label = kReplicated; // Compute: the rule
    std::vector<Form> in;     // Compute: the forms of its inputs
    Form from, out;           // Collective: input and output form; Load/Compute: out
    SpmdCollective collective = SpmdCollective::AllReduce;
    bool rebalance = false; // a segment-boundary All-To-All (changes the ratios, not the form)
    bool backward = false;
    int segment = 0;      // ratio segment
    int fromSegment = -1; // rebalance: the segment whose ratios it leaves
};

std::vector<Instruction> lower(const SynthesisContext& ctx, const Program& program);
// One line of the program listing, e.g. "block0.q = MatMul[b](block0.ln1 | All-Gather(0), ...)".
std::string describe(const TensorGraph& g, const Instruction& ins);

struct CheckResult {
    bool ok = true;
    std::string error; // the first violation
};
// Replays `program` against the single-device graph with its own semantics of ops and collectives:
// every input is available in the claimed form, every output form follows from the op's labels, and at the
// end `loss | All-Reduce` holds and every parameter's gradient is in its parameter's form.
CheckResult checkProgram(const TensorGraph& g, const std::vector<Instruction>& program);

} // namespace hetplan::hap
