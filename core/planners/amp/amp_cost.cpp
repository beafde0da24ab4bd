#include "amp_cost.h"

#include "core/cost/collectives.h"
#include "core/cost/memory.h"
#include "core/cost/stage_peak_scan.h"

#include <tuple>

#include <algorithm>
#include <limits>
#include <set>
#include <tuple>

namespace hetplan {

std::shared_ptr<const std::vector<double>> LayerTimeTable::prefix(const std::string& device, int tp, int mbs) const
{
    const ProfileKey key{device, tp, mbs};
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (auto it = cache_.find(key); it != cache_.end())
            return it->second;
    }
    // Computed outside the lock; a rare duplicate computation by two threads gives the same numbers.
    const std::vector<LayerTiming> layers = costs_.layers(device, tp, mbs);
    auto pre = std::make_shared<std::vector<double>>(layers.size() + 1, 0.0);
    for (size_t l = 0; l < layers.size(); ++l)
        (*pre)[l + 1] = (*pre)[l] + layers[l].forward + layers[l].backward;
    std::lock_guard<std::mutex> lock(mutex_);
    return cache_.emplace(key, std::move(pre)).first->second;
}

struct AmpCostModel::Layout {
    int mbs = 1, gas = 1;
    Degrees d;
    PipelineProblem problem;
    std::vector<std::vector<int>> sig;         // [s][r] → index into problem.stagePrefix[s]
    std::vector<std::vector<LinkParams>> link; // [s][r] p2p link from stage s to s+1 of replica r
};

AmpCostModel::AmpCostModel(const Cluster& cluster, const CostModel& costs)
    : cluster_(cluster), costs_(costs), times_(costs)
{
    const ModelSpec& m = costs.model();
    const int L = m.layerCount();
    outputBytes_.resize(L);
    tpParamsPrefix_.assign(L + 1, 0);
    fullParamsPrefix_.assign(L + 1, 0);
    for (int l = 0; l < L; ++l) {
        const LayerSpec& s = m.layers[l];
        outputBytes_[l] = s.outputBytes * costs.job().activationScale();
        tpParamsPrefix_[l + 1] = tpParamsPrefix_[l] + (s.tensorParallel ? s.params : 0);
        fullParamsPrefix_[l + 1] = fullParamsPrefix_[l] + (s.tensorParallel ? 0 : s.params);
    }
    for (const GpuRef& ref : cluster.gpuRefs())
        gpuNode_.push_back(ref.node);
}

