#include "oobleck.h"

#include "instantiate.h"

#include "core/base/errors.h"
#include "core/planners/common/oobleck_templates.h"

#include <QJsonArray>
#include <QJsonObject>

namespace hetplan {

std::vector<PlannerOption> OobleckPlanner::options() const { return {templateMicroBatchOption(), maxStatesOption()}; }

namespace {

// The one device type and node size of a homogeneous cluster. Any other cluster is outside Oobleck's
// domain (its templates assume one GPU type and equal nodes): an input error pointing to ditto, not "no
// feasible plan", so comparisons list oobleck as not applicable rather than as failing.
TypeGroup homogeneousGroup(const Cluster& cluster)
{
    const std::vector<TypeGroup> groups = typeGroups(cluster);
    if (groups.size() != 1) {
        std::string types;
        for (const TypeGroup& g : groups)
            types += (types.empty() ? "" : ", ") + g.type;
        throw InputError("cluster", "nodes",
                         "oobleck plans homogeneous clusters; this one mixes " + types +
                             " — use ditto (or exhaustive) for heterogeneous clusters");
    }
    for (int n : groups[0].nodes)
        if (cluster.nodes[n].gpus != groups[0].maxNodeGpus)
            throw InputError("cluster", "nodes",
                             "oobleck needs nodes of equal size (node '" + cluster.nodes[n].name + "' has " +
                                 std::to_string(cluster.nodes[n].gpus) + " GPUs, others " +
                                 std::to_string(groups[0].maxNodeGpus) + ") — use ditto");
    return groups[0];
}

QJsonObject oobleckTableJson(const TemplateTable& table, const TypeGroup& group, int mbs, int microBatches)
{
    QJsonArray templates;
    for (int gpus : table.gpuCounts()) {
        if (gpus % group.maxNodeGpus != 0)
            continue; // whole nodes only
        const PipelineTemplate* best = table.best(gpus, microBatches);
        QJsonObject byStages;
        for (auto it = table.entries.lower_bound({gpus, 0}); it != table.entries.end() && it->first.first == gpus; ++it)
            byStages[QString::number(it->first.second)] = it->second.objective(microBatches);
        QJsonObject row = objectiveJson(templateObjective(stageTimes(best->stages), microBatches));
        row["nodes"] = gpus / group.maxNodeGpus;
        row["stages"] = int(best->stages.size());
        row["template"] = templateJson(best->stages, {group});
        row["T_by_stages"] = byStages;
        templates.append(row);
    }
    return QJsonObject{{"device", QString::fromStdString(group.type)},
                       {"gpus_per_node", group.maxNodeGpus},
                       {"micro_batch_size", mbs},
                       {"micro_batches", microBatches},
                       {"templates", templates}};
}

// Templates stored by an earlier plan (--reuse): the best per node count, re-costed for this request.
TemplateTable tableFromJson(const QJsonObject& o, const TypeGroup& group, const StageCosts& costs)
{
    if (o.value("device").toString().toStdString() != group.type ||
        o.value("gpus_per_node").toInt() != group.maxNodeGpus)
        throw InputError("--reuse", "oobleck", "the stored templates are for another device type or node size");
    TemplateTable table;
    for (const QJsonValue& row : o.value("templates").toArray()) {
        PipelineTemplate t;
        t.gpus = row.toObject().value("nodes").toInt() * group.maxNodeGpus;
        int next = 0;
        for (const QJsonValue& sv : row.toObject().value("template").toArray()) {
            const QJsonObject s = sv.toObject();
            const QJsonArray layers = s.value("layers").toArray();
            const int gpus = s.value("gpus").toInt();
            if (layers.size() != 2 || layers[0].toInt() != next || layers[1].toInt() <= next || gpus < 1 ||
                gpus > group.maxNodeGpus)
                throw InputError("--reuse", "oobleck.templates", "a stored template is not a contiguous layer split");
            next = layers[1].toInt();
            t.stages.push_back({layers[0].toInt(), next, 0, gpus, {}, 0});
        }
        if (next != costs.layers())
            throw InputError("--reuse", "oobleck.templates", "a stored template does not cover the model's layers");
        if (!refreshStages(t.stages, costs, costs.job()))
            continue; // no longer fits (another job): drop it
        for (const TemplateStage& s : t.stages) {
            t.sum += s.time;
            t.max = std::max(t.max, s.time);
        }
        table.entries[{t.gpus, int(t.stages.size())}] = t;
    }
    return table;
}

} // namespace

Plan OobleckPlanner::plan(const PlanRequest& req, const CostModel& costs, Progress& progress) const
{
    progress.report(0, "oobleck: stage costs");
    const TypeGroup group = homogeneousGroup(req.cluster);
    const int mbs = templateMicroBatchSize(req);
    const int B = req.job.globalBatchSize / mbs;
    const int M = group.maxNodeGpus;
    const int N = int(group.nodes.size());
    StageCosts sc(costs, req.job, {group.type}, {M}, mbs, B, groupTightestNodes({group}, req.cluster, costs),
                  &req.cluster, StageCosts::Memory::Defer);
    const bool reused = req.reuse.count("oobleck") > 0;
    // Both tables are sized before either is built (stored templates spare the template search).
    checkStateCount(req, "oobleck", sc.memoryEntries(), "stage-cost entries: layer ranges x stage shapes");
    if (!reused)
        checkStateCount(req, "oobleck", templateStateCount(req.model.layerCount(), N * M),
                        "layers x GPUs x stage counts");
    sc.fitMemory(costs, &progress);
    progress.report(0.1, reused ? "oobleck: re-instantiating stored templates" : "oobleck: generating templates");
    if (reused)
        checkReusedInputs(req, req.reuse.at("oobleck"), "oobleck");
    const TemplateTable table = reused ? tableFromJson(req.reuse.at("oobleck"), group, sc)
                                       : generateTemplates(sc, {0, M, N * M, false, false}, &progress);
    std::map<int, const PipelineTemplate*> bestByNodes;
    for (int gpus : table.gpuCounts())
        if (gpus % M == 0 && gpus / M <= N)
            bestByNodes[gpus / M] = table.best(gpus, B);
    if (bestByNodes.empty())
        throw InfeasibleError("oobleck: no pipeline template of up to " + std::to_string(N) + " " + group.type +
                              " nodes fits the model in memory");
    const Instantiation inst = instantiate(bestByNodes, N, B);
    if (inst.pipelines.empty())
        throw InfeasibleError("oobleck: the templates cannot be instantiated on " + std::to_string(N) + " nodes");
    Plan plan;
    plan.pipelines = placeInstances(inst, req.cluster, group.nodes, mbs);
    plan.plannerEstimate = inst.seconds;
    plan.search.candidates = table.labels;
    plan.search.extra["reused_templates"] = reused ? 1 : 0;
    QJsonObject details = oobleckTableJson(table, group, mbs, B);
    details["min_nodes"] = bestByNodes.begin()->first;
    details["inputs"] = QString::fromStdString(templateInputsKey(req));
    details["reused"] = reused;
    QJsonArray instances;
    for (const PipelineInstance& pi : inst.pipelines)
        instances.append(QJsonObject{{"nodes", pi.nodes},
                                     {"stages", int(pi.tmpl->stages.size())},
                                     {"micro_batches", pi.microBatches},
                                     {"T", pi.seconds}});
    details["instance"] = instances;
    plan.details["oobleck"] = details;
    return plan;
}

} // namespace hetplan
