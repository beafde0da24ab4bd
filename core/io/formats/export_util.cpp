#include "core/io/formats/export_util.h"

#include "core/base/errors.h"

#include <QJsonDocument>
#include <map>

namespace hetplan::exportutil {

void refuse(const std::string& field, const std::string& reason) { throw InputError("plan", field, reason); }

UniformPipeline uniformPipeline(const Plan& plan, const std::string& target)
{
    if (plan.pipelines.empty())
        refuse("pipelines", "the plan has no pipelines");
    const Pipeline& p0 = plan.pipelines.front();
    if (p0.stages.empty())
        refuse("pipelines[0].stages", "the pipeline has no stages");
    UniformPipeline u;
    u.stages = int(p0.stages.size());
    u.tp = p0.stages[0].tensorParallel;
    u.dp = p0.stages[0].dataParallel;
    u.microBatchSize = p0.microBatchSize;
    u.microBatches = p0.microBatches;
    for (const Stage& s : p0.stages)
        u.bounds.push_back(s.firstLayer);
    u.bounds.push_back(p0.stages.back().endLayer);
    for (size_t i = 0; i < plan.pipelines.size(); ++i) {
        const Pipeline& p = plan.pipelines[i];
        const std::string pf = "pipelines[" + std::to_string(i) + "]";
        bool same = p.stages.size() == p0.stages.size() && p.microBatchSize == p0.microBatchSize &&
                    p.microBatches == p0.microBatches;
        for (size_t s = 0; same && s < p.stages.size(); ++s)
            same = p.stages[s].firstLayer == p0.stages[s].firstLayer && p.stages[s].endLayer == p0.stages[s].endLayer &&
                   p.stages[s].tensorParallel == p0.stages[s].tensorParallel &&
                   p.stages[s].dataParallel == p0.stages[s].dataParallel;
        if (!same)
            refuse(pf, target + " runs one pipeline shape replicated; this plan has pipelines with different "
                                "stages or batches (e.g. Oobleck/Ditto templates)");
        for (size_t s = 0; s < p.stages.size(); ++s) {
            if (p.stages[s].tensorParallel != u.tp)
                refuse(pf + ".stages[" + std::to_string(s) + "].tensor_parallel",
                       target + " uses one tensor-parallel degree for all stages; this plan mixes " +
                           std::to_string(u.tp) + " and " + std::to_string(p.stages[s].tensorParallel));
            if (p.stages[s].dataParallel != u.dp)
                refuse(pf + ".stages[" + std::to_string(s) + "].data_parallel",
                       target + " uses one data-parallel degree for all stages; this plan mixes " +
                           std::to_string(u.dp) + " and " + std::to_string(p.stages[s].dataParallel));
        }
        u.replicas += p.replicas;
    }
    if (u.microBatchSize % u.dp != 0)
        refuse("pipelines[0].micro_batch_size", "micro-batch " + std::to_string(u.microBatchSize) +
                                                    " does not split evenly over " + std::to_string(u.dp) +
                                                    " data-parallel ranks of a stage");
    return u;
}

UniformZero uniformZero(const Plan& plan, const std::string& target)
{
    const ZeroPlan& z = *plan.zero;
    if (z.gpus.empty())
        refuse("zero.gpus", "the ZeRO plan has no GPUs");
    UniformZero u;
    u.stage = z.stage;
    u.gpus = int(z.gpus.size());
    u.microBatchSize = z.gpus[0].microBatchSize;
    u.accumulationSteps = z.gpus[0].accumulationSteps;
    for (size_t i = 0; i < z.gpus.size(); ++i) {
        const ZeroGpu& g = z.gpus[i];
        if (g.microBatchSize != u.microBatchSize || g.accumulationSteps != u.accumulationSteps ||
            g.lastMicroBatchSize != g.microBatchSize)
            refuse("zero.gpus[" + std::to_string(i) + "]",
                   target + " needs the same micro-batch and accumulation steps on every GPU; this plan gives "
                            "GPUs different batches (Poplar-style) — launch it from the plan file or rank table");
    }
    if (u.microBatchSize < 1 || u.accumulationSteps < 1)
        refuse("zero.gpus", "micro-batch and accumulation steps must be at least 1");
    return u;
}

void refuseScatteredRanks(const Plan& plan)
{
    std::map<std::string, int> used;   // ranks seen per host
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

void refuseSpmd(const Plan& plan, const std::string& target)
{
    if (plan.spmd && plan.pipelines.empty() && !plan.zero)
        refuse("spmd", target + " cannot run an SPMD program with per-GPU sharding ratios");
    if (plan.pipelines.empty() && !plan.zero)
        refuse("pipelines", "the plan has neither pipelines nor ZeRO batches");
}

std::string indentedJson(const QJsonObject& o)
{
    return QJsonDocument(o).toJson(QJsonDocument::Indented).toStdString();
}

} // namespace hetplan::exportutil
