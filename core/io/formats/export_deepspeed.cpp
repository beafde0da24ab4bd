// DeepSpeed config JSON (see exporters.h for what is written and what is refused).
#include "core/io/exporters.h"

#include "core/io/formats/export_util.h"

#include <QJsonArray>

#include <algorithm>
#include <map>

namespace hetplan {

using namespace exportutil;

namespace {

// The numbers DeepSpeed takes from PipelineModule's arguments rather than from its config: written in our own
// section, next to the launcher module that passes them.
QJsonObject topologySection(const DeepSpeedShape& d)
{
    QJsonArray bounds;
    for (int x : d.bounds)
        bounds.append(x);
    return QJsonObject{
        {"pipeline_stages", d.pp},
        {"tensor_parallel", d.tp},
        {"data_parallel", d.dp},
        {"layer_boundaries", bounds},
        {"launcher", "hetplan-cli export --format deepspeed-launcher"},
        {"note", "DeepSpeed's engine takes the stage count, the tensor-parallel degree and the layer split from "
                 "PipelineModule's topology and partition, not from this config: the launcher module builds "
                 "PipeModelDataParallelTopology(num_pp, num_mp, num_dp) and a PipelineModule with this split "
                 "(boundaries index its layer list, one entry per layer of the plan's model, embedding and head "
                 "included)"}};
}

QJsonObject rankBatchSection(const DeepSpeedShape& d)
{
    QJsonObject o{{"rank_batches", "hetplan-cli export --format deepspeed-ranks (docs/deepspeed-rank-batches.md)"},
                  {"global_batch_size", d.globalBatch},
                  {"train_batch_size_exact", d.train() == d.globalBatch}};
    if (d.train() == d.globalBatch)
        o["note"] = "ranks run different micro-batches, fed from the rank file; train_batch_size is the real global "
                    "batch (micro × gas × ranks divides it)";
    else
        o["note"] = "ranks run different micro-batches, fed from the rank file; no micro × gas × ranks equals the "
                    "global batch, so train_batch_size is nominal: DeepSpeed adds it to engine.global_samples at "
                    "every step (and passes it to LR schedulers that take increment=); the launcher's "
                    "correct_sample_counter(engine) sets the real count after each step. Step-based LR schedules "
                    "(DeepSpeed's own) are unaffected";
    return o;
}

} // namespace

QJsonObject deepSpeedConfig(const Plan& plan)
{
    requireFramework(plan, "deepspeed");
    const DeepSpeedShape d = deepSpeedShape(plan);
    QJsonObject o;
    if (d.pp > 1 || d.tp > 1)
        o["hetplan"] = topologySection(d);
    else if (d.perRank)
        o["hetplan"] = rankBatchSection(d);
    o["train_batch_size"] = d.train();
    o["train_micro_batch_size_per_gpu"] = d.micro;
    o["gradient_accumulation_steps"] = d.gas;
    o["zero_optimization"] = QJsonObject{{"stage", d.zeroStage}};
    // Boundary sends as the job's framework makes them (core/cost/pipeline_p2p.h): partitioned 1/tp with an
    // all-gather at the receiver (DeepSpeed's default, and legacy Megatron's scatter/gather), or whole tensors
    // per tensor-parallel rank (Megatron-core). They only matter with pipeline and tensor parallelism.
    if (d.pp > 1 && d.tp > 1) {
        const bool partitioned = plan.job.framework != Framework::MegatronCore ||
                                 plan.job.runsSequenceParallel(d.tp, plan.model.hasMoeLayers());
        o["pipeline"] = QJsonObject{{"pipe_partitioned", partitioned}, {"grad_partitioned", partitioned}};
    }
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
