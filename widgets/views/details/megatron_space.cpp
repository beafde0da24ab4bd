// The "megatron_space" section any pipeline planner's plan carries when Megatron's options were searched
// (core/planners/megatron_space.h): the settings chosen, those the planner planned with, and every planner
// run with the best settings for its plan.
#include "planner_display.h"

#include "widgets/views/plan_details_format.h"

#include <QJsonArray>
#include <QObject>

namespace hetplan::details {

namespace {
QString yesNo(const QJsonValue& v) { return v.toBool() ? tr("on") : tr("off"); }

// The settings that are on, shortly ("2 chunks, sequence parallel, distributed optimizer, selective
// recompute"), or "none", so a run's row stays narrow.
QString settings(const QJsonObject& o)
{
    QStringList on;
    if (const int v = o.value("virtual_stages").toInt(1); v > 1)
        on << tr("%1 chunks").arg(v);
    if (const int cp = o.value("context_parallel").toInt(1); cp > 1)
        on << tr("context parallel %1").arg(cp);
    if (const int ep = o.value("expert_parallel").toInt(1); ep > 1)
        on << tr("expert parallel %1").arg(ep);
    if (o.value("sequence_parallel").toBool())
        on << tr("sequence parallel");
    if (o.value("distributed_optimizer").toBool())
        on << tr("distributed optimizer");
    if (const QString r = o.value("recompute").toString(); !r.isEmpty() && r != QStringLiteral("none"))
        on << tr("%1 recompute").arg(r);
    return on.isEmpty() ? tr("none") : on.join(QStringLiteral(", "));
}
} // namespace

static DetailsSection megatronSpaceSection(const QJsonObject& object, const Plan&)
{
    SectionReader r(object);
    DetailsSection s{QStringLiteral("megatron_space"), tr("Megatron options"), {}};
    DetailsBlock chosen = keyValues(tr("Chosen (the planner's own section describes its plan before these)"));
    const int v = r.take("virtual_stages").toInt(1);
    addRow(chosen, tr("Interleaved 1F1B"), v > 1 ? tr("%1 chunks per stage").arg(v) : tr("no"));
    addRow(chosen, tr("Sequence parallelism"), yesNo(r.take("sequence_parallel")));
    const int cp = r.take("context_parallel").toInt(1), ep = r.take("expert_parallel").toInt(1);
    addRow(chosen, tr("Context parallelism"), cp > 1 ? tr("%1 ranks per sequence").arg(cp) : tr("off"));
    addRow(chosen, tr("Expert parallelism"), ep > 1 ? tr("experts over %1 ranks").arg(ep) : tr("off"));
    addRow(chosen, tr("Distributed optimizer"), yesNo(r.take("distributed_optimizer")));
    addRow(chosen, tr("Recomputation"), r.take("recompute").toString());
    r.take("zero_stage"); // the distributed optimizer row says it
    addRow(chosen, tr("Planned with"), settings(r.take("planned_with").toObject()));
    addRow(chosen, tr("Settings combinations"), integer(r.take("variants")));
    s.blocks.push_back(chosen);
    DetailsBlock tried = table(tr("Planner runs (each plan with its best settings)"),
                               {tr("Planned with"), tr("Best settings"), tr("Iteration"), tr("Peak memory"), tr("Fits")});
    for (const QJsonValue& v : r.takeArray("tried")) {
        const QJsonObject o = v.toObject();
        tried.rows.push_back({settings(o.value("planned_with").toObject()), settings(o), seconds(o.value("iteration_seconds")),
                              tr("%1 GiB").arg(o.value("peak_memory_gib").toDouble(), 0, 'f', 2),
                              o.value("fits").toBool() ? tr("yes") : tr("no")});
    }
    s.blocks.push_back(tried);
    addRest(s, r);
    return s;
}

PlannerDisplay megatronSpaceDisplay() { return {"megatron_space", megatronSpaceSection, {}, {}}; }

} // namespace hetplan::details
