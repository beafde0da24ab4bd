#include "core/io/formats/export_util.h"

#include "core/base/errors.h"
#include "core/base/names.h"
#include "core/model/frameworks.h"

#include <QJsonDocument>
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
