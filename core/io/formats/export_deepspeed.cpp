// DeepSpeed config JSON (see exporters.h for what is written and what is refused).
#include "core/io/exporters.h"

#include "core/io/formats/export_util.h"

#include <QJsonArray>

#include <algorithm>
#include <map>

namespace hetplan {

using namespace exportutil;

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

QJsonObject deepSpeedConfig(const Plan& plan)
{
    requireFramework(plan, "deepspeed");
    QJsonObject o;
    int micro = 0, gas = 0, dpSize = 0, zeroStage = 0;
    if (!plan.pipelines.empty()) {
        const UniformPipeline u = uniformPipeline(plan);
        zeroStage = plan.job.zeroStage;
        micro = u.microBatchPerGpu();
        gas = u.microBatches;
        dpSize = u.dataParallelSize();
        if (u.stages > 1) {
            const std::vector<int>& b = u.bounds;
            bool even = true;
            for (size_t s = 1; s + 1 < b.size(); ++s)
                even &= b[s + 1] - b[s] == b[1] - b[0];
            // DeepSpeed's "pipeline" section knows stages, partition, seed_layers,
            // activation_checkpoint_interval, pipe_partitioned and grad_partitioned. Its partition methods
            // (uniform, parameters, type:regex) cannot name arbitrary boundaries, and "uniform" counts the
            // user's PipelineModule layers, not ours: the exact split always goes to a namespaced section.
            QJsonObject pipe{{"stages", u.stages}};
            if (even)
                pipe["partition"] = "uniform";
            o["pipeline"] = pipe;
            QJsonArray bounds;
            for (int x : b)
                bounds.append(x);
            o["hetplan"] = QJsonObject{
                {"layer_boundaries", bounds},
                {"note", "DeepSpeed's PipelineModule cannot take arbitrary boundaries from the config; pass these "
                         "to your PipelineModule partitioning"}};
        }
    } else if (!perRankBatches(*plan.zero)) {
        const UniformZero u = uniformZero(plan);
        zeroStage = u.stage;
        micro = u.microBatchSize;
        gas = u.accumulationSteps;
        dpSize = u.gpus;
    } else {
        // Per-rank batches: DeepSpeed's own numbers are nominal (they must multiply out, and DeepSpeed uses
        // gradient_accumulation_steps for its boundary count); the rank file holds the real ones.
        zeroStage = plan.zero->stage;
        dpSize = int(plan.zero->gpus.size());
        for (const ZeroGpu& g : plan.zero->gpus)
            gas = std::max(gas, g.accumulationSteps);
        micro = std::max(1, (plan.job.globalBatchSize + gas * dpSize - 1) / (gas * dpSize));
        o["hetplan"] = QJsonObject{
            {"rank_batches", "hetplan-cli export --format deepspeed-ranks (docs/deepspeed-rank-batches.md)"},
            {"global_batch_size", plan.job.globalBatchSize},
            {"note", "ranks run different micro-batches: train_batch_size and train_micro_batch_size_per_gpu "
                     "are nominal; each rank's data loader takes its micro-batch, accumulation steps and last "
                     "micro-batch from the rank file"}};
    }
    o["train_batch_size"] = micro * gas * dpSize;
    o["train_micro_batch_size_per_gpu"] = micro;
    o["gradient_accumulation_steps"] = gas;
    o["zero_optimization"] = QJsonObject{{"stage", zeroStage}};
    if (plan.job.precision == Precision::FP16)
        o["fp16"] = QJsonObject{{"enabled", true}};
    else if (plan.job.precision == Precision::BF16)
        o["bf16"] = QJsonObject{{"enabled", true}};
    return o;
}
QJsonObject deepSpeedRankBatches(const Plan& plan)
{
    requireFramework(plan, "deepspeed");
    if (!plan.zero)
        refuse("zero", "the rank→batch file is for ZeRO plans; this plan has pipelines");
    QJsonArray ranks;
    long long offset = 0;
    std::map<int, const ZeroGpu*> byGpu;
    for (const ZeroGpu& g : plan.zero->gpus)
        byGpu[g.gpu] = &g;
    for (const RankInfo& r : plan.ranks()) {
        const ZeroGpu& g = *byGpu.at(r.gpu);
        ranks.append(QJsonObject{{"rank", r.rank},
                                 {"host", QString::fromStdString(r.host)},
                                 {"local_rank", r.localRank},
                                 {"micro_batch_size", g.microBatchSize},
                                 {"accumulation_steps", g.accumulationSteps},
                                 {"last_micro_batch_size", g.lastMicroBatchSize},
                                 {"samples", double(g.samples())},
                                 {"sample_offset", double(offset)}});
        offset += g.samples();
    }
    return QJsonObject{{"schema", "hetplan.deepspeed-ranks/1"},
                       {"global_batch_size", plan.job.globalBatchSize},
                       {"zero_stage", plan.zero->stage},
                       {"world_size", int(plan.zero->gpus.size())},
                       {"ranks", ranks}};
}

void registerDeepSpeedRanksExporter(ExporterRegistry& registry)
{
    registry.add(
        {{"deepspeed-ranks", "Per-rank ZeRO batches for a DeepSpeed data loader (rank→batch JSON)", "*.json", ".json"},
         [](const Plan& plan) { return indentedJson(deepSpeedRankBatches(plan)); }, true});
}

void registerDeepSpeedExporter(ExporterRegistry& registry)
{
    registry.add({{"deepspeed", "DeepSpeed config JSON", "*.json", ".json"},
                  [](const Plan& plan) { return indentedJson(deepSpeedConfig(plan)); }, true});
}

} // namespace hetplan
