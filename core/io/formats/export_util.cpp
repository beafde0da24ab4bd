#include "core/io/formats/export_util.h"

#include "core/base/errors.h"
#include "core/base/names.h"
#include "core/model/frameworks.h"

#include <QJsonDocument>
#include <algorithm>
#include <map>

namespace hetplan::exportutil {

void refuse(const std::string& field, const std::string& reason) { throw InputError("plan", field, reason); }

void requireFramework(const Plan& plan, const std::string& framework)
{
    const FrameworkVerdict v = framework == "megatron" ? checkMegatron(plan) : checkDeepSpeed(plan);
    if (v.ok)
        return;
    std::string reasons;
    for (const std::string& why : v.reasons)
        reasons += (reasons.empty() ? "" : "; ") + why;
    refuse("frameworks." + framework, reasons);
}

UniformPipeline uniformPipeline(const Plan& plan)
{
    const Pipeline& p0 = plan.pipelines.front();
    UniformPipeline u;
    u.stages = int(p0.stages.size());
    u.tp = p0.stages[0].tensorParallel;
    u.dp = p0.stages[0].dataParallel;
    u.cp = p0.contextParallel;
    u.ep = p0.expertParallel;
    u.microBatchSize = p0.microBatchSize;
    u.microBatches = p0.microBatches;
    for (const Stage& s : p0.stages)
        u.bounds.push_back(s.firstLayer);
    u.bounds.push_back(p0.stages.back().endLayer);
    for (const Pipeline& p : plan.pipelines)
        u.replicas += p.replicas;
    return u;
}

UniformZero uniformZero(const Plan& plan)
{
    const ZeroPlan& z = *plan.zero;
    UniformZero u;
    u.stage = z.stage;
    u.gpus = int(z.gpus.size());
    u.microBatchSize = z.gpus[0].microBatchSize;
    u.accumulationSteps = z.gpus[0].accumulationSteps;
    return u;
}

namespace {
bool perRankBatches(const ZeroPlan& z)
{
    for (const ZeroGpu& g : z.gpus)
        if (g.microBatchSize != z.gpus.front().microBatchSize ||
            g.accumulationSteps != z.gpus.front().accumulationSteps || g.lastMicroBatchSize != g.microBatchSize)
            return true;
    return false;
}
} // namespace

DeepSpeedShape deepSpeedShape(const Plan& plan)
{
    DeepSpeedShape d;
    d.globalBatch = int(plan.samplesPerIteration());
    if (!plan.pipelines.empty()) {
        const UniformPipeline u = uniformPipeline(plan);
        d.pp = u.stages;
        d.tp = u.tp;
        d.dp = u.dataParallelSize();
        d.micro = u.microBatchPerGpu();
        d.gas = u.microBatches;
        d.zeroStage = plan.job.zeroStage;
        d.bounds = u.bounds;
        return d;
    }
    const ZeroPlan& z = *plan.zero;
    d.zeroStage = z.stage;
    d.dp = int(z.gpus.size());
    d.perRank = perRankBatches(z);
    if (!d.perRank) {
        d.micro = z.gpus[0].microBatchSize;
        d.gas = z.gpus[0].accumulationSteps;
        return d;
    }
    d.gas = 1;
    for (const ZeroGpu& g : z.gpus)
        d.gas = std::max(d.gas, g.accumulationSteps);
    d.micro = std::max(1, (d.globalBatch + d.gas * d.dp - 1) / (d.gas * d.dp));
    return d;
}

void refuseScatteredRanks(const Plan& plan)
{
    std::map<std::string, int> used; // ranks seen per host
    std::string current;
    for (const RankInfo& r : plan.ranks()) {
        const bool revisit = r.host != current && used.count(r.host);
        if (revisit || r.localRank != used[r.host])
            refuse("ranks", "ranks are not contiguous per host in local-GPU order; a hostfile cannot express this "
                            "placement — use the rank table (--format ranks)");
        ++used[r.host];
        current = r.host;
    }
}

void requirePlainNames(const Plan& plan)
{
    if (const std::string why = plainNameProblem(plan.planner); !why.empty())
        refuse("planner", why);
    for (size_t i = 0; i < plan.cluster.nodes.size(); ++i)
        if (const std::string why = plainNameProblem(plan.cluster.nodes[i].name); !why.empty())
            refuse("inputs.cluster.nodes[" + std::to_string(i) + "].name", why);
}

std::string indentedJson(const QJsonObject& o)
{
    return QJsonDocument(o).toJson(QJsonDocument::Indented).toStdString();
}


} // namespace hetplan::exportutil
