// Appending one step to a partial program: its properties (with the section 4.5 pruning of dead tensors)
// and its cost, stage by stage (section 3.2).
#include "synthesis_detail.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace hetplan::hap::detail {

namespace {

// `units`: the size of the sharded dimension when the op is sharded. A dimension with fewer units than GPUs
// is split in whole units (section 5.1, as the plan stores it): a GPU of class k gets at most
// ceil(B_k · units) of them, far from its ratio B_k (8 experts on 64 GPUs: 1/8 of the work on 8 GPUs, none
// on the rest), so that share is charged as fixed time at the current ratios, not as α·B (which the LP
// would balance as if the units were divisible).
void addCompute(Group& grp, const Prepared& p, double flops, bool scaled, int graphSegment, bool backward,
                long long units = 0, int ratioSegment = 0)
{
    const bool whole = scaled && units > 0 && units < p.ctx.ranks;
    for (int k = 0; k < p.classes; ++k) {
        const double t = flops * p.spf(graphSegment, k, backward);
        if (whole)
            grp[p.classes + k] += t * std::ceil(p.ctx.ratios[ratioSegment][k] * double(units) - 1e-9) / double(units);
        else
            grp[(scaled ? 0 : p.classes) + k] += t;
    }
}

// A parameter's gradient All-Reduce that the simulator defers into DeepSpeed's buckets after the backward:
// only with bucketing on, only the partial-sum → Identity reduction of a parameter's gradient.
bool bucketedReduction(const Prepared& p, const Conversion& c)
{
    return p.ctx.bucketBytes > 0 && c.collective == SpmdCollective::AllReduce && p.isParameter(c.tensor);
}

// Ends a compute group: the slowest device's time counts (all devices meet at the next collective).
void closeGroup(Group& grp, State& n, const Prepared& p, int seg, CostTerms* terms)
{
    const int C = p.classes;
    double worst = 0;
    bool any = false;
    for (int k = 0; k < C; ++k) {
        worst = std::max(worst, grp[k] * p.ctx.ratios[seg][k] + grp[C + k]);
        any = any || grp[k] != 0 || grp[C + k] != 0;
    }
    n.closed += worst;
    if (terms && any)
        terms->groups.push_back({seg, {grp.begin(), grp.begin() + C}, {grp.begin() + C, grp.begin() + 2 * C}});
    std::fill(grp.begin(), grp.end(), 0.0);
}

void chargeComm(State& n, const Prepared& p, int seg, AffineCost c, CostTerms* terms)
{
    n.closed += c.at(p.maxShare(seg));
    if (terms)
        terms->comms.push_back({seg, c});
}

Conversion cheapest(const Prepared& p, int seg, int t, Form from, Form to)
{
    Conversion best{t, from, to, SpmdCollective::Slice};
    double bestCost = std::numeric_limits<double>::infinity();
    for (SpmdCollective c : conversions(from, to)) {
        const double cost = p.comm(c, t).at(p.maxShare(seg));
        if (cost < bestCost) {
            bestCost = cost;
            best.collective = c;
        }
    }
    return best;
}

// Gradient contributions of the step's inputs that must change form for their producers' backward.
void backwardConversions(const Prepared& p, State& n, Step& st, const Rule& r, int seg, CostTerms* terms)
{
    const Op& o = p.g.ops[st.op];
    st.backward.clear();
    for (size_t q = 0; q < o.inputs.size(); ++q) {
        const int e = o.inputs[q];
        Form target;
        if (!p.needsGrad[e])
            continue;
        if (!targetOf(n.props, e, target))
            throw std::logic_error("hap: no gradient target for " + p.g.tensors[e].name);
        if (!(r.grad[q] == target))
            st.backward.push_back(cheapest(p, seg, e, r.grad[q], target));
    }
    bool sync = false;
    for (const Conversion& c : st.backward)
        sync = sync || (c.collective != SpmdCollective::Slice && !bucketedReduction(p, c));
    if (sync)
        closeGroup(n.g, n, p, seg, terms);
    for (const Conversion& c : st.backward) {
        if (c.collective == SpmdCollective::Slice)
            continue;
        if (!bucketedReduction(p, c)) {
            chargeComm(n, p, seg, p.comm(c.collective, c.tensor), terms);
            continue;
        }
        // Bucketed after the backward: the bandwidth term here, the latency per bucket at the end. A tied
        // parameter's contributions are summed into one gradient first, so it is reduced once.
        const uint32_t reduced = key(c.tensor, kCommunicated);
        if (has(n.props, reduced))
            continue;
        insert(n.props, reduced);
        const double bytes = p.bytes(c.tensor) * p.ctx.gradientBytesPerValueByte;
        n.gradBytes += bytes;
        const double n1 = double(p.ctx.ranks - 1), nr = double(p.ctx.ranks);
        if (p.ctx.ranks > 1)
            chargeComm(n, p, seg, {2.0 * n1 / nr * bytes / p.ctx.link.bandwidth, 0}, terms);
    }
}

// The ring latency of the bucketed gradient reduction, once per bucket (the end of the program).
void chargeBuckets(State& n, const Prepared& p, int seg, CostTerms* terms)
{
    if (p.ctx.bucketBytes <= 0 || p.ctx.ranks <= 1 || n.gradBytes <= 0)
        return;
    const double buckets = std::ceil(n.gradBytes / p.ctx.bucketBytes);
    chargeComm(n, p, seg, {buckets * 2.0 * double(p.ctx.ranks - 1) * p.ctx.link.latency, 0}, terms);
}

// A segment boundary: all devices meet, and sharded tensors crossing it are re-balanced (section 5.2).
void segmentBoundary(const Prepared& p, State& n, Step& st, int seg, CostTerms* terms)
{
    closeGroup(n.f, n, p, seg, terms);
    closeGroup(n.g, n, p, seg, terms);
    st.rebalance.clear();
    if (n.pos == int(p.order.size()))
        return;
    const int next = p.segment(p.order[n.pos]);
    for (uint32_t k : n.props) {
        const int t = tensorOf(k);
        const uint32_t code = codeOf(k);
        if (code < 2 || code >= kCommunicated || p.g.ops[p.g.tensors[t].producer].isLeaf())
            continue;
        const Form f{int(code)};
        st.rebalance.push_back({t, f, f, SpmdCollective::Rebalance});
        const AffineCost c = p.comm(SpmdCollective::Rebalance, t);
        double delta = 0;
        for (int k = 0; k < p.classes; ++k)
            delta = std::max(delta, std::abs(p.ctx.ratios[next][k] - p.ctx.ratios[seg][k]));
        for (int pass = 0; pass < 2; ++pass) { // forward, and the gradient on the way back
            n.closed += c.at(delta);
            if (terms)
                terms->comms.push_back({next, c, seg});
        }
    }
}

} // namespace

