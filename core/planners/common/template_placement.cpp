#include "template_placement.h"

#include "core/base/errors.h"
#include "core/base/numbers.h"
#include "core/cost/collectives.h"
#include "core/cost/memory.h"

#include <QJsonObject>

#include <algorithm>
#include <cstdio>
#include <numeric>

namespace hetplan {

PlannerOption templateMicroBatchOption()
{
    return PlannerOption::integer("mbs", "Micro-batch", 0, 0, kMaxBatch,
                                  "micro-batch size; 0 = the largest node's GPU count (or 1 if that does not divide "
                                  "the global batch)");
}

PlannerOption maxStatesOption()
{
    return PlannerOption::integer("max_states", "State limit", 20000000, 1000, 1000000000,
                                  "refuse searches with more DP states than this instead of allocating them");
}

void checkStateCount(const PlanRequest& req, const std::string& planner, double states, const std::string& what)
{
    const double limit = req.intOption("max_states");
    if (states <= limit)
        return;
    throw InputError("cluster", "nodes",
                     planner + ": the search has " + messageNumber(states) + " states (" + what +
                         "), more than max_states " + messageNumber(limit) +
                         "; plan a smaller model or cluster, or raise max_states if memory allows");
}

std::vector<Node> groupTightestNodes(const std::vector<TypeGroup>& groups, const Cluster& cluster,
                                     const CostModel& costs)
{
    std::vector<Node> out;
    for (const TypeGroup& g : groups)
        out.push_back(tightestNode(cluster, g.nodes, costs.device(g.type)));
    return out;
}

namespace {
// FNV-1a over the values a template depends on.
class Fingerprint {
public:
    void add(double v) { bytes(&v, sizeof v); }
    void add(const std::string& s)
    {
        add(double(s.size()));
        bytes(s.data(), s.size());
    }
    std::string hex() const
    {
        char out[17];
        std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h_));
        return out;
    }

private:
    void bytes(const void* p, size_t n)
    {
        for (size_t i = 0; i < n; ++i)
            h_ = (h_ ^ static_cast<const unsigned char*>(p)[i]) * 1099511628211ull;
    }
    unsigned long long h_ = 1469598103934665603ull;
};
} // namespace

std::string templateInputsKey(const PlanRequest& req)
{
    Fingerprint f;
    f.add(req.model.name);
    for (const LayerSpec& l : req.model.layers)
        for (double v : {double(l.kind), l.params, l.forwardFlops, l.outputBytes, l.activationBytesSharded,
                         l.activationBytesReplicated, l.inputBytes, l.tpAllReduceBytes, l.attentionCoreBytes})
            f.add(v);
    const Job& j = req.job;
    for (double v : {double(j.globalBatchSize), double(j.sequenceLength), double(j.precision), double(j.zeroStage),
                     double(j.schedule), double(j.recompute), j.optimizerStateBytesPerParam, j.backwardFactor, j.memoryMargin,
                     double(j.selectiveRecompute), double(j.sequenceParallel), double(j.framework), j.moeCapacityFactor})
        f.add(v);
    f.add(req.profile.source);
    for (const auto& [key, layers] : req.profile.tables()) {
        f.add(key.deviceType);
        f.add(double(key.tp));
        f.add(double(key.microBatch));
        for (const LayerTiming& t : layers)
            for (double v : {t.forward, t.backward, t.update, t.activationBytes})
                f.add(v);
    }
    return f.hex();
}

void checkReusedInputs(const PlanRequest& req, const QJsonObject& stored, const std::string& planner)
{
    if (!stored.contains("inputs"))
        return;
    if (stored.value("inputs").toString().toStdString() != templateInputsKey(req))
        throw InputError("--reuse", planner + ".inputs",
                         "the stored templates were made for another model, job or measured profile; plan again "
                         "without reusing them");
}

