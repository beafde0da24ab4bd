#include "hethub_predictor.h"

#include "core/cost/memory.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hetplan::hethub {

Predictor::Predictor(const Cluster& cluster, const CostModel& costs, const std::vector<TypeGroup>& groups,
                     const SpaceConfig& config)
    : cluster_(cluster), costs_(costs), groups_(groups), config_(config), decoders_(decoderRange(costs.model()))
{
    for (const TypeGroup& g : groups_) {
        tables_.push_back(makeTable(g));
        dataLinks_.push_back(dataLink(cluster_, g, config_));
        tolerance_.push_back(computeTolerance(g));
        int n = 0;
        while (n < decoders_.count() && tolerance_.back()[n + 1] >= 1)
            ++n;
        maxStageLayers_.push_back(n);
    }
    const ModelSpec& model = costs_.model();
    paramsPerRank_.assign(model.layers.size() + 1, 0.0);
    for (size_t l = 0; l < model.layers.size(); ++l) {
        const LayerSpec& s = model.layers[l];
        paramsPerRank_[l + 1] = paramsPerRank_[l] + (s.tensorParallel ? s.params / config_.tp : s.params);
    }
}

TypeTable Predictor::makeTable(const TypeGroup& g) const
{
    const int L = costs_.model().layerCount();
    const double mbs = config_.microBatchSize;
    const LinkParams tpLink = tensorLink(cluster_, g, config_.tp);
    const std::vector<LayerTiming> layers = costs_.layers(g.device, config_.tp, mbs);
    TypeTable t;
    t.time.assign(L + 1, 0.0);
    t.update.assign(L + 1, 0.0);
    for (int l = 0; l < L; ++l) {
        const double delta = config_.tp > 1 ? costs_.tpLinkDelta(l, l + 1, g.device, config_.tp, mbs, tpLink) : 0;
        t.time[l + 1] = t.time[l] + layers[l].forward + layers[l].backward + 2 * delta;
        t.update[l + 1] = t.update[l] + layers[l].update;
    }
    // The fastest window of n decoder layers: a lower bound for any stage holding n of them, and
    // nondecreasing in n (a window of n + 1 layers contains one of n).
    const int D = decoders_.count();
    t.decoder.assign(D + 1, 0.0);
    for (int n = 1; n <= D; ++n) {
        double best = std::numeric_limits<double>::infinity();
        for (int a = decoders_.first; a + n <= decoders_.end; ++a)
            best = std::min(best, t.time[a + n] - t.time[a]);
        t.decoder[n] = std::max(best, t.decoder[n - 1]);
    }
    return t;
}

std::vector<int> Predictor::computeTolerance(const TypeGroup& g) const
{
    const ModelSpec& model = costs_.model();
    const Job& job = costs_.job();
    const DeviceType& device = costs_.device(g.device);
    const int M = config_.microBatches, D = decoders_.count(), tp = config_.tp;
    const double mbs = config_.microBatchSize;
    const int shards = job.zeroStage > 0 ? config_.dp : 1;
    // The roomiest node's usable memory: the tolerance is an upper bound (a stage the roomiest node cannot
    // hold fits nowhere of the type); the score's own check uses each stage's tightest node.
    double room = -std::numeric_limits<double>::infinity();
    for (int node : cluster_.nodesOf(g.gpus))
        room = std::max(room, usableMemory(cluster_.nodes[size_t(node)], device, job));
    // Per decoder layer: its model states, activations per micro-batch in flight, and recompute buffer. A
    // decoder window's stage memory is the sum of the first two plus the largest buffer (core/cost/memory.h;
    // no tied embedding copy without the head), so every window is summed here in O(D²), not O(D³).
    std::vector<double> states(D), perMb(D), once(D);
    for (int i = 0; i < D; ++i) {
        const int l = decoders_.first + i;
        states[i] = modelStateMemory(model, l, l + 1, tp, shards, job).total();
        const StageActivations a = stageActivations(model, l, l + 1, tp, mbs, job);
        perMb[i] = a.perMicroBatch;
        once[i] = a.oncePerStage;
    }
    std::vector<int> best(D + 1, 0);
    best[0] = M;
    for (int a = 0; a < D; ++a) {
        double st = 0, act = 0, buf = 0;
        for (int n = 1; a + n <= D; ++n) {
            st += states[a + n - 1];
            act += perMb[a + n - 1];
            buf = std::max(buf, once[a + n - 1]);
            const double left = room - st - buf;
            // 1e-9 of slack rounds up, never down: a bound must not cut a stage that fits.
            const double ratio = act > 0 ? left / act * (1 + 1e-9) : (left >= 0 ? M : 0);
            const int f = ratio >= 1 ? int(std::min<double>(M, std::floor(ratio))) : 0;
            best[n] = std::max(best[n], f);
        }
    }
    for (int n = 1; n <= D; ++n) // a stage of n + 1 layers holds one of n: never more tolerant
        best[n] = std::min(best[n], best[n - 1]);
    return best;
}

