// The plan summary as JSON: snake_case keys, shares as fractions, bytes as numbers.
#include "plan_summary_json.h"

#include "core/base/qstrings.h"

#include <QJsonArray>

#include <algorithm>
#include <cmath>

namespace hetplan {

namespace {

QJsonObject stageToJson(const StageSummary& st)
{
    return QJsonObject{{"layers", QJsonArray{st.firstLayer, st.endLayer}},
                       {"device_type", toQString(st.deviceType)},
                       {"tensor_parallel", st.tensorParallel},
                       {"data_parallel", st.dataParallel},
                       {"gpus", st.gpus}};
}

QJsonObject pipelineToJson(const PipelineSummary& p)
{
    QJsonArray stages;
    for (const StageSummary& st : p.stages)
        stages.append(stageToJson(st));
    return QJsonObject{{"replicas", p.replicas},
                       {"micro_batch_size", p.microBatchSize},
                       {"micro_batches", p.microBatches},
                       {"stages", stages}};
}

QJsonObject deviceTypeToJson(const DeviceTypeSummary& d)
{
    return QJsonObject{{"device_type", toQString(d.deviceType)},
                       {"gpus", d.gpus},
                       {"compute_share", d.computeShare},
                       {"communication_share", d.communicationShare},
                       {"idle_share", d.idleShare},
                       {"memory_capacity_bytes", d.memoryCapacityBytes},
                       {"peak_memory_bytes", d.peakMemoryBytes},
                       {"peak_memory_breakdown", gpuMemoryToJson(d.peakMemory)},
                       {"headroom_bytes", d.headroomBytes}};
}

StageSummary stageFromJson(const JsonReader& r)
{
    StageSummary st;
    const QJsonArray layers = r.array("layers");
    if (layers.size() != 2 || !layers.at(0).isDouble() || !layers.at(1).isDouble())
        r.fail("layers", "expected [first, end)");
    st.firstLayer = layers.at(0).toInt();
    st.endLayer = layers.at(1).toInt();
    st.deviceType = r.string("device_type");
    st.tensorParallel = r.integer("tensor_parallel");
    st.dataParallel = r.integer("data_parallel");
    st.gpus = r.integer("gpus");
    return st;
}

PipelineSummary pipelineFromJson(const JsonReader& r)
{
    PipelineSummary p;
    p.replicas = r.integer("replicas");
    p.microBatchSize = r.integer("micro_batch_size");
    p.microBatches = r.integer("micro_batches");
    const QJsonArray stages = r.array("stages");
    for (int i = 0; i < stages.size(); ++i)
        p.stages.push_back(stageFromJson(r.element(stages, "stages", i)));
    return p;
}

DeviceTypeSummary deviceTypeFromJson(const JsonReader& r)
{
    DeviceTypeSummary d;
    d.deviceType = r.string("device_type");
    d.gpus = r.integer("gpus");
    d.computeShare = r.number("compute_share");
    d.communicationShare = r.number("communication_share");
    d.idleShare = r.number("idle_share");
    d.memoryCapacityBytes = r.number("memory_capacity_bytes");
    d.peakMemoryBytes = r.number("peak_memory_bytes");
    d.headroomBytes = r.number("headroom_bytes");
    if (r.has("peak_memory_breakdown")) // absent in plans written before the memory breakdown
        d.peakMemory = gpuMemoryFromJson(r.object("peak_memory_breakdown"));
    return d;
}

} // namespace

QJsonObject gpuMemoryToJson(const GpuMemory& m)
{
    return QJsonObject{{"weights", m.weights},
                       {"gradients", m.gradients},
                       {"optimizer", m.optimizer},
                       {"activations", m.activations},
                       {"gradient_buffer", m.gradientBuffer},
                       {"allocator_reserve", m.allocatorReserve},
                       {"communicators", m.communicators},
                       {"context", m.context},
                       {"total", m.total()}};
}

GpuMemory gpuMemoryFromJson(const JsonReader& r)
{
    r.allowOnly({"weights", "gradients", "optimizer", "activations", "gradient_buffer", "allocator_reserve",
                 "communicators", "context", "total"});
    GpuMemory m;
    auto term = [&](const char* key) {
        const double v = r.number(key, 0);
        if (!(v >= 0) || !std::isfinite(v))
            r.fail(key, "must be a finite non-negative number of bytes");
        return v;
    };
    m.weights = term("weights");
    m.gradients = term("gradients");
    m.optimizer = term("optimizer");
    m.activations = term("activations");
    m.gradientBuffer = term("gradient_buffer");
    m.allocatorReserve = term("allocator_reserve");
    m.communicators = term("communicators");
    m.context = term("context");
    if (r.has("total") && std::abs(r.number("total") - m.total()) > 1e-6 * std::max(1.0, m.total()))
        r.fail("total", "is not the sum of the terms");
    return m;
}

QJsonObject summaryToJson(const PlanSummary& s)
{
    QJsonArray pipelines, types;
    for (const PipelineSummary& p : s.pipelines)
        pipelines.append(pipelineToJson(p));
    for (const DeviceTypeSummary& d : s.deviceTypes)
        types.append(deviceTypeToJson(d));
    const Bottleneck& b = s.bottleneck;
    QJsonObject bottleneck{{"text", toQString(b.text)}, {"device_type", toQString(b.deviceType)}, {"share", b.share}};
    if (b.stage >= 0) {
        bottleneck["pipeline"] = b.pipeline;
        bottleneck["stage"] = b.stage;
    }
    QJsonObject o{{"kind", toQString(s.kind)},
                  {"pp", s.pp},
                  {"dp", s.dp},
                  {"tp", s.tp},
                  {"micro_batch_size", s.microBatchSize},
                  {"micro_batches", s.microBatches},
                  {"device_types", types},
                  {"mfu", s.mfu},
                  {"iteration_seconds", s.iterationSeconds},
                  {"tokens_per_second", s.tokensPerSecond},
                  {"bottleneck", bottleneck}};
    if (!s.pipelines.empty())
        o["pipelines"] = pipelines;
    if (s.bubbleFraction)
        o["bubble_fraction"] = *s.bubbleFraction;
    return o;
}

PlanSummary summaryFromJson(const JsonReader& r)
{
    r.allowOnly({"kind", "pp", "dp", "tp", "micro_batch_size", "micro_batches", "pipelines", "bubble_fraction",
                 "device_types", "mfu", "iteration_seconds", "tokens_per_second", "bottleneck"});
    PlanSummary s;
    s.kind = r.string("kind");
    if (s.kind != "pipelines" && s.kind != "zero" && s.kind != "spmd")
        r.fail("kind", "expected \"pipelines\", \"zero\" or \"spmd\"");
    s.pp = r.integer("pp");
    s.dp = r.integer("dp");
    s.tp = r.integer("tp");
    s.microBatchSize = r.integer("micro_batch_size");
    s.microBatches = r.integer("micro_batches");
    if (r.has("pipelines")) {
        const QJsonArray a = r.array("pipelines");
        for (int i = 0; i < a.size(); ++i)
            s.pipelines.push_back(pipelineFromJson(r.element(a, "pipelines", i)));
    }
    if (r.has("bubble_fraction"))
        s.bubbleFraction = r.number("bubble_fraction");
    const QJsonArray types = r.array("device_types");
    for (int i = 0; i < types.size(); ++i)
        s.deviceTypes.push_back(deviceTypeFromJson(r.element(types, "device_types", i)));
    s.mfu = r.number("mfu");
    s.iterationSeconds = r.number("iteration_seconds");
    s.tokensPerSecond = r.number("tokens_per_second");
    const JsonReader b = r.object("bottleneck");
    s.bottleneck.text = b.string("text");
    s.bottleneck.deviceType = b.string("device_type", "");
    s.bottleneck.share = b.number("share", 0);
    s.bottleneck.pipeline = b.integer("pipeline", -1);
    s.bottleneck.stage = b.integer("stage", -1);
    return s;
}

} // namespace hetplan
