// Fig. 10: A* over partial programs with dominance pruning, and the exhaustive oracle.
#include "synthesis.h"

#include "synthesis_detail.h"

#include "core/base/errors.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <limits>
#include <queue>
#include <stdexcept>
#include <unordered_map>

namespace hetplan::hap {

using namespace detail;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

void checkContext(const SynthesisContext& ctx)
{
    if (!ctx.graph || ctx.classes.empty() || ctx.ratios.empty())
        throw std::logic_error("hap: synthesis needs a graph, device classes and ratios");
    if (ctx.classes.size() > size_t(kMaxClasses))
        throw InfeasibleError("hap: at most " + std::to_string(kMaxClasses) + " GPU types per cluster");
    for (const auto& row : ctx.ratios)
        if (row.size() != ctx.classes.size())
            throw std::logic_error("hap: one ratio per device class and segment");
}

// Per-class value of an open group under the ratios of the group's segment.
double groupAt(const Prepared& p, const Group& grp, int seg, int k)
{
    return grp[k] * p.ctx.ratios[seg][k] + grp[p.classes + k];
}

int openSegment(const Prepared& p, const State& s) { return s.pos > 0 ? p.segment(p.order[s.pos - 1]) : 0; }

// Admissible estimate of the complete program's cost: everything closed so far, plus the open groups with
// every remaining op at its cheapest rule and free communication.
double score(const Prepared& p, const State& s)
{
    const int seg = openSegment(p, s);
    double f = 0, g = 0;
    for (int k = 0; k < p.classes; ++k) {
        f = std::max(f, groupAt(p, s.f, seg, k) + p.lbF[s.pos][k]);
        g = std::max(g, groupAt(p, s.g, seg, k) + p.lbG[s.pos][k]);
    }
    return s.closed + f + g;
}

// a dominates b (same position and properties): whatever follows b costs at least as much after a.
bool dominates(const Prepared& p, const State& a, const State& b)
{
    const int seg = openSegment(p, a);
    if (!p.ctx.exactDominance) {
        double fa = 0, ga = 0, fb = 0, gb = 0;
        for (int k = 0; k < p.classes; ++k) {
            fa = std::max(fa, groupAt(p, a.f, seg, k));
            ga = std::max(ga, groupAt(p, a.g, seg, k));
            fb = std::max(fb, groupAt(p, b.f, seg, k));
            gb = std::max(gb, groupAt(p, b.g, seg, k));
        }
        return a.closed + fa + ga <= b.closed + fb + gb;
    }
    double df = 0, dg = 0;
    for (int k = 0; k < p.classes; ++k) {
        df = std::max(df, groupAt(p, a.f, seg, k) - groupAt(p, b.f, seg, k));
        dg = std::max(dg, groupAt(p, a.g, seg, k) - groupAt(p, b.g, seg, k));
    }
    return a.closed + df + dg <= b.closed * (1 + 1e-12);
}

// FNV-1a over the property set (equal sets are confirmed element by element).
uint64_t propsHash(const std::vector<uint32_t>& props)
{
    uint64_t h = 1469598103934665603ull;
    for (uint32_t v : props)
        h = (h ^ v) * 1099511628211ull;
    return h;
}

// Append-only storage in blocks of 4096 (stable, one allocation per block). std::deque would allocate a
// 512-byte node per State (304 bytes), a malloc and a free per search state: at 1024 GPUs over a million
// of each per round, and freeing them was most of the time a stopped search took to return.
template <class T>
class SearchArena {
public:
    T& operator[](size_t i) { return blocks_[i >> kShift][i & kMask]; }
    const T& operator[](size_t i) const { return blocks_[i >> kShift][i & kMask]; }
    size_t size() const { return size_; }
    T& back() { return (*this)[size_ - 1]; }
    void push_back(T v)
    {
        if ((size_ & kMask) == 0)
            blocks_.push_back(std::make_unique<T[]>(kBlock));
        (*this)[size_++] = std::move(v);
    }

private:
    static constexpr size_t kShift = 12, kBlock = size_t(1) << kShift, kMask = kBlock - 1;
    std::vector<std::unique_ptr<T[]>> blocks_;
    size_t size_ = 0;
};

struct Search {
    const Prepared& p;
    SearchArena<State> arena;
    SearchArena<Step> steps;
    std::vector<char> dead;
    // Per position: property hash → the first state of its bucket; the bucket's other states follow through
    // nextInBucket (per state, -1 at the end). A linked bucket, not a vector per hash: one allocation less
    // per distinct property set. Bucket order does not matter: pruning n needs any dominator, and every
    // state n dominates dies.
    std::vector<std::unordered_map<uint64_t, int>> seen;
    std::vector<int> nextInBucket;
    // Fig. 10 lines 9-14: false if an equal-property program dominates n; otherwise removes those n dominates.
    bool admit(const State& n, SynthesisStats& st)
    {
        int& head = seen[n.pos].try_emplace(propsHash(n.props), -1).first->second;
        for (int j = head; j >= 0; j = nextInBucket[j])
            if (!dead[j] && arena[j].props == n.props && dominates(p, arena[j], n)) {
                ++st.pruned;
                return false;
            }
        for (int* link = &head; *link >= 0;) {
            const int j = *link;
            if (!dead[j] && arena[j].props == n.props && dominates(p, n, arena[j])) {
                dead[j] = 1;
                // A dead state is only a link of a path now (parent, step): its properties are never read
                // again, and at 1024 GPUs dead states hold a third of the arena's property storage.
                std::vector<uint32_t>().swap(arena[j].props);
            }
            if (dead[j])
                *link = nextInBucket[j]; // unlink
            else
                link = &nextInBucket[j];
        }
        const int me = int(arena.size()); // n is stored there next
        if (int(nextInBucket.size()) <= me)
            nextInBucket.resize(me + 1, -1);
        nextInBucket[me] = head;
        head = me;
        return true;
    }
    Program rebuild(int idx) const
    {
        Program out;
        out.cost = arena[idx].closed;
        for (int i = idx; arena[i].parent >= 0; i = arena[i].parent)
            out.steps.push_back(steps[arena[i].step]);
        std::reverse(out.steps.begin(), out.steps.end());
        return out;
    }
};

} // namespace