std::vector<StageSlot> Predictor::descendingOrder(const std::vector<int>& layersPerType) const
{
    std::vector<StageSlot> stageList;
    for (size_t i = 0; i < layersPerType.size(); ++i) {
        const int p = config_.stagesPerType[i], q = layersPerType[i] / p, extra = layersPerType[i] % p;
        for (int k = 0; k < p; ++k)
            stageList.push_back({int(i), q + (k < extra ? 1 : 0)});
    }
    std::stable_sort(stageList.begin(), stageList.end(), [&](const StageSlot& a, const StageSlot& b) {
        return decoderSeconds(a.type, a.layers) > decoderSeconds(b.type, b.layers);
    });
    return stageList;
}

std::vector<int> Predictor::bounds(const std::vector<StageSlot>& order) const
{
    std::vector<int> b{0};
    int at = decoders_.first;
    for (size_t s = 0; s < order.size(); ++s) {
        at += order[s].layers;
        b.push_back(s + 1 == order.size() ? costs_.model().layerCount() : at);
    }
    return b;
}

std::vector<std::vector<int>> Predictor::stageGpus(const std::vector<StageSlot>& order) const
{
    std::vector<int> used(groups_.size(), 0);
    std::vector<std::vector<int>> out;
    for (const StageSlot& s : order)
        out.push_back(stageChunk(groups_[s.type], config_, used[s.type]++));
    return out;
}

LeafScore Predictor::score(const std::vector<StageSlot>& order) const
{
    const ModelSpec& model = costs_.model();
    const Job& job = costs_.job();
    const std::vector<int> b = bounds(order);
    const std::vector<std::vector<int>> gpus = stageGpus(order);
    const int S = int(order.size()), M = config_.microBatches;
    const double mbs = config_.microBatchSize;
    const int shards = job.zeroStage > 0 ? config_.dp : 1;
    double sum = 0, comm = 0, tmax = 0, cmax = 0, sync = 0;
    LeafScore out;
    for (int s = 0; s < S; ++s) {
        const TypeTable& t = tables_[order[s].type];
        const double ts = t.time[b[s + 1]] - t.time[b[s]];
        sum += ts;
        tmax = std::max(tmax, ts);
        if (s + 1 < S) {
            const int src = gpus[s].front(), dst = gpus[s + 1].front();
            const double bytes = model.layers[b[s + 1] - 1].outputBytes * job.activationScale() * mbs;
            const double c = pointToPoint(bytes, {cluster_.bandwidth(src, dst), cluster_.latency(src, dst)});
            comm += 2 * c;
            cmax = std::max(cmax, c);
        }
        const double gradBytes = (paramsPerRank_[b[s + 1]] - paramsPerRank_[b[s]]) * job.bytesPerValue();
        const double ar = ringAllReduce(gradBytes, config_.dp, dataLinks_[order[s].type]);
        sync = std::max(sync, ar + t.update[b[s + 1]] - t.update[b[s]]);
        const double peak = stagePeakMemory(model, b[s], b[s + 1], config_.tp, shards, mbs, std::min(S - s, M), job);
        const DeviceType& device = costs_.device(groups_[order[s].type].device);
        out.fits = out.fits && fitsMemory(peak, tightestNode(cluster_, cluster_.nodesOf(gpus[s]), device), device, job);
    }
    out.seconds = sum + comm + (M - 1) * std::max(tmax, cmax) + sync;
    return out;
}

} // namespace hetplan::hethub
