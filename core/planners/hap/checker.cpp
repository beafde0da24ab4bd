// The independent checker: its own semantics of ops (from their labels) and collectives, not the rule table
// the synthesizer searched with.
#include "program.h"

#include <map>
#include <set>

namespace hetplan::hap {

namespace {

using Kind = Instruction::Kind;

// What an op computes from inputs in `in` when it shards `label`; false with a reason when it is unsound.
bool derive(const Op& op, char label, const std::vector<Form>& in, Form& out, std::string& why)
{
    auto all = [&](Form f) {
        for (Form x : in)
            if (!(x == f))
                return false;
        return true;
    };
    if (label == kReplicated) {
        out = Form::identity();
        why = "replicated compute needs replicated inputs";
        return all(Form::identity());
    }
    if (label == kLinear) {
        out = Form::partial();
        why = "only a linear op sums partial inputs";
        return op.linear && all(Form::partial());
    }
    if (op.fixed.find(label) != std::string::npos || op.labels().find(label) == std::string::npos) {
        why = std::string("label '") + label + "' cannot be sharded";
        return false;
    }
    for (size_t q = 0; q < in.size(); ++q) {
        const size_t pos = op.inLabels[q].find(label);
        const Form need = pos == std::string::npos ? Form::identity() : Form::sharded(int(pos));
        if (!(in[q] == need)) {
            why = "input " + std::to_string(q) + " must be " + toString(need);
            return false;
        }
    }
    const size_t pos = op.outLabels.find(label);
    out = pos == std::string::npos ? Form::partial() : Form::sharded(int(pos));
    return true;
}

bool collectiveResult(SpmdCollective c, Form from, Form to)
{
    using C = SpmdCollective;
    switch (c) {
    case C::AllReduce: return from.isPartial() && to.isIdentity();
    case C::ReduceScatter: return from.isPartial() && to.isSharded();
    case C::AllGather:
    case C::GroupedBroadcast: return from.isSharded() && to.isIdentity();
    case C::AllToAll: return from.isSharded() && to.isSharded() && from.dim() != to.dim();
    case C::Slice: return from.isIdentity() && to.isSharded();
    case C::Rebalance: return from.isSharded() && from == to;
    }
    return false;
}

std::string at(size_t i, const TensorGraph& g, const Instruction& ins)
{
    return "instruction " + std::to_string(i) + " (" + describe(g, ins) + "): ";
}

} // namespace

CheckResult checkProgram(const TensorGraph& g, const std::vector<Instruction>& program)
{
    std::set<std::pair<int, int>> avail; // (tensor, form code)
    std::map<int, Form> paramForm;
    auto fail = [](std::string e) { return CheckResult{false, std::move(e)}; };
    for (size_t i = 0; i < program.size(); ++i) {
        const Instruction& ins = program[i];
        if (ins.tensor < 0 || ins.tensor >= int(g.tensors.size()))
            return fail("instruction " + std::to_string(i) + ": no such tensor");
        const int rank = int(g.tensors[ins.tensor].shape.size());
        if (ins.kind == Kind::Load) {
            const Op& op = g.ops[ins.op];
            const bool seed = op.kind == OpKind::Grad && op.inputs.empty();
            if (!op.isLeaf() && !seed)
                return fail(at(i, g, ins) + "only inputs, parameters and the loss seed are loaded");
            if (ins.out.isPartial() || (ins.out.isSharded() && ins.out.dim() >= rank) ||
                (seed && !ins.out.isIdentity()))
                return fail(at(i, g, ins) + "a load gives a replicated or sharded tensor");
            if (op.kind == OpKind::Parameter)
                paramForm[ins.tensor] = ins.out;
        } else if (ins.kind == Kind::Compute) {
            const Op& op = g.ops[ins.op];
            if (op.isLeaf() || op.output != ins.tensor || op.inputs.size() != ins.in.size())
                return fail(at(i, g, ins) + "not an op of the graph");
            for (size_t q = 0; q < op.inputs.size(); ++q)
                if (!avail.count({op.inputs[q], ins.in[q].code}))
                    return fail(at(i, g, ins) + g.tensors[op.inputs[q]].name + " | " + toString(ins.in[q]) +
                                " does not hold");
            Form out;
            std::string why;
            if (!derive(op, ins.label, ins.in, out, why))
                return fail(at(i, g, ins) + why);
            if (!(out == ins.out))
                return fail(at(i, g, ins) + "gives " + toString(out) + ", not " + toString(ins.out));
        } else {
            if (!avail.count({ins.tensor, ins.from.code}))
                return fail(at(i, g, ins) + "its input does not hold");
            const bool ok = ins.rebalance ? (ins.from == ins.out && ins.from.isSharded())
                                          : collectiveResult(ins.collective, ins.from, ins.out);
            if (!ok || (ins.out.isSharded() && ins.out.dim() >= rank))
                return fail(at(i, g, ins) + "the collective does not give that form");
        }
        avail.insert({ins.tensor, ins.out.code});
    }
    if (!avail.count({g.loss, Form::partial().code}))
        return fail("the program does not reach loss | All-Reduce");
    for (int p : g.parameters()) {
        const auto grad = g.paramGrad.find(p);
        if (grad == g.paramGrad.end())
            continue;
        const auto form = paramForm.find(p);
        if (form == paramForm.end())
            return fail("parameter " + g.tensors[p].name + " is never loaded");
        if (!avail.count({grad->second, form->second.code}))
            return fail("the gradient of " + g.tensors[p].name + " is not " + toString(form->second) +
                        " like its parameter");
    }
    return {};
}

std::string describe(const TensorGraph& g, const Instruction& ins)
{
    const std::string name = g.tensors[ins.tensor].name;
    if (ins.kind == Kind::Collective)
        return name + " | " + toString(ins.out) + " = " + (ins.rebalance ? "Rebalance" : toString(ins.collective)) +
               "(" + name + " | " + toString(ins.from) + ")" + (ins.backward ? " [grad]" : "");
    if (ins.kind == Kind::Load) {
        const Op& op = g.ops[ins.op];
        const std::string what = op.kind == OpKind::Parameter ? "Parameter" : "Placeholder";
        return name + " = " + what + (ins.out.isSharded() ? "-Shard(" + std::to_string(ins.out.dim()) + ")" : "()");
    }
    const Op& op = g.ops[ins.op];
    std::string s = name + " | " + toString(ins.out) + " = " + toString(op.kind);
    s += ins.label == kReplicated ? "[replicated]"
         : ins.label == kLinear   ? "[sum]"
                                  : "[" + std::string(1, ins.label) + "]";
    s += "(";
    for (size_t q = 0; q < op.inputs.size(); ++q)
        s += (q ? ", " : "") + g.tensors[op.inputs[q]].name;
    return s + ")";
}

} // namespace hetplan::hap
