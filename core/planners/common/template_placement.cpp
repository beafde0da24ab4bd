#include "template_placement.h"

#include "core/base/errors.h"

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
    char why[320];
    std::snprintf(why, sizeof why, "%s: the search has %.0f states (%s), more than max_states %.0f", planner.c_str(),
                  states, what.c_str(), limit);
    throw InputError("cluster", "nodes",
                     std::string(why) + "; plan a smaller model or cluster, or raise max_states if memory allows");
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
    std::vector<NodePool> pools(groups.size());
    const std::vector<int> offsets = cluster.nodeOffsets();
    for (size_t t = 0; t < groups.size(); ++t)
        for (int n : groups[t].nodes) {
            std::vector<int> gpus(cluster.nodes[n].gpus);
            std::iota(gpus.begin(), gpus.end(), offsets[n]);
            pools[t].free.push_back(gpus);
        }
    Pipeline p;
    p.microBatchSize = microBatchSize;
    p.microBatches = microBatches;
    p.stages.resize(stages.size());
    // Largest stages first so whole nodes go to the stages that need them.
    std::vector<int> order(stages.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return stages[a].gpus > stages[b].gpus; });
    for (int s : order) {
        const TemplateStage& ts = stages[s];
        Stage& st = p.stages[s];
        st.firstLayer = ts.first;
        st.endLayer = ts.end;
        st.tensorParallel = ts.shape.tp;
        st.dataParallel = ts.shape.dp;
        st.gpus = pools[ts.type].take(ts.gpus, ts.shape.tp);
        if (int(st.gpus.size()) != ts.gpus)
            throw InfeasibleError("template needs more " + groups[ts.type].type + " GPUs than the cluster has");
    }
    return p;
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
