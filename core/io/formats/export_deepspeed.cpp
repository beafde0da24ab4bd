// DeepSpeed config JSON (see exporters.h for what is written and what is refused).
#include "core/io/exporters.h"

#include "core/io/formats/export_util.h"

#include <QJsonArray>

namespace hetplan {

using namespace exportutil;

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
    } else {
        const UniformZero u = uniformZero(plan);
        zeroStage = u.stage;
        micro = u.microBatchSize;
        gas = u.accumulationSteps;
        dpSize = u.gpus;
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
void registerDeepSpeedExporter(ExporterRegistry& registry)
{
    registry.add({{"deepspeed", "DeepSpeed config JSON", "*.json", ".json"},
                  [](const Plan& plan) { return indentedJson(deepSpeedConfig(plan)); }});
}

} // namespace hetplan
