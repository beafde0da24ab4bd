#include "hethub_metrics.h"

#include "core/base/errors.h"
#include "core/cost/analytic.h"
#include "core/planners/common/bounds.h"
#include "core/sim/simulator.h"

#include <QJsonArray>

#include <map>

namespace hetplan::hethub {

double tokensPerGpuSecond(const Plan& plan)
{
    const double gpus = double(plan.usedGpus().size());
    const double t = plan.estimate.iterationSeconds;
    if (gpus <= 0 || t <= 0)
        return 0;
    return double(plan.job.sequenceLength) * double(plan.samplesPerIteration()) / (gpus * t);
}

double modelFlopsUtilization(const Plan& plan, const CostModel& costs)
{
    const std::vector<int> gpus = plan.usedGpus();
    const double t = plan.estimate.iterationSeconds;
    if (gpus.empty() || t <= 0)
        return 0;
    double peak = 0;
    for (int g : gpus)
        peak += precisionPeakFlops(costs.device(plan.cluster.nodeOf(g).deviceType), plan.job);
    peak /= double(gpus.size());
    const double flops =
        (1 + plan.job.backwardFactor) * plan.model.totalForwardFlops() * double(plan.samplesPerIteration());
    return flops / (double(gpus.size()) * t) / peak;
}

Cluster typeSubCluster(const Cluster& cluster, const std::string& device)
{
    Cluster sub = cluster;
    sub.name = cluster.name + "/" + device;
    std::erase_if(sub.nodes, [&](const Node& n) { return n.deviceType != device; });
    std::erase_if(sub.links, [&](const Link& l) { return !sub.findNode(l.a) || !sub.findNode(l.b); });
    return sub;
}

Plan uniformSplitPlan(const SearchResult& result, const PlanRequest& req, const CostModel& costs)
{
    const Predictor predictor(req.cluster, costs, result.groups, result.config);
    const std::vector<int> even = uniformBounds(predictor.decoderCount(), int(result.order.size()));
    std::vector<StageSlot> order = result.order;
    for (size_t s = 0; s < order.size(); ++s)
        order[s].layers = even[s + 1] - even[s];
    Plan plan =
        strategyPlan(leafStrategy(predictor, order, predictor.score(order).seconds), req.cluster, req.model, req.job);
    scorePlan(plan, costs);
    return plan;
}

namespace {

QJsonObject layoutJson(const SearchResult& r)
{
    QJsonArray stages;
    std::map<std::string, int> perType;
    for (const StageSlot& s : r.order) {
        const std::string& device = r.groups[s.type].device;
        stages.append(QJsonObject{{"device", QString::fromStdString(device)}, {"layers", s.layers}});
        perType[device] += s.layers;
    }
    QJsonObject layers;
    for (const auto& [device, n] : perType)
        layers[QString::fromStdString(device)] = n;
    return {{"dp", r.config.dp},         {"tp", r.config.tp},
            {"pp", int(r.order.size())}, {"micro_batch_size", r.config.microBatchSize},
            {"stages", stages},          {"decoder_layers_per_type", layers}};
}

// One type on its own GPUs (eq. 3's T_i); null fields when it cannot hold the model.
QJsonObject homogeneousJson(const TypeGroup& g, const PlanRequest& req, const CostModel& costs,
                            const Progress& progress, SearchSettings settings)
{
    QJsonObject o{{"device", QString::fromStdString(g.device)}, {"gpus", int(g.gpus.size())}};
    PlanRequest sub = req;
    sub.cluster = typeSubCluster(req.cluster, g.device);
    try {
        const SearchResult r = searchHetHub(sub, costs, progress, settings);
        o["tokens_per_gpu_second"] = tokensPerGpuSecond(r.plan);
        o["mfu"] = modelFlopsUtilization(r.plan, costs);
        o["iteration_seconds"] = r.plan.estimate.iterationSeconds;
    } catch (const InfeasibleError& e) {
        o["infeasible"] = QString::fromStdString(e.what());
    }
    return o;
}

} // namespace

QJsonObject hethubDetails(const SearchResult& result, const PlanRequest& req, const CostModel& costs,
                          const Progress& progress, const SearchSettings& settings)
{
    QJsonObject o = layoutJson(result);
    const double tpgs = tokensPerGpuSecond(result.plan);
    o["order"] = settings.bestOrder ? "best" : "descending";
    o["tokens_per_gpu_second"] = tpgs;
    o["mfu"] = modelFlopsUtilization(result.plan, costs);
    // A twin that does not fit memory is no baseline: its throughput and a gain over it would mislead.
    const Plan uniform = uniformSplitPlan(result, req, costs);
    o["uniform_split_feasible"] = uniform.estimate.feasible;
    if (!uniform.estimate.feasible) {
        o["uniform_split"] = "uniform split does not fit memory";
    } else if (const double u = tokensPerGpuSecond(uniform); u > 0) {
        o["uniform_split_tokens_per_gpu_second"] = u;
        o["gain_over_uniform_split"] = tpgs / u;
    }
    QJsonArray homogeneous;
    double weighted = 0, gpus = 0;
    bool complete = true;
    for (const TypeGroup& g : result.groups) {
        const QJsonObject h = homogeneousJson(g, req, costs, progress, settings);
        complete = complete && h.contains("tokens_per_gpu_second");
        weighted += h["tokens_per_gpu_second"].toDouble() * double(g.gpus.size());
        gpus += double(g.gpus.size());
        homogeneous.append(h);
    }
    o["homogeneous"] = homogeneous;
    if (complete && gpus > 0) {
        o["additive_upper_bound_tokens_per_gpu_second"] = weighted / gpus;
        o["fraction_of_upper_bound"] = weighted > 0 ? tpgs / (weighted / gpus) : 0.0;
    }
    return o;
}

} // namespace hetplan::hethub
