// Section 3.1: alternate between the program synthesizer and the load balancer.
#include "load_balance.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hetplan::hap {

namespace {

bool sameRatios(const std::vector<std::vector<double>>& a, const std::vector<std::vector<double>>& b)
{
    for (size_t k = 0; k < a.size(); ++k)
        for (size_t c = 0; c < a[k].size(); ++c)
            if (std::abs(a[k][c] - b[k][c]) > 1e-9)
                return false;
    return true;
}

// A program's identity for oscillation detection: its ops' rules and its collectives.
std::string signature(const Program& p)
{
    std::string s;
    for (const Step& st : p.steps) {
        s += std::to_string(st.op) + st.label;
        for (const Conversion& c : st.forward)
            s += "f" + std::to_string(c.to.code) + std::to_string(int(c.collective));
        for (const Conversion& c : st.backward)
            s += "b" + std::to_string(c.to.code) + std::to_string(int(c.collective));
        s += ';';
    }
    return s;
}

// Equal shares for every GPU in every segment: the least memory on the fastest GPUs.
std::vector<std::vector<double>> evenRatios(const SynthesisContext& ctx)
{
    return std::vector<std::vector<double>>(ctx.ratioSegments(),
                                            std::vector<double>(ctx.classes.size(), 1.0 / ctx.ranks));
}

} // namespace

BalancedProgram optimize(SynthesisContext ctx, int maxRounds, const std::function<bool()>& stop, SynthesisStats* stats,
                         const MemoryLimit* memory)
{
    ctx.ratios.assign(ctx.ratioSegments(), proportionalRatios(ctx.classes));
    BalancedProgram best;
    best.ratios.seconds = std::numeric_limits<double>::infinity();
    best.stoppedBy = "round limit";
    std::vector<std::string> seen;
    for (int round = 0; round < maxRounds; ++round) {
        SynthesisStats st;
        const Program q = synthesize(ctx, &st, stop);
        if (stats) {
            stats->expanded += st.expanded;
            stats->generated += st.generated;
            stats->pruned += st.pruned;
        }
        if (q.steps.empty())
            break; // stopped
        best.rounds = round + 1;
        const CostTerms terms = costTerms(ctx, q);
        Ratios b;
        if (memory) {
            const SpmdMemoryTerms m = memory->terms(ctx, q);
            b = optimalRatios(terms, ctx.classes, ctx.ratioSegments(), &m, memory);
            if (!std::isfinite(b.seconds)) // no ratios fit this program: next, a program for even shares
                b = {evenRatios(ctx), std::numeric_limits<double>::infinity()};
        } else {
            b = optimalRatios(terms, ctx.classes, ctx.ratioSegments());
        }
        if (std::isfinite(b.seconds))
            best.trace.push_back(b.seconds);
        if (b.seconds < best.ratios.seconds || best.program.steps.empty()) {
            best.program = q;
            best.program.cost = b.seconds;
            best.ratios = b;
        }
        const std::string sig = signature(q);
        if (std::find(seen.begin(), seen.end(), sig) != seen.end()) {
            best.stoppedBy = sameRatios(b.perGpu, ctx.ratios) ? "converged" : "oscillation";
            break;
        }
        seen.push_back(sig);
        if (sameRatios(b.perGpu, ctx.ratios)) {
            best.stoppedBy = "converged";
            break;
        }
        ctx.ratios = b.perGpu;
    }
    return best;
}

} // namespace hetplan::hap
