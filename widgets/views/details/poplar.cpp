// Poplar's section in the batch → speed view: per device, the sizes Poplar profiled, its spline through
// them, the sizes that did not fit, the largest that fits and the plan's chosen micro-batches
// (core/planners/poplar writes them). Its details are the generic tree.
#include "planner_display.h"

#include "widgets/views/plan_details_format.h"

#include <QJsonArray>

namespace hetplan::details {

namespace {
std::vector<double> numbers(const QJsonValue& v)
{
    std::vector<double> out;
    for (const QJsonValue& x : v.toArray())
        out.push_back(x.toDouble());
    return out;
}

// One device; nullopt when its profiled points are missing, not positive or not ascending.
std::optional<PlannerCurve> poplarCurve(const QJsonObject& device, const Profile& measured)
{
    PlannerCurve c;
    c.device = device.value("device").toString().toStdString();
    c.measured = measured.has(c.device, 1);
    for (const QJsonValue& v : device.value("profiled").toArray()) {
        const double b = v.toObject().value("micro_batch").toDouble(),
                     sps = v.toObject().value("samples_per_second").toDouble();
        if (!(b >= 1) || !(sps > 0) || (!c.sizes.empty() && b <= c.sizes.back()))
            return std::nullopt;
        c.sizes.push_back(b);
        c.samplesPerSecond.push_back(sps);
    }
    if (c.sizes.empty())
        return std::nullopt;
    const QJsonObject spline = device.value("spline").toObject();
    c.lineSizes = numbers(spline.value("micro_batch"));
    c.lineSamplesPerSecond = numbers(spline.value("samples_per_second"));
    if (c.lineSizes.size() != c.lineSamplesPerSecond.size()) {
        c.lineSizes.clear();
        c.lineSamplesPerSecond.clear();
    }
    c.outOfMemory = numbers(device.value("out_of_memory"));
    c.largestFitting = device.value("max_micro_batch").toInt();
    for (const QJsonValue& v : device.value("chosen").toArray()) {
        const QJsonObject o = v.toObject();
        c.chosen.push_back({o.value("micro_batch").toInt(), o.value("samples_per_second").toDouble(),
                            o.value("gpus").toInt()});
    }
    return c;
}

std::optional<PlannerCurves> poplarCurves(const QJsonObject& d, const Plan& plan)
{
    if (!plan.zero)
        return std::nullopt;
    PlannerCurves out;
    for (const QJsonValue& v : d.value("devices").toArray()) {
        std::optional<PlannerCurve> c = poplarCurve(v.toObject(), plan.profile);
        if (!c)
            return std::nullopt; // one malformed device: the cost model's curves instead
        out.curves.push_back(std::move(*c));
    }
    if (out.curves.empty())
        return std::nullopt;
    const int stage = d.value("zero_stage").toInt(), asked = d.value("zero_stage_requested").toInt(stage);
    const QString zero =
        stage == asked ? tr("ZeRO-%1").arg(stage) : tr("ZeRO-%1 (escalated from ZeRO-%2)").arg(stage).arg(asked);
    out.title = tr("Poplar: throughput against micro-batch size");
    out.subtitle = tr("%1, sequence %2 · profiled at %3 · spline through the profiled sizes")
                       .arg(QString::fromStdString(plan.model.name))
                       .arg(plan.job.sequenceLength)
                       .arg(zero);
    return out;
}
} // namespace

PlannerDisplay poplarDisplay() { return {"poplar", {}, {}, poplarCurves}; }

} // namespace hetplan::details