PlannerOption searchedMicroBatchOption()
{
    return PlannerOption::integer("mbs", "Micro-batch", 0, 0, kMaxBatch,
                                  "micro-batch size; 0 = try 1, 2, 4, ... up to the largest node's GPU count "
                                  "(those dividing the global batch) and keep the best");
}

std::vector<int> templateMicroBatchCandidates(const PlanRequest& req)
{
    if (req.intOption("mbs") > 0)
        return {templateMicroBatchSize(req)};
    int largest = 1;
    for (const Node& n : req.cluster.nodes)
        largest = std::max(largest, n.gpus);
    std::vector<int> sizes;
    for (int m = 1; m <= largest; m *= 2)
        sizes.push_back(m);
    if (sizes.back() != largest)
        sizes.push_back(largest);
    std::erase_if(sizes, [&](int m) { return req.job.globalBatchSize % m != 0; });
    std::reverse(sizes.begin(), sizes.end());
    return sizes;
}

int templateMicroBatchSize(const PlanRequest& req)
{
    const int gbs = req.job.globalBatchSize;
    int mbs = req.intOption("mbs");
    if (mbs == 0) {
        for (const Node& n : req.cluster.nodes)
            mbs = std::max(mbs, n.gpus);
        return gbs % mbs == 0 ? mbs : 1;
    }
    if (gbs % mbs != 0)
        throw InputError("options", "mbs",
                         "micro-batch " + std::to_string(mbs) + " does not divide the global batch " +
                             std::to_string(gbs));
    return mbs;
}

std::vector<TypeGroup> typeGroups(const Cluster& cluster)
{
    std::vector<TypeGroup> groups;
    for (int n = 0; n < int(cluster.nodes.size()); ++n) {
        const Node& node = cluster.nodes[n];
        auto it = std::find_if(groups.begin(), groups.end(), [&](auto& g) { return g.type == node.deviceType; });
        if (it == groups.end()) {
            groups.push_back({node.deviceType, {}, 0, 0});
            it = groups.end() - 1;
        }
        it->nodes.push_back(n);
        it->gpus += node.gpus;
        it->maxNodeGpus = std::max(it->maxNodeGpus, node.gpus);
    }
    return groups;
}

std::vector<std::string> groupTypes(const std::vector<TypeGroup>& groups)
{
    std::vector<std::string> out;
    for (const TypeGroup& g : groups)
        out.push_back(g.type);
    return out;
}

std::vector<int> groupNodeSizes(const std::vector<TypeGroup>& groups)
{
    std::vector<int> out;
    for (const TypeGroup& g : groups)
        out.push_back(g.maxNodeGpus);
    return out;
}

std::vector<double> stageTimes(const std::vector<TemplateStage>& stages)
{
    std::vector<double> t;
    for (const TemplateStage& s : stages)
        t.push_back(s.time);
    return t;
}

bool refreshStages(std::vector<TemplateStage>& stages, const StageCosts& costs, const Job& job)
{
    const int S = int(stages.size());
    for (int s = 0; s < S; ++s) {
        TemplateStage& st = stages[s];
        const StageChoice c =
            costs.best(st.type, st.gpus, st.first, st.end, stageInFlight(job, s, S, costs.microBatches()));
        if (!c.ok())
            return false;
        st.time = c.time;
        st.shape = c.shape;
    }
    return true;
}

namespace {
// Free GPUs of each node of one type, as dense indices in local order.
struct NodePool {
    std::vector<std::vector<int>> free;