AmpCostModel::Layout AmpCostModel::layout(const Placement& p, int mbs, int gas) const
{
    const ModelSpec& model = costs_.model();
    const int L = model.layerCount();
    const Degrees d = p.degrees;
    Layout lay;
    lay.mbs = mbs;
    lay.gas = gas;
    lay.d = d;
    PipelineProblem& pb = lay.problem;
    pb.layers = L;
    pb.stages = d.pp;
    pb.gas = gas;
    pb.stagePrefix.resize(d.pp);
    lay.sig.assign(d.pp, std::vector<int>(d.dp, 0));

    // A tensor group's layer times: the slowest device type in it, with the tp all-reduces moved onto the
    // group's real link (the node's own intra-node bandwidth, or a NIC when the group spans nodes) by the
    // CostModel's shared correction. Shared across stages of this layout.
    std::map<std::tuple<std::vector<std::string>, double, double>, std::shared_ptr<const std::vector<double>>> byLink;
    auto groupPrefix = [&](const std::vector<int>& group) -> std::shared_ptr<const std::vector<double>> {
        std::set<std::string> typeSet;
        for (int g : group)
            typeSet.insert(cluster_.nodes[gpuNode_[g]].deviceType);
        if (d.tp == 1 && typeSet.size() == 1)
            return times_.prefix(*typeSet.begin(), d.tp, mbs);
        const LinkParams gl = d.tp > 1 ? groupLink(cluster_, group) : LinkParams{};
        auto key = std::make_tuple(std::vector<std::string>(typeSet.begin(), typeSet.end()), gl.bandwidth, gl.latency);
        if (auto it = byLink.find(key); it != byLink.end())
            return it->second;
        std::vector<std::pair<std::string, std::shared_ptr<const std::vector<double>>>> pres;
        for (const std::string& t : typeSet)
            pres.emplace_back(t, times_.prefix(t, d.tp, mbs));
        auto pre = std::make_shared<std::vector<double>>(L + 1, 0.0);
        for (int l = 0; l < L; ++l) {
            double t = 0;
            for (const auto& [type, q] : pres) {
                const double delta = d.tp > 1 ? costs_.tpLinkDelta(l, l + 1, type, d.tp, mbs, gl) : 0;
                // forward and backward each pay the delta; the prefix holds forward + backward
                t = std::max(t, (*q)[l + 1] - (*q)[l] + 2 * delta);
            }
            (*pre)[l + 1] = (*pre)[l] + t;
        }
        byLink.emplace(key, pre);
        return pre;
    };

    for (int s = 0; s < d.pp; ++s)
        for (int r = 0; r < d.dp; ++r) {
            auto pre = groupPrefix(p.tensorGroup(s, r));
            auto& list = pb.stagePrefix[s];
            auto it = std::find(list.begin(), list.end(), pre);
            lay.sig[s][r] = int(it - list.begin());
            if (it == list.end())
                list.push_back(pre);
        }

    // Cuts: e_i of eq. 5, one activation transfer over the slowest tp pair between consecutive stages (the
    // paper counts each stage boundary once).
    lay.link.assign(std::max(0, d.pp - 1), std::vector<LinkParams>(d.dp));
    pb.cut.assign(std::max(0, d.pp - 1), std::vector<double>(L + 1, 0.0));
    for (int s = 0; s + 1 < d.pp; ++s) {
        std::set<std::pair<double, double>> distinct;
        for (int r = 0; r < d.dp; ++r) {
            LinkParams lp{std::numeric_limits<double>::infinity(), 0};
            for (int t = 0; t < d.tp; ++t) {
                const int a = p.at(s, r, t), b = p.at(s + 1, r, t);
                lp.bandwidth = std::min(lp.bandwidth, cluster_.bandwidth(a, b));
                lp.latency = std::max(lp.latency, cluster_.latency(a, b));
            }
            lay.link[s][r] = lp;
            distinct.insert({lp.bandwidth, lp.latency});
        }
        for (int i = 1; i < L; ++i)
            for (auto [bw, lat] : distinct)
                pb.cut[s][i] = std::max(pb.cut[s][i], pointToPoint(outputBytes_[i - 1] * mbs, {bw, lat}));
    }
    return lay;
}

PipelineProblem AmpCostModel::problem(const Placement& p, int mbs, int gas) const
{
    return layout(p, mbs, gas).problem;
}

double AmpCostModel::pipelineSeconds(const Layout& lay, const std::vector<int>& b) const
{
    double worst = 0;
    for (int r = 0; r < lay.d.dp; ++r) {
        double maxT = 0, sum = 0;
        for (int s = 0; s < lay.d.pp; ++s) {
            const auto& pre = *lay.problem.stagePrefix[s][lay.sig[s][r]];
            const double t = pre[b[s + 1]] - pre[b[s]];
            maxT = std::max(maxT, t);
            sum += t;
            if (s + 1 < lay.d.pp)
                sum += pointToPoint(outputBytes_[b[s + 1] - 1] * lay.mbs, lay.link[s][r]);
        }
        worst = std::max(worst, (lay.gas - 1) * maxT + sum);
    }
    return worst;
}

double AmpCostModel::pipelineSeconds(const Placement& p, int mbs, int gas, const std::vector<int>& bounds) const
{
    return pipelineSeconds(layout(p, mbs, gas), bounds);
}

double AmpCostModel::syncSeconds(const Placement& p, const std::vector<int>& b) const
{
    const Degrees d = p.degrees;
    if (d.dp <= 1)
        return 0;
    const double bytesPerValue = costs_.job().bytesPerValue();
    double worst = 0;
    for (int s = 0; s < d.pp; ++s) {
        // Gradients held by one tp rank of this stage: its shard of the split layers plus the rest.
        const double params = (tpParamsPrefix_[b[s + 1]] - tpParamsPrefix_[b[s]]) / d.tp +
                              (fullParamsPrefix_[b[s + 1]] - fullParamsPrefix_[b[s]]);
        for (int t = 0; t < d.tp; ++t)
            worst =
                std::max(worst, ringAllReduce(params * bytesPerValue, d.dp, groupLink(cluster_, p.dataGroup(s, t))));
    }
    return worst;
}

int AmpCostModel::inFlight(const Placement& p, int s, int gas) const
{
    return costs_.job().schedule == Schedule::GPipe ? gas : std::min(p.degrees.pp - s, gas);
}

