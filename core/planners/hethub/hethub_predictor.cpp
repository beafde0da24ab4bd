#include "hethub_predictor.h"

#include "core/cost/memory.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hetplan::hethub {

Predictor::Predictor(const Cluster& cluster, const CostModel& costs, const std::vector<TypeGroup>& groups,
                     const SpaceConfig& config)
    : cluster_(cluster),
      costs_(costs),
      groups_(groups),
      config_(config),
      decoders_(decoderRange(costs.model())),
      links_(cluster, groups, config)
{
    for (const TypeGroup& g : groups_) {
        tables_.push_back(makeTable(g));
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
    t.back.assign(L + 1, 0.0);
    for (int l = 0; l < L; ++l) {
        const double delta = config_.tp > 1 ? costs_.tpLinkDelta(l, l + 1, g.device, config_.tp, mbs, tpLink) : 0;
        t.time[l + 1] = t.time[l] + layers[l].forward + layers[l].backward + 2 * delta;
        t.update[l + 1] = t.update[l] + layers[l].update;
        t.back[l + 1] = t.back[l] + layers[l].backward + delta;
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
        room = std::max(room, usableMemory(cluster_.nodes[size_t(node)], device, job,
                                           RankGroups::pipelineStage(tp, 1, 1, 0, false))); // the fewest groups
    // Per decoder layer: its model states, activations per micro-batch in flight, and recompute buffer. A
    // decoder window's stage memory is the sum of the first two plus the largest buffer (core/cost/memory.h;
    // no tied embedding copy without the head), so every window is summed here in O(D²), not O(D³).
    // The allocator reserve is the window's largest layer, like the recompute buffer; the gradient buffer
    // follows the window's parameters.
    std::vector<double> states(D), perMb(D), once(D), reserve(D), params(D);
    const std::vector<StageActivations> alone =
        layerStageActivations(model, decoders_.first, decoders_.first + D, tp, mbs, job);
    for (int i = 0; i < D; ++i) {
        const int l = decoders_.first + i;
        states[i] = modelStateMemory(model, l, l + 1, tp, shards, job).total();
        const StageActivations& a = alone[size_t(i)];
        perMb[i] = a.perMicroBatch;
        once[i] = a.oncePerStage;
        reserve[i] = mbs > 0 ? a.largestLayer : 0;
        const LayerSpec& layer = model.layers[size_t(l)];
        params[i] = layer.tensorParallel ? layer.params / std::max(1, tp) : layer.params;
    }
    std::vector<int> best(D + 1, 0);
    best[0] = M;
    for (int a = 0; a < D; ++a) {
        double st = 0, act = 0, buf = 0, res = 0, par = 0;
        for (int n = 1; a + n <= D; ++n) {
            st += states[a + n - 1];
            act += perMb[a + n - 1];
            buf = std::max(buf, once[a + n - 1]);
            res = std::max(res, reserve[a + n - 1]);
            par += params[a + n - 1];
            const double left = room - st - buf - res - gradientBufferMemory(par, job);
            // 1e-9 of slack rounds up, never down: a bound must not cut a stage that fits.
            const double ratio = act > 0 ? left / act * (1 + 1e-9) : (left >= 0 ? M : 0);
            const int f = ratio >= 1 ? int(std::min<double>(M, std::floor(ratio))) : 0;
            best[n] = std::max(best[n], f);
            if (f == 0) // a longer window only holds more and has less room: no wider window fits either
                break;
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

double pipelineSeconds(const std::vector<double>& t, const std::vector<double>& back, const std::vector<double>& c,
                       int M)
{
    const size_t S = t.size();
    double downstream = 0; // Σ_{s'>s} t_s' + 2 Σ_{s'≥s} c_s': micro-batch 0's round trip below s
    std::vector<double> roundTrip(S, 0.0);
    for (size_t s = S; s-- > 0;) {
        downstream += 2 * c[s];
        roundTrip[s] = downstream;
        downstream += t[s];
    }
    double before = 0, best = 0; // before = A_s + D_s = Σ_{s'<s} (t_s' + c_s') + Σ_{s'<s−1} c_s'
    for (size_t s = 0; s < S; ++s) {
        const double send = s + 1 < S ? c[s] : 0.0, cycle = t[s] + send + (s > 0 ? c[s - 1] : 0.0);
        const double w = std::min<double>(double(S - s - 1), M), forward = t[s] - back[s];
        const double idle = w > 0 ? std::max(0.0, roundTrip[s] - w * (forward + send)) : 0.0;
        best = std::max(best, before + M * cycle + idle);
        before += t[s] + send + (s > 0 ? c[s - 1] : 0.0); // e_s holds s's send up, so D_s skips it
    }
    return best;
}

LeafScore Predictor::score(const std::vector<StageSlot>& order) const
{
    const ModelSpec& model = costs_.model();
    const Job& job = costs_.job();
    const std::vector<int> b = bounds(order);
    const int S = int(order.size()), M = config_.microBatches;
    const double mbs = config_.microBatchSize;
    const int shards = job.zeroStage > 0 ? config_.dp : 1;
    const std::vector<std::vector<int>> gpus = stageGpus(order);
    const size_t n = order.size();
    std::vector<int> chunk(n), used(groups_.size(), 0);
    for (int s = 0; s < S; ++s)
        chunk[size_t(s)] = links_.chunk(order[s].type, used[size_t(order[s].type)]++);
    std::vector<double> t(n), back(n), c(n, 0.0); // c[s]: the send from s to s + 1
    LeafScore out;
    for (int s = 0; s < S; ++s) {
        const TypeTable& tt = tables_[order[s].type];
        t[size_t(s)] = tt.time[b[s + 1]] - tt.time[b[s]];
        back[size_t(s)] = tt.back[b[s + 1]] - tt.back[b[s]];
        if (s + 1 < S) {
            const double bytes = model.layers[b[s + 1] - 1].outputBytes * job.activationScale() * mbs;
            c[size_t(s)] = pointToPoint(bytes, links_.boundary(chunk[size_t(s)], chunk[size_t(s) + 1]));
        }
        const double peak = stagePeakMemory(model, b[s], b[s + 1], config_.tp, shards, mbs, std::min(S - s, M), job);
        const DeviceType& device = costs_.device(groups_[order[s].type].device);
        const RankGroups groups = RankGroups::pipelineStage(config_.tp, config_.dp, S, s, model.arch.tiedEmbeddings);
        out.fits = out.fits &&
                   fitsMemory(peak, tightestNode(cluster_, cluster_.nodesOf(gpus[s]), device), device, job, groups);
    }
    const double pipe = pipelineSeconds(t, back, c, M);
    // Gradient sync per stage from the end of its last backward (reduce-scatter, step on the shard and
    // all-gather under ZeRO, as the simulator does).
    const double tiedParams = model.tiedCopyParams(b[S - 1], b[S]) / config_.tp;
    std::vector<double> synced(n), step(n);
    double ready = pipe;
    for (int s = 0; s < S; ++s) {
        const TypeTable& tt = tables_[order[s].type];
        const double params = paramsPerRank_[b[s + 1]] - paramsPerRank_[b[s]] + (s == S - 1 ? tiedParams : 0.0);
        const LinkParams& dl = links_.data(chunk[size_t(s)]);
        const double grads = params * job.gradReduceBytes();
        step[size_t(s)] = (tt.update[b[s + 1]] - tt.update[b[s]]) / shards;
        if (shards > 1)
            step[size_t(s)] += ringAllGather(params * job.bytesPerValue(), config_.dp, dl);
        synced[size_t(s)] =
            ready + (shards > 1 ? ringReduceScatter(grads, config_.dp, dl) : ringAllReduce(grads, config_.dp, dl));
        if (s + 1 < S)
            ready -= back[size_t(s)] + (s > 0 ? c[size_t(s) - 1] : 0.0);
    }
    if (S > 1 && tiedParams > 0) {
        const double both =
            std::max(synced[0], synced[size_t(S) - 1]) +
            ringAllReduce(tiedParams * job.gradReduceBytes(), 2, links_.tied(chunk[0], chunk[size_t(S) - 1]));
        synced[0] = synced[size_t(S) - 1] = both;
    }
    out.seconds = 0;
    for (int s = 0; s < S; ++s)
        out.seconds = std::max(out.seconds, synced[size_t(s)] + step[size_t(s)]);
    return out;
}

} // namespace hetplan::hethub