    // g GPUs: one node with room (the fullest that fits), else chunks of `chunk` from the emptiest nodes.
    std::vector<int> take(int g, int chunk)
    {
        int bestNode = -1;
        for (int n = 0; n < int(free.size()); ++n)
            if (int(free[n].size()) >= g && (bestNode < 0 || free[n].size() < free[bestNode].size()))
                bestNode = n;
        std::vector<int> out;
        if (bestNode >= 0)
            return grab(bestNode, g);
        while (int(out.size()) < g) {
            int most = -1;
            for (int n = 0; n < int(free.size()); ++n)
                if (int(free[n].size()) >= chunk && (most < 0 || free[n].size() > free[most].size()))
                    most = n;
            if (most < 0)
                return {};
            const std::vector<int> part =
                grab(most, std::min(int(free[most].size()) / chunk * chunk, g - int(out.size())));
            out.insert(out.end(), part.begin(), part.end());
        }
        return out;
    }
    std::vector<int> grab(int n, int g)
    {
        std::vector<int> out(free[n].begin(), free[n].begin() + g);
        free[n].erase(free[n].begin(), free[n].begin() + g);
        return out;
    }
};
} // namespace

Pipeline placeTemplate(const std::vector<TemplateStage>& stages, const Cluster& cluster,
                       const std::vector<TypeGroup>& groups, int microBatchSize, int microBatches)
{
    return placeReplicated(stages, cluster, groups, 1, microBatchSize, microBatches);
}

Pipeline placeReplicated(const std::vector<TemplateStage>& stages, const Cluster& cluster,
                         const std::vector<TypeGroup>& groups, int replicas, int microBatchSize, int microBatches,
                         CopyOrder order_)
{
    std::vector<NodePool> pools(groups.size());
    const std::vector<int> offsets = cluster.nodeOffsets();
    for (size_t t = 0; t < groups.size(); ++t)
        for (int n : groups[t].nodes) {
            std::vector<int> gpus(cluster.nodes[n].gpus);
            std::iota(gpus.begin(), gpus.end(), offsets[n]);
            pools[t].free.push_back(gpus);
        }
    Pipeline p;
    p.replicas = replicas;
    p.microBatchSize = microBatchSize;
    p.microBatches = microBatches;
    p.stages.resize(stages.size());
    // Largest stages first so whole nodes go to the stages that need them.
    std::vector<int> order(stages.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return stages[a].gpus > stages[b].gpus; });
    // ByCopy: one copy's stages of a type share a node where they can (their sends stay on the node's
    // links). ByStage: a stage's copies fill nodes together (its gradient all-reduce crosses fewer NICs).
    // Either way every stage's GPUs end up replica-major as Stage::gpus wants.
    std::vector<std::vector<std::vector<int>>> taken(stages.size(), std::vector<std::vector<int>>(size_t(replicas)));
    const auto place = [&](int s, int r) {
        const TemplateStage& ts = stages[s];
        taken[s][r] = pools[ts.type].take(ts.gpus, ts.shape.tp);
        if (int(taken[s][r].size()) != ts.gpus)
            throw InfeasibleError((replicas == 1 ? std::string("the template needs") :
                                                   std::to_string(replicas) + " copies of the template need") +
                                  " more " + groups[ts.type].type + " GPUs than the nodes can give");
    };
    for (int outer = 0; outer < (order_ == CopyOrder::ByCopy ? replicas : int(order.size())); ++outer)
        for (int inner = 0; inner < (order_ == CopyOrder::ByCopy ? int(order.size()) : replicas); ++inner)
            order_ == CopyOrder::ByCopy ? place(order[inner], outer) : place(order[outer], inner);
    for (size_t s = 0; s < stages.size(); ++s) {
        Stage& st = p.stages[s];
        st.firstLayer = stages[s].first;
        st.endLayer = stages[s].end;
        st.tensorParallel = stages[s].shape.tp;
        st.dataParallel = stages[s].shape.dp;
        for (const std::vector<int>& part : taken[s])
            st.gpus.insert(st.gpus.end(), part.begin(), part.end());
    }
    return p;
}

std::vector<int> replicaCounts(const std::vector<TypeGroup>& groups, const Cluster& cluster)
{
    std::vector<int> out;
    for (int k = 2; k <= 8; ++k) {
        bool splits = true;
        for (const TypeGroup& g : groups) {
            splits = splits && int(g.nodes.size()) % k == 0;
            for (int n : g.nodes)
                splits = splits && cluster.nodes[size_t(n)].gpus == g.maxNodeGpus;
        }
        if (splits)
            out.push_back(k);
    }
    return out;
}

