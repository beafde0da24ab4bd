#include "load_balance.h"

#include "core/base/errors.h"

#include <ClpEventHandler.hpp>
#include <ClpSimplex.hpp>
#include <CoinPackedMatrix.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace hetplan::hap {

namespace {

// The LP in row-major arrays, packed into one matrix at the end: appending rows to a CoinPackedMatrix one
// by one copies the whole matrix each time (no spare room), quadratic in the rows (a 200-layer model's LP
// has tens of thousands), which was a third of hap's time at 1024 GPUs. Same rows, same order.
struct Lp {
    std::vector<double> colLo, colHi, obj, rowLo, rowHi;
    std::vector<CoinBigIndex> rowStart{0};
    std::vector<int> index;
    std::vector<double> value;
    int addCol(double cost, double lo = 0)
    {
        colLo.push_back(lo);
        colHi.push_back(COIN_DBL_MAX);
        obj.push_back(cost);
        return int(obj.size()) - 1;
    }
    void addRow(const std::vector<std::pair<int, double>>& coefs, double lo, double hi)
    {
        for (const auto& [c, a] : coefs) {
            index.push_back(c);
            value.push_back(a);
        }
        rowStart.push_back(CoinBigIndex(index.size()));
        rowLo.push_back(lo);
        rowHi.push_back(hi);
    }
    CoinPackedMatrix matrix() const
    {
        std::vector<int> length;
        for (size_t r = 0; r + 1 < rowStart.size(); ++r)
            length.push_back(int(rowStart[r + 1] - rowStart[r]));
        return CoinPackedMatrix(false, int(obj.size()), int(rowLo.size()), rowStart.back(), value.data(),
                                index.data(), rowStart.data(), length.data());
    }
};

// Per class c: Σ_k (states per byte · param_k + activation_k + reserve_k) · B_k,c ≤ capacity_c − the
// replicated bytes and the gradient buffer.
void addMemoryRows(Lp& lp, const std::vector<std::vector<int>>& b, const SpmdMemoryTerms& m, const MemoryLimit& limit)
{
    const double states = spmdStateBytesPerValueByte(limit.job);
    const auto perShare = [&](size_t k) {
        const auto at = [k](const std::vector<double>& v) { return k < v.size() ? v[k] : 0.0; };
        return at(m.params.perSegment) * states + at(m.activations.perSegment) + at(m.reserve.perSegment);
    };
    double fixed = m.params.fixed * states + m.activations.fixed + m.reserve.fixed + m.gradientBufferBytes;
    for (size_t k = 0; k < m.params.perSegment.size(); ++k)
        fixed += perShare(k) * limit.roundingSlack;
    for (size_t c = 0; c < limit.capacity.size(); ++c) {
        std::vector<std::pair<int, double>> row;
        for (size_t k = 0; k < b.size() && k < m.params.perSegment.size(); ++k)
            if (perShare(k) > 0)
                row.push_back({b[k][c], perShare(k)});
        lp.addRow(row, -COIN_DBL_MAX, limit.capacity[c] - fixed);
    }
}

// Ends the simplex after any iteration once `stop` says so (CLP status 5, "stopped by event handler").
// An event handler rather than setMaximumWallSeconds: it serves a user's cancel as well as the time limit,
// and the planner's deadline is already in `stop`.
class LpStopHandler : public ClpEventHandler {
public:
    explicit LpStopHandler(std::function<bool()> stop) : stop_(std::move(stop)) {}
    int event(Event e) override { return e == endOfIteration && stop_() ? 0 : -1; }
    ClpEventHandler* clone() const override { return new LpStopHandler(*this); }

private:
    std::function<bool()> stop_;
};

constexpr int kClpStoppedByEvent = 5;

// Inputs within their physical ranges can still span enough orders of magnitude (seconds of compute next to
// microseconds of transfer, on GPUs a thousand times apart) for CLP to give up; that is no plan for this
// input rather than a fault of the program.
std::string noOptimumReason(int status)
{
    const char* why = status == 1   ? "infeasible"
                      : status == 2 ? "unbounded"
                      : status == 3 ? "iteration limit"
                                    : "numerical difficulties";
    return "hap: the sharding-ratio LP found no optimum (CLP status " + std::to_string(status) + ", " + why +
           "): the layer times and transfer times span too many orders of magnitude for the solver";
}

} // namespace

