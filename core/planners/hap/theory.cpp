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

} // namespace hetplan::hap