Program synthesize(const SynthesisContext& ctx, SynthesisStats* stats, const std::function<bool()>& stop)
{
    checkContext(ctx);
    const Prepared p(ctx);
    Search s{p, {}, {}, {0}, {}, {}};
    s.arena.push_back(initialState(p));
    s.seen.resize(p.order.size() + 1);
    SynthesisStats st;
    using Entry = std::pair<double, int>;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> open;
    open.push({score(p, s.arena[0]), 0});
    double best = kInf;
    int bestIdx = -1;
    while (!open.empty()) {
        const auto [sc, idx] = open.top();
        open.pop();
        if (s.dead[idx])
            continue;
        if (sc >= best || (stop && st.expanded % 64 == 0 && stop()))
            break;
        ++st.expanded;
        const State cur = s.arena[idx];
        for (auto& [step, ri] : successors(p, cur)) {
            State n = advance(p, cur, step, p.rules[cur.pos][ri], nullptr);
            ++st.generated;
            n.parent = idx;
            n.step = int(s.steps.size());
            if (n.replicated > ctx.replicatedCapBytes) { // no ratios make it fit the smallest GPU
                ++st.pruned;
                continue;
            }
            if (n.pos == int(p.order.size())) {
                if (complete(p, n) && n.closed < best) {
                    s.steps.push_back(std::move(step));
                    s.arena.push_back(std::move(n));
                    s.dead.push_back(0);
                    best = s.arena.back().closed;
                    bestIdx = int(s.arena.size()) - 1;
                }
                continue;
            }
            const double h = score(p, n);
            if (h >= best || !s.admit(n, st)) {
                st.pruned += h >= best;
                continue;
            }
            s.steps.push_back(std::move(step));
            s.arena.push_back(std::move(n));
            s.dead.push_back(0);
            open.push({h, int(s.arena.size()) - 1});
        }
        if (ctx.maxStates > 0 && (long long)s.arena.size() > ctx.maxStates) {
            if (bestIdx >= 0)
                break;
            throw InputError("options", "max_states",
                             "hap: the program search holds " + std::to_string(s.arena.size()) +
                                 " partial programs, more than max_states " + std::to_string(ctx.maxStates) +
                                 ", without a complete one; raise max_states if memory allows, or plan with "
                                 "segments=single");
        }
    }
    if (stats)
        *stats = st;
    if (bestIdx < 0) {
        if (stop && stop())
            return {};
        throw InfeasibleError("hap: no distributed program reaches loss | All-Reduce");
    }
    return s.rebuild(bestIdx);
}

namespace {

void exhaustive(const Prepared& p, const State& s, std::vector<Step>& path, Program& best, long long& count)
{
    if (s.pos == int(p.order.size())) {
        if (!complete(p, s))
            return;
        ++count;
        if (s.closed < best.cost) {
            best.cost = s.closed;
            best.steps = path;
        }
        return;
    }
    for (auto& [step, ri] : successors(p, s)) {
        const State n = advance(p, s, step, p.rules[s.pos][ri], nullptr);
        path.push_back(step);
        exhaustive(p, n, path, best, count);
        path.pop_back();
    }
}

} // namespace

Program exhaustiveSearch(const SynthesisContext& ctx, long long* programs)
{
    checkContext(ctx);
    const Prepared p(ctx);
    Program best;
    best.cost = kInf;
    std::vector<Step> path;
    long long count = 0;
    exhaustive(p, initialState(p), path, best, count);
    if (programs)
        *programs = count;
    return best;
}

CostTerms costTerms(const SynthesisContext& ctx, const Program& program)
{
    checkContext(ctx);
    const Prepared p(ctx);
    CostTerms terms;
    State s = initialState(p);
    for (const Step& original : program.steps) {
        Step st = original;
        Rule r;
        if (!ruleFor(p.g.ops[st.op], st.label, r))
            throw std::logic_error("hap: program step with an unknown rule");
        s = advance(p, s, st, r, &terms);
    }
    return terms;
}

double CostTerms::evaluate(const std::vector<std::vector<double>>& ratios) const
{
    double t = 0;
    for (const Group& g : groups) {
        double worst = 0;
        for (size_t k = 0; k < g.alpha.size(); ++k)
            worst = std::max(worst, g.alpha[k] * ratios[g.segment][k] + g.beta[k]);
        t += worst;
    }
    for (const Comm& c : comms) {
        double x = 0;
        for (size_t k = 0; k < ratios[c.segment].size(); ++k)
            x = std::max(x, c.fromSegment < 0 ? ratios[c.segment][k]
                                              : std::abs(ratios[c.segment][k] - ratios[c.fromSegment][k]));
        t += c.cost.at(x);
    }
    return t;
}

} // namespace hetplan::hap