State advance(const Prepared& p, const State& s, Step& st, const Rule& r, CostTerms* terms)
{
    State n = s;
    n.pos = s.pos + 1;
    const Op& o = p.g.ops[st.op];
    const int seg = p.segment(st.op);
    for (const Conversion& c : st.forward) {
        if (c.collective != SpmdCollective::Slice) {
            closeGroup(n.f, n, p, seg, terms);
            chargeComm(n, p, seg, p.comm(c.collective, c.tensor), terms);
        }
        insert(n.props, key(c.tensor, uint32_t(c.to.code)));
        insert(n.props, key(c.tensor, kCommunicated));
    }
    for (const auto& [e, f] : st.loads) {
        insert(n.props, key(e, uint32_t(f.code)));
        const bool param = p.isParameter(e);
        if (param)
            insert(n.props, key(e, kTarget + uint32_t(f.code)));
        if (!f.isSharded()) // held whole on every GPU: model states, or an input kept for the backward
            n.replicated += p.bytes(e) * (param ? p.ctx.stateBytesPerValueByte
                                                : p.activationScale(p.g.ops[p.g.tensors[e].producer].segment));
    }
    if (!r.out.isSharded())
        n.replicated += p.bytes(o.output) * p.activationScale(o.segment);
    const long long units = r.scales ? o.labelSize(r.label, p.g.tensors) : 0;
    addCompute(n.f, p, o.flops, r.scales, o.segment, false, units, seg);
    backwardConversions(p, n, st, r, seg, terms);
    addCompute(n.g, p, p.gradFlops[st.op], r.scales, o.segment, true, units, seg);
    addCompute(n.g, p, p.accFlops[st.op], r.scales && r.out.dual().isSharded(), o.segment, true, units, seg);
    insert(n.props, key(o.output, uint32_t(r.out.code)));
    insert(n.props, key(o.output, kTarget + uint32_t(r.out.dual().code)));
    // Section 4.5, third optimization: properties no remaining instruction can use are dropped.
    std::erase_if(n.props, [&](uint32_t k) {
        const int t = tensorOf(k);
        return t != p.g.loss && p.lastUse[t] <= st.op;
    });
    if (n.pos == int(p.order.size()) || p.segment(p.order[n.pos]) != seg)
        segmentBoundary(p, n, st, seg, terms);
    if (n.pos == int(p.order.size()))
        chargeBuckets(n, p, seg, terms);
    return n;
}

} // namespace hetplan::hap::detail
