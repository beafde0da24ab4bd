#include "amp_cost.h"

#include "core/cost/collectives.h"
#include "core/cost/memory.h"

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
    for (int g = 0; g < cluster.gpuCount(); ++g)
        gpuNode_.push_back(cluster.gpu(g).node);
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

bool AmpCostModel::stageFits(const Placement& p, int s, int first, int end, int mbs, int gas) const
{
    const Degrees d = p.degrees;
    const Job& job = costs_.job();
    const int inFlight = job.schedule == Schedule::GPipe ? gas : std::min(d.pp - s, gas);
    const int shards = job.zeroStage > 0 ? d.dp : 1;
    std::set<int> nodes;
    for (int g : p.stageGpus(s))
        nodes.insert(gpuNode_[g]);
    for (int n : nodes) {
        const Node& node = cluster_.nodes[n];
        const double peak = costs_.stagePeak(first, end, node.deviceType, d.tp, shards, mbs, inFlight);
        if (!hetplan::fitsMemory(peak, node, costs_.device(node.deviceType)))
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

std::vector<char> AmpCostModel::memoryMask(const Placement& p, int mbs, int gas) const
{
    const int L = costs_.model().layerCount(), k = p.degrees.pp;
    std::vector<char> mask(size_t(k) * (L + 1) * (L + 1), 0);
    for (int s = 0; s < k; ++s)
        for (int a = s; a <= L - (k - s); ++a)
            for (int b = a + 1; b <= L - (k - 1 - s); ++b) {
                // Memory grows with the stage: once [a, b) does not fit, neither does any longer one.
                if (!stageFits(p, s, a, b, mbs, gas))
                    break;
                mask[(size_t(s) * (L + 1) + a) * (L + 1) + b] = 1;
            }
    return mask;
}

AmpEstimate AmpCostModel::evaluate(const Placement& p, int mbs, int gas, LayerDpMethod method, bool repairMemory,
                                   const std::function<bool()>& stop) const
{
    Layout lay = layout(p, mbs, gas);
    lay.problem.stop = stop;
    auto solve = [&] {
        return method == LayerDpMethod::Paper ? solveLayerSplitAmp(lay.problem) : solveLayerSplit(lay.problem);
    };
    LayerSplit split = solve();
    AmpEstimate e;
    e.dpSteps = split.evaluations;
    if (repairMemory && !split.bounds.empty() && !(stop && stop()) && !fitsMemory(p, mbs, gas, split.bounds)) {
        lay.problem.allowed = memoryMask(p, mbs, gas);
        LayerSplit fitting = solve();
        e.dpSteps += fitting.evaluations;
        if (!fitting.bounds.empty()) {
            split = std::move(fitting);
            e.repaired = true;
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
