#include "stage_costs.h"

#include "core/cost/collectives.h"
#include "core/cost/memory.h"
#include "core/model/frameworks.h"
#include "core/planners/planner.h"

#include <algorithm>

namespace hetplan {

namespace {

// stagePeakMemory(model, first, end, tp, shards, micro, k, job) for one first layer and every end in turn,
// each step O(1) instead of O(end - first): the same terms added in the same order as stageMemory
// (core/cost/memory.cpp) adds them, so every peak is the very double it returns. Unlike StagePeakScan it
// takes no measured activations, as stagePeakMemory does not.
class RangePeak {
public:
    RangePeak(const ModelSpec& model, const Job& job, int tp, int shards, double microBatch)
        : model_(model), job_(job), tp_(std::max(1, tp)), shards_(shards), microBatch_(microBatch)
    {
        const bool sp = job.runsSequenceParallel(tp, model.hasMoeLayers());
        for (const LayerSpec& l : model.layers) {
            params_.push_back(l.tensorParallel ? l.params / tp_ : l.params);
            const LayerActivation a = layerActivation(l, tp, microBatch, job, sp);
            full_.push_back(a.full);
            kept_.push_back(a.kept);
        }
    }
    void start(int first)
    {
        end_ = first;
        paramSum_ = keptSum_ = largest_ = 0;
        head_ = embedding_ = false;
    }
    void extend()
    {
        paramSum_ += params_[size_t(end_)];
        keptSum_ += kept_[size_t(end_)];
        largest_ = std::max(largest_, full_[size_t(end_)]);
        head_ |= model_.layers[size_t(end_)].kind == LayerKind::Head;
        embedding_ |= model_.layers[size_t(end_)].kind == LayerKind::Embedding;
        ++end_;
    }
    double peak(int inFlight) const
    {
        StageActivations a;
        a.perMicroBatch = keptSum_;
        a.oncePerStage = job_.recompute ? largest_ : 0;
        a.largestLayer = largest_;
        // ModelSpec::tiedCopyParams: a stage holding the head but not the embedding keeps a tied copy.
        const double tied = model_.arch.tiedEmbeddings && head_ && !embedding_ ? model_.arch.wordEmbeddingParams() : 0;
        const double params = paramSum_ + tied / tp_;
        return stageParts(params, shards_, a, inFlight, microBatch_, job_).stagePart();
    }

private:
    const ModelSpec& model_;
    const Job& job_;
    int tp_, shards_;
    double microBatch_;
    std::vector<double> params_, full_, kept_; // per layer
    int end_ = 0;
    double paramSum_ = 0, keptSum_ = 0, largest_ = 0;
    bool head_ = false, embedding_ = false;
};

} // namespace

TemplateObjective templateObjective(const std::vector<double>& t, int microBatches)
{
    TemplateObjective o;
    if (t.empty())
        return o;
    const int S = int(t.size());
    for (int s = 0; s < S; ++s) {
        o.t1 += t[s];
        if (t[s] >= t[o.slowest])
            o.slowest = s;
    }
    const int kStar = o.slowest + 1;
    o.t2 = double(microBatches - S + kStar - 1) * t[o.slowest];
    o.t3 = double(S - kStar) * t[o.slowest];
    return o;
}

int stageInFlight(const Job& job, int s, int stages, int microBatches)
{
    return job.schedule == Schedule::GPipe ? microBatches : std::min(stages - s, microBatches);
}

StageCosts::StageCosts(const CostModel& costs, const Job& job, std::vector<std::string> types, std::vector<int> maxGpus,
                       int microBatchSize, int microBatches, std::vector<Node> nodes, const Cluster* cluster,
                       Memory memory)
    : nodes_(std::move(nodes)),
      cluster_(cluster),
      job_(job),
      types_(std::move(types)),
      maxGpus_(std::move(maxGpus)),
      layers_(costs.model().layerCount()),
      microBatchSize_(microBatchSize),
      microBatches_(microBatches)
{
    tables_.resize(types_.size());
    for (int i = 0; i < typeCount(); ++i) {
        tables_[i].resize(maxGpus_[i] + 1);
        for (int g = 1; g <= maxGpus_[i]; ++g)
            for (int tp = 1; tp <= g; ++tp) {
                const int dp = g / tp;
                if (g % tp != 0 || microBatchSize % dp != 0)
                    continue;
                if (tp > 1 && !tensorParallelProblem(costs.model(), tp).empty())
                    continue;
                addShape(costs, job, i, g, {tp, dp});
            }
    }
    if (memory == Memory::Fit)
        fitMemory(costs, nullptr);
}

void StageCosts::addShape(const CostModel& costs, const Job& job, int type, int g, StageShape shape)
{
    const double micro = double(microBatchSize_) / shape.dp;
    const std::vector<LayerTiming> times = costs.layers(types_[type], shape.tp, micro);
    Shape s;
    s.shape = shape;
    s.prefix.assign(layers_ + 1, 0.0);
    for (int l = 0; l < layers_; ++l)
        s.prefix[l + 1] = s.prefix[l] + times[l].forward + times[l].backward;
    if (cluster_) {
        // The optimizer step runs once per iteration after the flush; like the gradient sync, it is spread
        // over the micro-batches so T keeps its (sum, max) form.
        s.updatePrefix.assign(size_t(layers_ + 1), 0.0);
        for (int l = 0; l < layers_; ++l)
            s.updatePrefix[size_t(l + 1)] = s.updatePrefix[size_t(l)] + times[l].update / std::max(1, microBatches_);
    }
    if (cluster_ && size_t(type) < nodes_.size())
        addCommunication(s, costs, job, nodeOf(type));
    tables_[type][g].push_back(std::move(s));
}

Node StageCosts::nodeOf(int type) const
{
    // The catalog's runtime overhead for the type, unless the caller named the tightest node.
    if (size_t(type) < nodes_.size())
        return nodes_[size_t(type)];
    Node node;
    node.deviceType = types_[type];
    return node;
}

double StageCosts::memoryEntries() const
{
    double shapes = 0;
    for (const auto& byGpus : tables_)
        for (const auto& list : byGpus)
            shapes += double(list.size());
    return shapes * double(layers_ + 1) * double(layers_ + 1);
}

void StageCosts::fitMemory(const CostModel& costs, const Progress* progress)
{
    for (int i = 0; i < typeCount(); ++i)
        for (auto& list : tables_[i])
            for (Shape& s : list)
                fitShape(costs, i, s, progress);
}

void StageCosts::fitShape(const CostModel& costs, int type, Shape& s, const Progress* progress) const
{
    const DeviceType& device = costs.device(types_[type]);
    const Node node = nodeOf(type);
    const int shards = job_.zeroStage > 0 ? s.shape.dp : 1;
    const int most = std::max(1, microBatches_); // 1F1B keeps at most N_b in flight, GPipe exactly N_b
    RangePeak peak(costs.model(), job_, s.shape.tp, shards, double(microBatchSize_) / s.shape.dp);
    s.maxInFlight.assign(size_t(layers_ + 1) * (layers_ + 1), 0);
    for (int u = 0; u < layers_; ++u) {
        if (progress)
            progress->checkpoint();
        peak.start(u);
        for (int v = u + 1; v <= layers_; ++v) {
            peak.extend();
            // The stage's communicators as far as a template knows them: its tp group, a data-parallel group
            // (replicas or other pipelines may hold the same layers), and, unless it holds the whole model, a
            // pipeline position it does not know yet (the worst is counted).
            const bool whole = u == 0 && v == layers_;
            const RankGroups groups = RankGroups::pipelineStage(s.shape.tp, 2, whole ? 1 : 3, whole ? 0 : -1,
                                                                costs.model().arch.tiedEmbeddings);
            auto fits = [&](int k) { return fitsMemory(peak.peak(k), node, device, job_, groups); };
            // Peak memory grows with the micro-batches in flight: binary search the largest that fits.
            if (!fits(1))
                break; // longer ranges from u only need more memory
            int lo = 1, hi = most;
            while (lo < hi) {
                const int mid = (lo + hi + 1) / 2;
                if (fits(mid))
                    lo = mid;
                else
                    hi = mid - 1;
            }
            s.maxInFlight[size_t(u) * (layers_ + 1) + v] = lo;
        }
    }
}

StageChoice StageCosts::best(int type, int g, int u, int v, int inFlight) const
{
    StageChoice c;
    if (g < 1 || g > maxGpus_[type])
        return c;
    for (const Shape& s : tables_[type][g]) {
        const double t = s.time(u, v);
        if (t < c.time && s.maxInFlight[size_t(u) * (layers_ + 1) + v] >= std::max(1, inFlight)) {
            c.time = t;
            c.shape = s.shape;
        }
    }
    return c;
}

double StageCosts::fastest(int type, int g, int u, int v) const
{
    double t = kNoStage;
    if (g < 1 || g > maxGpus_[type])
        return t;
    for (const Shape& s : tables_[type][g])
        t = std::min(t, s.time(u, v));
    return t;
}

double StageCosts::fastestCompute(int type, int g, int u, int v) const
{
    double t = kNoStage;
    if (g < 1 || g > maxGpus_[type])
        return t;
    for (const Shape& s : tables_[type][g])
        t = std::min(t, s.prefix[v] - s.prefix[u]);
    return t;
}

void StageCosts::addCommunication(Shape& s, const CostModel& costs, const Job& job, const Node& node) const
{
    const ModelSpec& model = costs.model();
    const LinkParams nic{node.nicBandwidth > 0 ? node.nicBandwidth : cluster_->intraBandwidthOf(node),
                         cluster_->interLatency};
    s.send.assign(size_t(layers_ + 1), 0.0);
    for (int v = 1; v < layers_; ++v) {
        // The stage's whole micro-batch leaves through its node's one NIC (its data-parallel ranks share it).
        const double bytes = model.layers[size_t(v - 1)].outputBytes * job.activationScale() * microBatchSize_;
        s.send[size_t(v)] = 2 * pointToPoint(bytes, nic); // the activation forward, its gradient back
    }
    if (s.shape.dp <= 1)
        return;
    s.gradPrefix.assign(size_t(layers_ + 1), 0.0);
    for (int l = 0; l < layers_; ++l) {
        const LayerSpec& layer = model.layers[size_t(l)];
        const double params = layer.tensorParallel ? layer.params / s.shape.tp : layer.params;
        s.gradPrefix[size_t(l + 1)] = s.gradPrefix[size_t(l)] + params * job.gradReduceBytes();
    }
    // ringAllReduce(bytes, n) = 2 (n - 1) latency + 2 (n - 1) / n · bytes / bandwidth: affine in the
    // bytes, so a stage's share is two numbers; spread over the N_b micro-batches.
    const LinkParams intra{cluster_->intraBandwidthOf(node), cluster_->intraLatency};
    const int n = s.shape.dp;
    const double perMicroBatch = 1.0 / std::max(1, microBatches_);
    s.syncFixed = 2.0 * (n - 1) * intra.latency * perMicroBatch;
    s.syncPerByte = 2.0 * (n - 1) / n / intra.bandwidth * perMicroBatch;
}

PrefixBound::PrefixBound(const StageCosts& costs) : microBatches_(costs.microBatches())
{
    const int L = costs.layers();
    work_.assign(L + 1, 0.0);
    std::vector<double> ref(L);
    for (int l = 0; l < L; ++l) {
        ref[l] = costs.fastestCompute(0, 1, l, l + 1);
        work_[l + 1] = work_[l] + ref[l];
    }
    sigma_.assign(costs.typeCount(), 0.0);
    for (int i = 0; i < costs.typeCount(); ++i)
        for (int g = 1; g <= costs.maxGpus(i); ++g) {
            if (!costs.hasShape(i, g))
                continue;
            double rho = kNoStage;
            for (int l = 0; l < L; ++l)
                if (ref[l] > 0)
                    rho = std::min(rho, g * costs.fastestCompute(i, g, l, l + 1) / ref[l]);
            rho = std::max(rho, 1e-12);
            sigma_[i] = std::max(sigma_[i], 1.0 / rho);
            gamma_ = std::max(gamma_, g / rho);
        }
}

double PrefixBound::objective(double sum, double max, int u, double capacity) const
{
    if (u == 0 || work_[u] <= 0)
        return objectiveOf(sum, max, microBatches_);
    if (capacity <= 0)
        return kNoStage;
    return objectiveOf(sum + work_[u] / gamma_, std::max(max, work_[u] / capacity), microBatches_);
}

} // namespace hetplan
