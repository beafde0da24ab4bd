// One step of the synthesizer: which instructions may follow a partial program, and what appending them
// costs. The A* search, the exhaustive oracle and the cost replay all go through these functions.
#include "synthesis_detail.h"

#include <algorithm>
#include <limits>

namespace hetplan::hap::detail {

Prepared::Prepared(const SynthesisContext& c) : ctx(c), g(*c.graph), classes(int(c.classes.size()))
{
    lastUse.assign(g.tensors.size(), -1);
    gradFlops.assign(g.ops.size(), 0);
    accFlops.assign(g.ops.size(), 0);
    needsGrad = requiresGrad(g);
    for (int i = 0; i < g.forwardOps; ++i) {
        for (int in : g.ops[i].inputs)
            lastUse[in] = std::max(lastUse[in], i);
        if (!g.ops[i].isLeaf()) {
            order.push_back(i);
            std::vector<Rule> rs = rulesFor(g.ops[i]);
            if (!ctx.allowedLabels.empty()) {
                // Data parallelism (PyTorch DDP): an op with the batch dimension runs on each GPU's own
                // samples; replicating it (full-batch compute after an All-Gather, i.e. sufficient factor
                // broadcasting) is HAP's choice, not DDP's.
                const bool batched = g.ops[i].labels().find_first_of(ctx.allowedLabels) != std::string::npos;
                std::erase_if(rs, [&](const Rule& r) {
                    if (r.label == kReplicated)
                        return batched;
                    return r.label != kLinear && ctx.allowedLabels.find(r.label) == std::string::npos;
                });
            }
            rules.push_back(std::move(rs));
        }
    }
    for (size_t i = g.forwardOps; i < g.ops.size(); ++i) {
        const Op& op = g.ops[i];
        if (op.forwardOp < 0 || g.ops[op.forwardOp].isLeaf())
            continue; // parameter-gradient sums: part of the optimizer step, not modelled
        (op.gradInput >= 0 ? gradFlops : accFlops)[op.forwardOp] += op.flops;
    }
    // Lower bounds: every remaining op at its cheapest rule, with infinite bandwidth (section 4.3).
    const int n = int(order.size());
    lbF.assign(n + 1, std::vector<double>(classes, 0));
    lbG = lbF;
    for (int pos = n - 1; pos >= 0; --pos) {
        const int op = order[pos];
        bool scalable = false;
        for (const Rule& r : rules[pos])
            scalable = scalable || r.scales;
        for (int k = 0; k < classes; ++k) {
            const double share = scalable ? std::min(1.0, ctx.ratios[segment(op)][k]) : 1.0;
            const int gs = g.ops[op].segment;
            lbF[pos][k] = lbF[pos + 1][k] + g.ops[op].flops * share * spf(gs, k, false);
            lbG[pos][k] = lbG[pos + 1][k] + (gradFlops[op] + accFlops[op]) * share * spf(gs, k, true);
        }
    }
}

double Prepared::maxShare(int seg) const
{
    double z = 0;
    for (double b : ctx.ratios[seg])
        z = std::max(z, b);
    return z;
}

double Prepared::spf(int graphSegment, int k, bool backward) const
{
    const auto& table = backward ? ctx.backwardSpf : ctx.forwardSpf;
    if (graphSegment >= 0 && graphSegment < int(table.size()))
        return table[size_t(graphSegment)][size_t(k)];
    return 1.0 / ctx.classes[size_t(k)].flopsRate;
}

double Prepared::activationScale(int graphSegment) const
{
    return graphSegment >= 0 && graphSegment < int(ctx.activationScale.size())
               ? ctx.activationScale[size_t(graphSegment)]
               : 1.0;
}

bool Prepared::isParameter(int t) const
{
    const int producer = g.tensors[t].producer;
    return producer >= 0 && g.ops[producer].kind == OpKind::Parameter;
}

AffineCost Prepared::comm(SpmdCollective c, int t) const
{
    return spmdCollectiveCost(c, bytes(t), ctx.ranks, ctx.link);
}

bool has(const std::vector<uint32_t>& props, uint32_t k) { return std::binary_search(props.begin(), props.end(), k); }

void insert(std::vector<uint32_t>& props, uint32_t k)
{
    auto it = std::lower_bound(props.begin(), props.end(), k);
    if (it == props.end() || *it != k)
        props.insert(it, k);
}

Forms formsOf(const std::vector<uint32_t>& props, int t)
{
    Forms out;
    for (auto it = std::lower_bound(props.begin(), props.end(), key(t, 0)); it != props.end() && tensorOf(*it) == t;
         ++it)
        if (codeOf(*it) < kCommunicated && out.count < int(out.form.size()))
            out.form[out.count++] = Form{int(codeOf(*it))};
    return out;
}

bool targetOf(const std::vector<uint32_t>& props, int t, Form& out)
{
    for (auto it = std::lower_bound(props.begin(), props.end(), key(t, kTarget));
         it != props.end() && tensorOf(*it) == t; ++it) {
        out = Form{int(codeOf(*it) - kTarget)};
        return true;
    }
    return false;
}

State initialState(const Prepared& p)
{
    State s;
    return s;
}

bool complete(const Prepared& p, const State& s)
{
    return s.pos == int(p.order.size()) && has(s.props, key(p.g.loss, uint32_t(Form::partial().code)));
}

namespace {

// The conversions input q of `op` needs under rule r: false if the rule cannot apply. `options` gets, per
// converted input, the alternative collectives.
bool inputNeeds(const Prepared& p, const State& s, const Op& op, const Rule& r, Step& base,
                std::vector<std::vector<Conversion>>& options)
{
    for (size_t q = 0; q < op.inputs.size(); ++q) {
        const int e = op.inputs[q];
        const Form want = r.in[q];
        const Forms have = formsOf(s.props, e);
        if (std::find(have.begin(), have.end(), want) != have.end())
            continue;
        if (p.g.ops[p.g.tensors[e].producer].isLeaf()) {
            if (have.count > 0 || want.isPartial())
                return false; // leaves are loaded once, in one form, and never communicated
            base.loads.push_back({e, want});
            continue;
        }
        if (have.count != 1 || has(s.props, key(e, kCommunicated)))
            return false;
        std::vector<Conversion> alts;
        for (SpmdCollective c : conversions(have.form[0], want))
            alts.push_back({e, have.form[0], want, c});
        if (alts.empty())
            return false;
        for (const auto& o : options)
            if (o.front().tensor == e)
                return false; // one tensor converted twice for one instruction
        options.push_back(std::move(alts));
    }
    return true;
}

} // namespace

std::vector<std::pair<Step, int>> successors(const Prepared& p, const State& s)
{
    std::vector<std::pair<Step, int>> out;
    const int op = p.order[s.pos];
    for (size_t ri = 0; ri < p.rules[s.pos].size(); ++ri) {
        const Rule& r = p.rules[s.pos][ri];
        Step base;
        base.op = op;
        base.label = r.label;
        std::vector<std::vector<Conversion>> options;
        if (!inputNeeds(p, s, p.g.ops[op], r, base, options))
            continue;
        // Every combination of the alternative collectives.
        std::vector<size_t> pick(options.size(), 0);
        while (true) {
            Step st = base;
            for (size_t i = 0; i < options.size(); ++i)
                st.forward.push_back(options[i][pick[i]]);
            out.push_back({std::move(st), int(ri)});
            size_t i = 0;
            while (i < pick.size() && ++pick[i] == options[i].size())
                pick[i++] = 0;
            if (i == pick.size())
                break;
        }
    }
    return out;
}

} // namespace hetplan::hap::detail
