// metis's section (core/planners/metis): the chosen template with its copies, every template simulated,
// and the (copies, micro-batch) pairs searched; and the GPU selection's section (core/planners/selection.h)
// that any planner's plan carries when subsets of the nodes were tried.
#include "planner_display.h"

#include "widgets/views/plan_details_format.h"

#include <QJsonArray>
#include <QObject>

namespace hetplan::details {

namespace {
DetailsBlock metisTemplate(SectionReader& r)
{
    DetailsBlock b = table(tr("Template (one copy; the plan runs %1 copies, micro-batch %2 × %3)")
                               .arg(integer(r.take("copies")), integer(r.take("micro_batch_size")),
                                    integer(r.take("micro_batches"))),
                           {tr("Stage"), tr("Layers"), tr("Device type"), tr("GPUs"), tr("tp"), tr("dp"),
                            tr("F + B per micro-batch")});
    const QJsonArray stages = r.takeArray("template");
    for (int i = 0; i < int(stages.size()); ++i) {
        const QJsonObject s = stages[i].toObject();
        b.rows.push_back({QString::number(i), layerRange(s.value("layers")), s.value("device").toString(),
                          integer(s.value("gpus")), integer(s.value("tp")), integer(s.value("dp")),
                          seconds(s.value("seconds"))});
    }
    b.note = tr("The search's own estimate of the iteration: %1").arg(seconds(r.take("T")));
    return b;
}

DetailsBlock metisSimulated(const QJsonArray& rows)
{
    DetailsBlock b = table(tr("Plans simulated (the best simulated wins)"), {tr("Plan"), tr("Simulated iteration"), tr("Fits")});
    for (const QJsonValue& v : rows) {
        const QJsonObject o = v.toObject();
        b.rows.push_back({o.value("plan").toString(), seconds(o.value("iteration_seconds")),
                          o.value("fits").toBool() ? tr("yes") : tr("no")});
    }
    return b;
}

DetailsBlock metisTried(const QJsonArray& rows)
{
    DetailsBlock b = table(tr("Templates searched"),
                           {tr("Copies"), tr("Micro-batch"), tr("Estimate"), tr("Types idle in the template")});
    for (const QJsonValue& v : rows) {
        const QJsonObject o = v.toObject();
        const QJsonValue t = o.value("T");
        const QJsonArray idle = o.value("types_left_idle").toArray();
        b.rows.push_back({integer(o.value("copies")), integer(o.value("micro_batch_size")),
                          t.isDouble() ? seconds(t) : t.toString(), idle.isEmpty() ? tr("none") : joined(idle)});
    }
    return b;
}

QString money(const QJsonValue& v, int decimals)
{
    return v.isDouble() ? QStringLiteral("$%1").arg(v.toDouble(), 0, 'f', decimals) : QStringLiteral("–");
}
} // namespace

static DetailsSection metisSection(const QJsonObject& object, const Plan&)
{
    SectionReader r(object);
    DetailsSection s{QStringLiteral("metis"), tr("Metis"), {}};
    DetailsBlock chosen = keyValues(tr("Chosen"));
    addRow(chosen, tr("Plan"), r.take("chosen").toString());
    s.blocks.push_back(chosen);
    if (r.has("template"))
        s.blocks.push_back(metisTemplate(r));
    s.blocks.push_back(metisSimulated(r.takeArray("simulated")));
    s.blocks.push_back(metisTried(r.takeArray("tried")));
    addRest(s, r);
    return s;
}

static DetailsSection selectionSection(const QJsonObject& object, const Plan&)
{
    SectionReader r(object);
    DetailsSection s{QStringLiteral("selection"), tr("GPU selection"), {}};
    DetailsBlock kv = keyValues(tr("Which GPUs, and why"));
    addRow(kv, tr("Goal"), r.take("objective").toString());
    r.take("goal");
    addRow(kv, tr("Chosen"), r.take("subset").toString());
    addRow(kv, tr("Why"), r.take("why").toString());
    QStringList out;
    for (const QJsonValue& v : r.takeArray("left_out")) {
        const QJsonObject n = v.toObject();
        out << tr("%1 (%2 × %3)").arg(n.value("node").toString(), integer(n.value("gpus")), n.value("device").toString());
    }
    addRow(kv, tr("Nodes left out"), out.isEmpty() ? tr("none") : out.join(QStringLiteral(", ")));
    const QJsonArray idle = r.takeArray("idle_in_plan");
    addRow(kv, tr("GPUs the plan leaves idle"), idle.isEmpty() ? tr("none") : joined(idle));
    if (r.has("budget_dollars_per_hour"))
        addRow(kv, tr("Budget"), money(r.take("budget_dollars_per_hour"), 2) + tr(" per hour"));
    if (r.has("min_tokens_per_second"))
        addRow(kv, tr("Throughput floor"), tr("%1 tokens/s").arg(number(r.take("min_tokens_per_second").toDouble())));
    s.blocks.push_back(kv);
    DetailsBlock tried = table(tr("Subsets tried"), {tr("Subset"), tr("GPUs used"), tr("Iteration"), tr("Tokens/s"),
                                                     tr("$ / hour"), tr("$ / M tokens"), tr("Meets the goal")});
    for (const QJsonValue& v : r.takeArray("tried")) {
        const QJsonObject o = v.toObject();
        if (o.contains("error")) {
            tried.rows.push_back({o.value("subset").toString(), QStringLiteral("–"), QStringLiteral("–"),
                                  QStringLiteral("–"), QStringLiteral("–"), QStringLiteral("–"),
                                  tr("no plan: %1").arg(o.value("error").toString())});
            continue;
        }
        tried.rows.push_back({o.value("subset").toString(), integer(o.value("gpus")),
                              seconds(o.value("iteration_seconds")), number(o.value("tokens_per_second").toDouble(), 5),
                              money(o.value("dollars_per_hour"), 2), money(o.value("dollars_per_million_tokens"), 3),
                              o.value("meets").toBool() ? tr("yes") : o.value("miss").toString()});
    }
    s.blocks.push_back(tried);
    addRest(s, r);
    return s;
}

PlannerDisplay metisDisplay() { return {"metis", metisSection, {}, {}}; }
PlannerDisplay selectionDisplay() { return {"selection", selectionSection, {}, {}}; }

} // namespace hetplan::details