Ratios optimalRatios(const CostTerms& terms, const std::vector<DeviceClass>& classes, int segments,
                     const SpmdMemoryTerms* memory, const MemoryLimit* limit, const std::function<bool()>& stop)
{
    const Ratios stopped{{}, std::numeric_limits<double>::infinity(), true};
    if (stop && stop())
        return stopped;
    const int C = int(classes.size());
    Lp lp;
    std::vector<std::vector<int>> b(segments, std::vector<int>(C));
    std::vector<int> z(segments, 0);
    std::vector<double> zCost(segments, 0);
    for (const CostTerms::Comm& c : terms.comms) // the fixed parts do not depend on B
        if (c.fromSegment < 0)
            zCost[c.segment] += c.cost.perMaxShare;
    for (int k = 0; k < segments; ++k) {
        for (int c = 0; c < C; ++c)
            b[k][c] = lp.addCol(0);
        z[k] = lp.addCol(zCost[k]);
    }
    std::vector<int> u;
    for (size_t i = 0; i < terms.groups.size(); ++i)
        u.push_back(lp.addCol(1, -COIN_DBL_MAX));
    for (int k = 0; k < segments; ++k) {
        std::vector<std::pair<int, double>> sum;
        for (int c = 0; c < C; ++c) {
            sum.push_back({b[k][c], double(classes[c].gpus)});
            lp.addRow({{z[k], 1}, {b[k][c], -1}}, 0, COIN_DBL_MAX); // z_k ≥ B_k,c
        }
        lp.addRow(sum, 1, 1); // Σ_c gpus_c · B_k,c = 1
    }
    for (const CostTerms::Comm& c : terms.comms) { // d ≥ |B[to][c] - B[from][c]| for a re-balance
        if (c.fromSegment < 0 || c.cost.perMaxShare == 0)
            continue;
        const int d = lp.addCol(c.cost.perMaxShare);
        for (int k = 0; k < C; ++k) {
            lp.addRow({{d, 1}, {b[c.segment][k], -1}, {b[c.fromSegment][k], 1}}, 0, COIN_DBL_MAX);
            lp.addRow({{d, 1}, {b[c.segment][k], 1}, {b[c.fromSegment][k], -1}}, 0, COIN_DBL_MAX);
        }
    }
    for (size_t i = 0; i < terms.groups.size(); ++i) {
        const CostTerms::Group& g = terms.groups[i];
        for (int c = 0; c < C; ++c) // u_i ≥ α_c B_c + β_c
            lp.addRow({{u[i], 1}, {b[g.segment][c], -g.alpha[c]}}, g.beta[c], COIN_DBL_MAX);
    }
    if (memory && limit)
        addMemoryRows(lp, b, *memory, *limit);
    ClpSimplex model;
    model.setLogLevel(0);
    model.loadProblem(lp.matrix(), lp.colLo.data(), lp.colHi.data(), lp.obj.data(), lp.rowLo.data(), lp.rowHi.data());
    if (stop) {
        const LpStopHandler handler(stop);
        model.passInEventHandler(&handler); // CLP keeps a clone
    }
    model.dual();
    if (model.status() == kClpStoppedByEvent)
        return stopped; // a finished solve is kept even if the stop came just after it
    if (memory && limit && model.isProvenPrimalInfeasible())
        return {{}, std::numeric_limits<double>::infinity()};
    if (!model.isProvenOptimal())
        throw InfeasibleError(noOptimumReason(model.status()));
    const double* x = model.primalColumnSolution();
    Ratios r;
    r.perGpu.assign(segments, std::vector<double>(C));
    for (int k = 0; k < segments; ++k)
        for (int c = 0; c < C; ++c)
            r.perGpu[k][c] = std::max(0.0, x[b[k][c]]);
    r.seconds = terms.evaluate(r.perGpu);
    return r;
}

std::vector<double> proportionalRatios(const std::vector<DeviceClass>& classes)
{
    double total = 0;
    for (const DeviceClass& c : classes)
        total += c.gpus * c.flopsRate;
    std::vector<double> out;
    for (const DeviceClass& c : classes)
        out.push_back(c.flopsRate / total);
    return out;
}

std::vector<long long> roundShards(const std::vector<double>& ratios, long long length)
{
    const size_t n = ratios.size();
    std::vector<long long> size(n, 0);
    if (n == 0 || length <= 0)
        return size;
    double total = 0;
    size_t positive = 0;
    for (double r : ratios) {
        total += std::max(0.0, r);
        positive += r > 0;
    }
    if (!(total > 0))
        throw std::logic_error("roundShards: no positive ratio");
    std::vector<double> exact(n);
    long long sum = 0;
    for (size_t j = 0; j < n; ++j) {
        exact[j] = std::max(0.0, ratios[j]) / total * double(length);
        size[j] = (long long)std::floor(exact[j] + 1e-9);
        size[j] = std::min(size[j], length);
        sum += size[j];
    }
    // At least one unit per positive shard when there are enough units: take them from the largest.
    if (length >= (long long)positive)
        for (size_t j = 0; j < n; ++j)
            if (ratios[j] > 0 && size[j] == 0) {
                size[j] = 1;
                ++sum;
            }
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), size_t(0));
    while (sum > length) { // only after the minimum-one rule: give back from the largest overshoot
        size_t best = n;
        for (size_t j = 0; j < n; ++j)
            if (size[j] > 1 && (best == n || double(size[j]) - exact[j] > double(size[best]) - exact[best]))
                best = j;
        if (best == n)
            throw std::logic_error("roundShards: cannot take a unit back");
        --size[best];
        --sum;
    }
    // Largest remainder: the units left go to the largest fractional parts (stable: ties to the lower index).
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return exact[a] - double(size[a]) > exact[b] - double(size[b]);
    });
    for (size_t k = 0; sum < length; k = (k + 1) % n) {
        if (ratios[order[k]] > 0 || positive == 0) {
            ++size[order[k]];
            ++sum;
        }
    }
    return size;
}

} // namespace hetplan::hap