int AmpCostModel::zeroShards(const Placement& p) const { return costs_.job().zeroStage > 0 ? p.degrees.dp : 1; }

std::vector<const Node*> AmpCostModel::stageKinds(const Placement& p, int s) const
{
    std::set<int> nodes;
    for (int g : p.stageGpus(s))
        nodes.insert(gpuNode_[g]);
    // Nodes differ in memory by their type, their context and their NCCL channels (communicator buffers).
    std::set<std::tuple<std::string, double, int>> seen;
    std::vector<const Node*> kinds;
    for (int n : nodes) {
        const Node& node = cluster_.nodes[n];
        const DeviceType& device = costs_.device(node.deviceType);
        if (seen.insert({node.deviceType, runtimeOverhead(node, device), ncclChannels(node, device)}).second)
            kinds.push_back(&node);
    }
    return kinds;
}

RankGroups AmpCostModel::rankGroups(const Placement& p, int s) const
{
    return RankGroups::pipelineStage(p.degrees.tp, p.degrees.dp, p.degrees.pp, s, costs_.model().arch.tiedEmbeddings);
}

bool AmpCostModel::stageFits(const Placement& p, int s, int first, int end, int mbs, int gas) const
{
    const int tp = p.degrees.tp;
    const RankGroups groups = rankGroups(p, s);
    for (const Node* node : stageKinds(p, s)) {
        const double peak = costs_.stagePeak(first, end, node->deviceType, tp, zeroShards(p), mbs, inFlight(p, s, gas));
        if (!hetplan::fitsMemory(peak, *node, costs_.device(node->deviceType), costs_.job(), groups))
            return false;
    }
    return true;
}

bool AmpCostModel::fitsMemory(const Placement& p, int mbs, int gas, const std::vector<int>& b) const
{
    for (int s = 0; s < p.degrees.pp; ++s)
        if (!stageFits(p, s, b[s], b[s + 1], mbs, gas))
            return false;
    return true;
}

std::vector<std::vector<int>> AmpCostModel::memoryLimits(const Placement& p, int mbs, int gas,
                                                         const std::function<bool()>& stop) const
{
    const int L = costs_.model().layerCount(), k = p.degrees.pp;
    std::map<std::string, StagePeakScan> scans; // one per device type, shared by the stages
    std::vector<std::vector<int>> lastEnd(k, std::vector<int>(L + 1, 0));
    for (int s = 0; s < k; ++s) {
        if (stop && stop()) // a stage of a thousand-layer model scans for milliseconds
            return {};
        struct Check {
            StagePeakScan* scan;
            const Node* node;
            const DeviceType* device;
        };
        std::vector<Check> checks;
        std::vector<StagePeakScan*> stageScans;
        for (const Node* node : stageKinds(p, s)) {
            auto it = scans.find(node->deviceType);
            if (it == scans.end())
                it = scans
                         .emplace(node->deviceType,
                                  StagePeakScan(costs_, node->deviceType, p.degrees.tp, zeroShards(p), mbs))
                         .first;
            checks.push_back({&it->second, node, &costs_.device(node->deviceType)});
            if (std::find(stageScans.begin(), stageScans.end(), &it->second) == stageScans.end())
                stageScans.push_back(&it->second);
        }
        const int held = inFlight(p, s, gas);
        const RankGroups groups = rankGroups(p, s);
        for (int a = 0; a <= L; ++a)
            lastEnd[s][a] = a;
        for (int a = s; a <= L - (k - s); ++a) {
            for (StagePeakScan* scan : stageScans)
                scan->start(a);
            // Memory grows with the stage: once [a, b) does not fit, neither does any longer one.
            for (int b = a + 1; b <= L - (k - 1 - s); ++b) {
                for (StagePeakScan* scan : stageScans)
                    scan->extend();
                const bool fits = std::all_of(checks.begin(), checks.end(), [&](const Check& c) {
                    return hetplan::fitsMemory(c.scan->peak(held), *c.node, *c.device, costs_.job(), groups);
                });
                if (!fits)
                    break;
                lastEnd[s][a] = b;
            }
        }
    }
    return lastEnd;
}

namespace {

std::vector<char> maskOfLimits(const std::vector<std::vector<int>>& lastEnd, int L)
{
    std::vector<char> mask(lastEnd.size() * (L + 1) * (L + 1), 0);
    for (size_t s = 0; s < lastEnd.size(); ++s)
        for (int a = 0; a <= L; ++a)
            for (int b = a + 1; b <= lastEnd[s][a]; ++b)
                mask[(s * (L + 1) + a) * (L + 1) + b] = 1;
    return mask;
}

} // namespace

