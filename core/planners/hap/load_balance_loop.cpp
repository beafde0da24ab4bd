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

// The program a stopped round synthesized, at the ratios it was synthesized for (no LP): +inf seconds when
// those ratios overflow a class's memory (the LP's memory rows, rounding headroom included).
Ratios unbalanced(const SynthesisContext& ctx, const Program& q, const MemoryLimit* memory)
{
    const Ratios none{{}, std::numeric_limits<double>::infinity()};
    if (memory) {
        const SpmdMemoryTerms m = memory->terms(ctx, q);
        for (size_t c = 0; c < ctx.classes.size(); ++c) {
            std::vector<double> share;
            for (const auto& row : ctx.ratios)
                share.push_back(row[c] + memory->roundingSlack);
            if (m.peakBytes(share, memory->job) > memory->capacity[c])
                return none;
        }
    }
    return {ctx.ratios, costTerms(ctx, q).evaluate(ctx.ratios)};
}

void keepIfBetter(BalancedProgram& best, const Program& q, const Ratios& b)
{
    if (b.seconds < best.ratios.seconds || best.program.steps.empty()) {
        best.program = q;
        best.program.cost = b.seconds;
        best.ratios = b;
    }
}

} // namespace

std::string toString(LoopEnd e)
{
    switch (e) {
    case LoopEnd::Converged: return "converged";
    case LoopEnd::Oscillation: return "oscillation";
    case LoopEnd::RoundLimit: return "round limit";
    case LoopEnd::Stopped: return "stopped";
    case LoopEnd::FixedRatios: return "fixed ratios";
    }
    return "round limit";
}

BalancedProgram optimize(SynthesisContext ctx, int maxRounds, const std::function<bool()>& stop, SynthesisStats* stats,
                         const MemoryLimit* memory, const std::function<void(int)>& onRound,
                         const BalancedProgram* start)
{
    ctx.ratios.assign(ctx.ratioSegments(), proportionalRatios(ctx.classes));
    BalancedProgram best;
    best.ratios.seconds = std::numeric_limits<double>::infinity();
    best.stoppedBy = LoopEnd::RoundLimit;
    if (start && !start->program.steps.empty() && !start->ratios.perGpu.empty()) {
        // B(0) = the start's ratios in every segment; the start pair is kept first if it fits memory.
        ctx.ratios.assign(ctx.ratioSegments(), start->ratios.perGpu.front());
        const Ratios atStart = unbalanced(ctx, start->program, memory);
        if (std::isfinite(atStart.seconds)) {
            keepIfBetter(best, start->program, atStart);
            best.trace.push_back(atStart.seconds);
        }
    }
    std::vector<std::string> seen;
    for (int round = 0; round < maxRounds; ++round) {
        if (onRound)
            onRound(round);
        SynthesisStats st;
        const Program q = synthesize(ctx, &st, stop);
        if (stats) {
            stats->expanded += st.expanded;
            stats->generated += st.generated;
            stats->pruned += st.pruned;
        }
        if (q.steps.empty()) { // stopped before a complete program
            best.stoppedBy = LoopEnd::Stopped;
            break;
        }
        best.rounds = round + 1;
        const bool stoppedInSearch = stop && stop(); // q may be the search's best so far, not its optimum
        Ratios b;
        if (!stoppedInSearch) {
            const CostTerms terms = costTerms(ctx, q);
            if (memory) {
                const SpmdMemoryTerms m = memory->terms(ctx, q);
                b = optimalRatios(terms, ctx.classes, ctx.ratioSegments(), &m, memory, stop);
                if (!std::isfinite(b.seconds) && !b.stopped) // no ratios fit this program: next, even shares
                    b = {evenRatios(ctx), std::numeric_limits<double>::infinity()};
            } else {
                b = optimalRatios(terms, ctx.classes, ctx.ratioSegments(), nullptr, nullptr, stop);
            }
        }
        if (stoppedInSearch || b.stopped) { // no (further) LP: the pair as synthesized, if it fits
            const Ratios asSynthesized = unbalanced(ctx, q, memory);
            if (std::isfinite(asSynthesized.seconds))
                keepIfBetter(best, q, asSynthesized);
            best.stoppedBy = LoopEnd::Stopped;
            break;
        }
        if (std::isfinite(b.seconds))
            best.trace.push_back(b.seconds);
        keepIfBetter(best, q, b);
        const std::string sig = signature(q);
        if (std::find(seen.begin(), seen.end(), sig) != seen.end()) {
            best.stoppedBy = sameRatios(b.perGpu, ctx.ratios) ? LoopEnd::Converged : LoopEnd::Oscillation;
            break;
        }
        seen.push_back(sig);
        if (sameRatios(b.perGpu, ctx.ratios)) {
            best.stoppedBy = LoopEnd::Converged;
            break;
        }
        ctx.ratios = b.perGpu;
    }
    return best;
}

} // namespace hetplan::hap