PlannerOption pipelinesOption()
{
    return PlannerOption::integer("pipelines", "Pipelines", 0, 0, 8,
                                  "identical pipelines, each on its share of every type's nodes; 0 = try 1 and "
                                  "every count that splits the nodes evenly, keep the best");
}

std::vector<int> replicaCandidates(const PlanRequest& req, const std::vector<TypeGroup>& groups)
{
    const std::vector<int> splits = replicaCounts(groups, req.cluster);
    const int wanted = req.intOption("pipelines");
    if (wanted == 1)
        return {1};
    if (wanted > 1) {
        if (std::find(splits.begin(), splits.end(), wanted) == splits.end())
            throw InputError("options", "pipelines",
                             std::to_string(wanted) + " pipelines do not split every device type's nodes evenly");
        return {wanted};
    }
    std::vector<int> out{1};
    out.insert(out.end(), splits.begin(), splits.end());
    return out;
}

std::vector<TypeGroup> replicaShare(const std::vector<TypeGroup>& groups, const Cluster& cluster, int k, int r)
{
    std::vector<TypeGroup> out;
    for (const TypeGroup& g : groups) {
        TypeGroup s{g.type, {}, 0, g.maxNodeGpus};
        const size_t per = g.nodes.size() / size_t(k);
        for (size_t i = size_t(r) * per; i < size_t(r + 1) * per; ++i) {
            s.nodes.push_back(g.nodes[i]);
            s.gpus += cluster.nodes[size_t(g.nodes[i])].gpus;
        }
        out.push_back(s);
    }
    return out;
}

double replicaSyncSeconds(const std::vector<TemplateStage>& stages, const ModelSpec& model, const Job& job,
                          const Cluster& cluster, const std::vector<TypeGroup>& groups, int k)
{
    double worst = 0;
    for (const TemplateStage& s : stages) {
        double params = 0;
        for (int l = s.first; l < s.end; ++l)
            params += model.layers[size_t(l)].params;
        // Every GPU of the stage holds 1/tp of the tensor-parallel weights; together the node's GPUs send the
        // stage's whole gradient through its NIC.
        const Node& node = cluster.nodes[size_t(groups[size_t(s.type)].nodes.front())];
        const LinkParams nic{node.nicBandwidth > 0 ? node.nicBandwidth : cluster.intraBandwidthOf(node),
                             cluster.interLatency};
        worst = std::max(worst, ringAllReduce(params * job.gradReduceBytes(), k, nic));
    }
    return worst;
}

std::vector<Pipeline> placeReplicas(const std::vector<TemplateStage>& stages, const Cluster& cluster,
                                    const std::vector<TypeGroup>& groups, int k, int microBatchSize, int microBatches)
{
    std::vector<Pipeline> out;
    for (int r = 0; r < k; ++r)
        out.push_back(placeTemplate(stages, cluster, k == 1 ? groups : replicaShare(groups, cluster, k, r),
                                    microBatchSize, microBatches));
    return out;
}

QJsonArray templateJson(const std::vector<TemplateStage>& stages, const std::vector<TypeGroup>& groups)
{
    QJsonArray out;
    for (const TemplateStage& s : stages)
        out.append(QJsonObject{{"layers", QJsonArray{s.first, s.end}},
                               {"device", QString::fromStdString(groups[s.type].type)},
                               {"gpus", s.gpus},
                               {"tp", s.shape.tp},
                               {"dp", s.shape.dp},
                               {"seconds", s.time}});
    return out;
}

QJsonObject objectiveJson(const TemplateObjective& o)
{
    return QJsonObject{{"T", o.total()}, {"T1", o.t1}, {"T2", o.t2}, {"T3", o.t3}, {"slowest_stage", o.slowest + 1}};
}

} // namespace hetplan
