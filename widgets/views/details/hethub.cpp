// HetHub's section (core/planners/hethub/hethub_metrics.h): its metrics with units, the chosen layout and
// stages, and each device type's homogeneous run behind the additive upper bound.
#include "planner_display.h"

#include "widgets/views/plan_details_format.h"

#include <QObject>

namespace hetplan::details {

namespace {
QString tokensPerGpu(const QJsonValue& v)
{
    return v.isDouble() ? tr("%1 tokens/GPU/s").arg(number(v.toDouble())) : QStringLiteral("–");
}

// Eq. 2-4 and the uniform-split baseline; the ratios are derived here when the plan does not carry them.
DetailsBlock hethubMetrics(SectionReader& r)
{
    DetailsBlock kv = keyValues(tr("Metrics (HetHub eq. 2-4)"));
    const QJsonValue tokens = r.take("tokens_per_gpu_second");
    const QJsonValue bound = r.take("additive_upper_bound_tokens_per_gpu_second");
    const QJsonValue uniform = r.take("uniform_split_tokens_per_gpu_second");
    const QJsonValue uniformFits = r.take("uniform_split_feasible");
    QJsonValue fraction = r.take("fraction_of_upper_bound");
    if (!fraction.isDouble() && tokens.isDouble() && bound.toDouble() > 0)
        fraction = tokens.toDouble() / bound.toDouble();
    addRow(kv, tr("Throughput per GPU (eq. 2)"), tokensPerGpu(tokens));
    const QJsonValue mfu = r.take("mfu");
    addRow(kv, tr("MFU (eq. 4, at the job's precision)"),
           mfu.isDouble() ? percent(mfu.toDouble()) : QStringLiteral("–"));
    addRow(kv, tr("Additive upper bound (eq. 3)"), tokensPerGpu(bound));
    addRow(kv, tr("Throughput / upper bound"),
           fraction.isDouble() ? percent(fraction.toDouble()) : QStringLiteral("–"));
    // A uniform twin that does not fit memory gets no gain: there is nothing to gain over.
    const bool fits = !uniformFits.isBool() || uniformFits.toBool();
    r.take("uniform_split");
    QJsonValue gain = r.take("gain_over_uniform_split");
    if (!fits)
        addRow(kv, tr("Uniform layer split, same degrees"),
               uniform.isDouble() ? tokensPerGpu(uniform) + tr(" (does not fit memory)") : tr("does not fit memory"));
    else
        addRow(kv, tr("Uniform layer split, same degrees"), tokensPerGpu(uniform));
    if (!gain.isDouble() && tokens.isDouble() && uniform.toDouble() > 0)
        gain = tokens.toDouble() / uniform.toDouble();
    if (fits && gain.isDouble())
        addRow(kv, tr("Gain of the non-uniform split"),
               QStringLiteral("%1×").arg(QString::number(gain.toDouble(), 'f', 2)));
    for (const QJsonValue& w : r.takeArray("warnings"))
        addRow(kv, tr("Warning"), w.toString());
    return kv;
}

DetailsBlock hethubLayout(SectionReader& r)
{
    DetailsBlock kv = keyValues(tr("Layout"));
    addRow(kv, tr("Pipeline stages (pp)"), integer(r.take("pp")));
    addRow(kv, tr("Data parallel per stage (dp)"), integer(r.take("dp")));
    addRow(kv, tr("Tensor parallel per stage (tp)"), integer(r.take("tp")));
    addRow(kv, tr("Micro-batch size"), integer(r.take("micro_batch_size")));
    const QString order = r.take("order").toString();
    addRow(kv, tr("Stage order"),
           order == "best"         ? tr("best (the simulator's best order)")
           : order == "descending" ? tr("descending estimated time (the paper's rule)")
                                   : order);
    const QJsonObject perType = r.takeObject("decoder_layers_per_type");
    QStringList parts;
    for (auto it = perType.begin(); it != perType.end(); ++it)
        parts << QStringLiteral("%1: %2").arg(it.key(), integer(it.value()));
    addRow(kv, tr("Decoder layers per device type"), parts.join(QStringLiteral(" · ")));
    return kv;
}

DetailsBlock hethubStages(const QJsonArray& stages)
{
    DetailsBlock b = table(tr("Stages in pipeline order"), {tr("Stage"), tr("Device type"), tr("Decoder layers")});
    for (int i = 0; i < int(stages.size()); ++i) {
        const QJsonObject s = stages[i].toObject();
        // Numbered from 0, like the Gantt chart, the stage map and the CLI.
        b.rows.push_back({QString::number(i), s.value("device").toString(), integer(s.value("layers"))});
    }
    return b;
}

DetailsBlock hethubHomogeneous(const QJsonArray& runs)
{
    DetailsBlock b = table(tr("Each device type on its own GPUs (the terms of eq. 3)"),
                           {tr("Device type"), tr("GPUs"), tr("Iteration"), tr("Tokens/GPU/s"), tr("MFU")});
    for (const QJsonValue& v : runs) {
        const QJsonObject h = v.toObject();
        b.rows.push_back({h.value("device").toString(), integer(h.value("gpus")), seconds(h.value("iteration_seconds")),
                          h.value("tokens_per_gpu_second").isDouble()
                              ? number(h.value("tokens_per_gpu_second").toDouble())
                              : QStringLiteral("–"),
                          h.value("mfu").isDouble() ? percent(h.value("mfu").toDouble()) : QStringLiteral("–")});
    }
    return b;
}
} // namespace

static DetailsSection hethubSection(const QJsonObject& object, const Plan&)
{
    SectionReader r(object);
    DetailsSection s{QStringLiteral("hethub"), tr("HetHub"), {}};
    s.blocks.push_back(hethubMetrics(r));
    s.blocks.push_back(hethubLayout(r));
    if (r.has("stages"))
        s.blocks.push_back(hethubStages(r.takeArray("stages")));
    if (r.has("homogeneous"))
        s.blocks.push_back(hethubHomogeneous(r.takeArray("homogeneous")));
    addRest(s, r);
    return s;
}

// Eq. 3's additive upper bound and the uniform-split baseline (tokens per GPU-second in the section) as
// cluster tokens/s, and the MFU (eq. 4).
static ComparisonMarks hethubMarks(const QJsonObject& d, const Plan& plan)
{
    ComparisonMarks m;
    const double gpus = double(plan.usedGpus().size());
    if (d.contains(QStringLiteral("additive_upper_bound_tokens_per_gpu_second")))
        m.upperBoundTokens = d.value(QStringLiteral("additive_upper_bound_tokens_per_gpu_second")).toDouble() * gpus;
    if (d.contains(QStringLiteral("uniform_split_tokens_per_gpu_second")))
        m.uniformSplitTokens = d.value(QStringLiteral("uniform_split_tokens_per_gpu_second")).toDouble() * gpus;
    if (d.contains(QStringLiteral("mfu")))
        m.mfu = d.value(QStringLiteral("mfu")).toDouble();
    m.upperBoundLegend = tr("HetHub additive upper bound (eq. 3)");
    m.uniformSplitLegend = tr("HetHub uniform layer split");
    return m;
}

PlannerDisplay hethubDisplay() { return {"hethub", hethubSection, hethubMarks, {}}; }

} // namespace hetplan::details
