#include "theory.h"

namespace hetplan::hap {

std::string toString(Form f)
{
    if (f.isIdentity())
        return "Identity";
    if (f.isPartial())
        return "All-Reduce";
    return "All-Gather(" + std::to_string(f.dim()) + ")";
}

bool ruleFor(const Op& op, char label, Rule& r)
{
    r = Rule{};
    r.label = label;
    const size_t n = op.inputs.size();
    if (label == kReplicated) {
        r.in.assign(n, Form::identity());
        r.grad.assign(n, Form::identity());
        r.out = Form::identity();
        return true;
    }
    if (label == kLinear) {
        if (!op.linear)
            return false;
        r.in.assign(n, Form::partial());
        r.grad.assign(n, Form::identity());
        r.out = Form::partial();
        return true;
    }
    if (op.fixed.find(label) != std::string::npos || op.labels().find(label) == std::string::npos)
        return false;
    for (size_t q = 0; q < n; ++q) {
        const size_t pos = op.inLabels[q].find(label);
        r.in.push_back(pos == std::string::npos ? Form::identity() : Form::sharded(int(pos)));
        r.grad.push_back(pos == std::string::npos ? Form::partial() : Form::sharded(int(pos)));
    }
    const size_t pos = op.outLabels.find(label);
    r.out = pos == std::string::npos ? Form::partial() : Form::sharded(int(pos));
    r.scales = op.noScale.find(label) == std::string::npos;
    return true;
}

std::vector<Rule> rulesFor(const Op& op)
{
    std::vector<Rule> out;
    Rule r;
    for (char c : op.labels())
        if (ruleFor(op, c, r))
            out.push_back(r);
    if (ruleFor(op, kReplicated, r))
        out.push_back(r);
    if (ruleFor(op, kLinear, r))
        out.push_back(r);
    return out;
}

std::vector<SpmdCollective> conversions(Form from, Form to)
{
    using C = SpmdCollective;
    if (from == to)
        return {};
    if (from.isPartial() && to.isIdentity())
        return {C::AllReduce};
    if (from.isPartial() && to.isSharded())
        return {C::ReduceScatter};
    if (from.isSharded() && to.isIdentity())
        return {C::AllGather, C::GroupedBroadcast};
    if (from.isSharded() && to.isSharded())
        return {C::AllToAll};
    if (from.isIdentity() && to.isSharded())
        return {C::Slice};
    return {};
}

bool applyCollective(SpmdCollective c, Form from, int dim, Form& out)
{
    using C = SpmdCollective;
    switch (c) {
    case C::AllReduce: out = Form::identity(); return from.isPartial();
    case C::ReduceScatter: out = Form::sharded(dim); return from.isPartial();
    case C::AllGather:
    case C::GroupedBroadcast: out = Form::identity(); return from.isSharded();
    case C::AllToAll: out = Form::sharded(dim); return from.isSharded() && from.dim() != dim;
    case C::Slice: out = Form::sharded(dim); return from.isIdentity();
    case C::Rebalance: out = from; return from.isSharded();
    }
    return false;
}

namespace {

std::string prop(const TensorGraph& g, int t, Form f) { return g.tensors[t].name + " | " + toString(f); }

void collectiveTriples(const TensorGraph& g, int t, std::vector<HoareTriple>& out)
{
    const int rank = int(g.tensors[t].shape.size());
    std::vector<Form> forms = {Form::identity(), Form::partial()};
    for (int d = 0; d < rank; ++d)
        forms.push_back(Form::sharded(d));
    for (Form from : forms)
        for (Form to : forms)
            for (SpmdCollective c : conversions(from, to))
                out.push_back({{prop(g, t, from)}, toString(c) + "(" + g.tensors[t].name + ")", {prop(g, t, to)}});
}

} // namespace

std::vector<HoareTriple> deriveTheory(const TensorGraph& g)
{
    std::vector<HoareTriple> out;
    for (int i = 0; i < g.forwardOps; ++i) {
        const Op& op = g.ops[i];
        const int rank = int(g.tensors[op.output].shape.size());
        if (op.isLeaf()) {
            const std::string load = op.kind == OpKind::Placeholder ? "Placeholder" : "Parameter";
            out.push_back({{}, load + "()", {prop(g, op.output, Form::identity())}});
            for (int d = 0; d < rank; ++d)
                out.push_back({{}, load + "-Shard(" + std::to_string(d) + ")", {prop(g, op.output, Form::sharded(d))}});
            continue;
        }
        for (const Rule& r : rulesFor(op)) {
            HoareTriple h;
            for (size_t q = 0; q < op.inputs.size(); ++q)
                h.pre.push_back(prop(g, op.inputs[q], r.in[q]));
            h.instruction = toString(op.kind) + "(" + op.name + ")";
            h.post.push_back(prop(g, op.output, r.out));
            out.push_back(h);
        }
        collectiveTriples(g, op.output, out);
    }
    return out;
}

} // namespace hetplan::hap
