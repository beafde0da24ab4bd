// Lowering a synthesized program (forward steps) to the complete forward + backward instruction list.
#include "program.h"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

namespace hetplan::hap {

namespace {

using Kind = Instruction::Kind;

Instruction collective(const Conversion& c, int tensor, bool backward, int seg)
{
    Instruction i;
    i.kind = Kind::Collective;
    i.tensor = tensor;
    i.from = c.from;
    i.out = c.to;
    i.collective = c.collective;
    i.backward = backward;
    i.segment = seg;
    return i;
}

void lowerForward(const SynthesisContext& ctx, const Step& st, const Rule& r, int next, std::vector<Instruction>& out)
{
    const TensorGraph& g = *ctx.graph;
    const int seg = ctx.ratioSegmentOf[g.ops[st.op].segment];
    for (const Conversion& c : st.forward)
        out.push_back(collective(c, c.tensor, false, seg));
    for (const auto& [e, f] : st.loads)
        out.push_back({Kind::Load, g.tensors[e].producer, e, kReplicated, {}, {}, f, {}, false, false, seg});
    out.push_back({Kind::Compute, st.op, g.ops[st.op].output, r.label, r.in, {}, r.out, {}, false, false, seg});
    for (const Conversion& c : st.rebalance) {
        Instruction i = collective(c, c.tensor, false, next);
        i.rebalance = true;
        i.fromSegment = seg;
        out.push_back(i);
    }
}

// The form a backward op's input takes: dy in the dual of the forward output's form, a forward tensor in
// the form the forward instruction used.
Form backwardInputForm(const Op& fwd, const Rule& r, const Op& b, size_t k, const TensorGraph& g)
{
    if (k == 0 || b.gradInput < 0)
        return r.out.dual();
    const int t = b.inputs[k];
    for (size_t q = 0; q < fwd.inputs.size(); ++q)
        if (fwd.inputs[q] == t)
            return r.in[q];
    throw std::logic_error("hap: backward input " + g.tensors[t].name + " not an input of " + fwd.name);
}

char accumulationLabel(Form f) { return f.isSharded() ? char('A' + f.dim()) : kReplicated; }

void lowerBackward(const SynthesisContext& ctx, const Step& st, const Rule& r, int next, std::vector<Instruction>& out)
{
    const TensorGraph& g = *ctx.graph;
    const Op& fwd = g.ops[st.op];
    const int seg = ctx.ratioSegmentOf[fwd.segment];
    for (const Conversion& c : st.rebalance) { // the gradients go back from the next segment's ratios
        Instruction i = collective(c, c.tensor, true, seg);
        i.rebalance = true;
        i.fromSegment = next;
        out.push_back(i);
    }
    for (int b : g.gradOpsOf(st.op)) {
        const Op& op = g.ops[b];
        if (op.isLeaf() || op.inputs.empty()) { // the loss seed dL/dL = 1
            out.push_back({Kind::Load, b, op.output, kReplicated, {}, {}, Form::identity(), {}, false, true, seg});
            continue;
        }
        // The backward of a sum of partial sums is replicated: dy is replicated, and so is every dx.
        const char label = r.label == kLinear ? kReplicated : r.label;
        Instruction i{Kind::Compute, b, op.output, label, {}, {}, {}, {}, false, true, seg};
        for (size_t k = 0; k < op.inputs.size(); ++k)
            i.in.push_back(backwardInputForm(fwd, r, op, k, g));
        if (op.gradInput >= 0) {
            i.out = r.grad[op.gradInput];
        } else {
            i.out = r.out.dual();
            i.label = accumulationLabel(i.out);
        }
        out.push_back(i);
    }
    for (const Conversion& c : st.backward)
        for (int b : g.gradOpsOf(st.op))
            if (g.ops[b].gradInput >= 0 && g.tensors[g.ops[b].output].gradOf == c.tensor)
                out.push_back(collective(c, g.ops[b].output, true, seg));
}

// Sums of parameter-gradient contributions (tied weights), after everything else.
void lowerParameterSums(const SynthesisContext& ctx, const std::vector<Instruction>& fwd, std::vector<Instruction>& out)
{
    const TensorGraph& g = *ctx.graph;
    std::unordered_map<int, Form> loaded; // tensor → the form of its first Load
    for (const Instruction& i : fwd)
        if (i.kind == Kind::Load)
            loaded.emplace(i.tensor, i.out);
    for (size_t b = g.forwardOps; b < g.ops.size(); ++b) {
        const Op& op = g.ops[b];
        if (op.forwardOp < 0 || !g.ops[op.forwardOp].isLeaf() || op.inputs.empty())
            continue;
        const auto load = loaded.find(g.ops[op.forwardOp].output);
        const Form f = load == loaded.end() ? Form::identity() : load->second;
        const int seg = ctx.ratioSegmentOf[op.segment];
        out.push_back({Kind::Compute,
                       int(b),
                       op.output,
                       accumulationLabel(f),
                       std::vector<Form>(op.inputs.size(), f),
                       {},
                       f,
                       {},
                       false,
                       true,
                       seg});
    }
}

} // namespace

std::vector<Instruction> lower(const SynthesisContext& ctx, const Program& program)
{
    std::vector<Instruction> out;
    const size_t n = program.steps.size();
    std::vector<Rule> rules(n);
    std::vector<int> next(n, 0); // ratio segment of the following step
    for (size_t s = 0; s < n; ++s)
        next[s] = ctx.ratioSegmentOf[ctx.graph->ops[program.steps[s + 1 < n ? s + 1 : s].op].segment];
    for (size_t s = 0; s < n; ++s) {
        if (!ruleFor(ctx.graph->ops[program.steps[s].op], program.steps[s].label, rules[s]))
            throw std::logic_error("hap: program step with an unknown rule");
        lowerForward(ctx, program.steps[s], rules[s], next[s], out);
    }
    const std::vector<Instruction> forward = out;
    for (size_t s = n; s-- > 0;)
        lowerBackward(ctx, program.steps[s], rules[s], next[s], out);
    lowerParameterSums(ctx, forward, out);
    return out;
}

} // namespace hetplan::hap