std::vector<char> AmpCostModel::memoryMask(const Placement& p, int mbs, int gas) const
{
    return maskOfLimits(memoryLimits(p, mbs, gas), costs_.model().layerCount());
}

AmpEstimate AmpCostModel::evaluate(const Placement& p, int mbs, int gas, LayerDpMethod method, bool repairMemory,
                                   const std::function<bool()>& stop) const
{
    AmpEstimate e;
    const int L = costs_.model().layerCount();
    // With the repair on, a strategy no split of which fits memory is dropped whatever its best split;
    // the limits tell that in O(k·L) before any layer DP (most strategies of a large cluster are such).
    std::vector<std::vector<int>> limits;
    if (repairMemory) {
        limits = memoryLimits(p, mbs, gas, stop);
        if (limits.empty()) {
            e.stopped = true;
            return e;
        }
        if (!hasSplitWithinLimits(limits, L)) {
            e.seconds = std::numeric_limits<double>::infinity();
            e.fitsMemory = false;
            return e;
        }
    }
    Layout lay = layout(p, mbs, gas);
    lay.problem.stop = stop;
    auto solve = [&] {
        return method == LayerDpMethod::Paper ? solveLayerSplitAmp(lay.problem) : solveLayerSplit(lay.problem);
    };
    const bool stopped = stop && stop();
    LayerSplit split;
    if (repairMemory && method == LayerDpMethod::Fast && !stopped) {
        split = fastSplitWithRepair(p, mbs, gas, lay.problem, limits, e);
    } else {
        split = solve();
        e.dpSteps = split.evaluations;
        if (repairMemory && !split.bounds.empty() && !(stop && stop()) && !fitsMemory(p, mbs, gas, split.bounds)) {
            lay.problem.lastEnd = limits;
            LayerSplit fitting = solve();
            e.dpSteps += fitting.evaluations;
            if (!fitting.bounds.empty()) {
                split = std::move(fitting);
                e.repaired = true;
            }
        }
    }
    if (split.bounds.empty()) {
        e.seconds = std::numeric_limits<double>::infinity();
        e.fitsMemory = false;
        return e;
    }
    e.bounds = split.bounds;
    e.pipelineSeconds = pipelineSeconds(lay, e.bounds);
    e.syncSeconds = syncSeconds(p, e.bounds);
    e.seconds = e.pipelineSeconds + e.syncSeconds;
    e.fitsMemory = fitsMemory(p, mbs, gas, e.bounds);
    return e;
}

LayerSplit AmpCostModel::fastSplitWithRepair(const Placement& p, int mbs, int gas, PipelineProblem& problem,
                                             const std::vector<std::vector<int>>& limits, AmpEstimate& e) const
{
    // The same answer as "solve; if the split does not fit, re-solve with the misfits forbidden", in the
    // other order: the constrained DP is cheap (memory bounds every stage), and a split that fits costs at
    // least the constrained optimum, so an unconstrained walk that gets below it (with a margin for
    // rounding) has proved its answer does not fit and can stop there.
    problem.lastEnd = limits;
    LayerSplit fitting = solveLayerSplit(problem);
    problem.lastEnd.clear();
    if (!fitting.bounds.empty())
        problem.goal = fitting.cost * (1 - 1e-9);
    LayerSplit split = solveLayerSplit(problem);
    problem.goal = -std::numeric_limits<double>::infinity();
    e.dpSteps = split.evaluations + fitting.evaluations;
    if ((problem.stop && problem.stop()) || fitting.bounds.empty())
        return split; // cut short: keep what the unconstrained walk has, as the plain order does
    if (split.belowGoal || !fitsMemory(p, mbs, gas, split.bounds)) {
        e.repaired = true;
        return fitting;
    }
    return split;
}

AmpEstimate AmpCostModel::estimate(const Placement& p, int mbs, int gas, const std::vector<int>& bounds) const
{
    AmpEstimate e;
    e.bounds = bounds;
    e.pipelineSeconds = pipelineSeconds(p, mbs, gas, bounds);
    e.syncSeconds = syncSeconds(p, bounds);
    e.seconds = e.pipelineSeconds + e.syncSeconds;
    e.fitsMemory = fitsMemory(p, mbs, gas, bounds);
    return e;
}

} // namespace hetplan
