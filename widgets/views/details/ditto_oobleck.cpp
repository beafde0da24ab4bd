// The readable forms of the sections the template planners write: ditto (folding, recovery, recovered
// template, the Oobleck templates of the virtual cluster) and oobleck (template table, T by stage count,
// instance). Field names follow core/planners/ditto/ditto.cpp, core/planners/oobleck/oobleck.cpp and
// core/planners/common/template_placement.cpp.
#include "planner_display.h"

#include "widgets/views/plan_details_format.h"

#include <QObject>

#include <map>

namespace hetplan::details {

namespace {
// Ditto sec. 5.3: d_i virtual GPUs per real GPU of type i, relative to the weakest type.
DetailsBlock dittoFolding(const QJsonObject& folding)
{
    DetailsBlock b =
        table(tr("Node folding: device type → d_i"), {tr("Device type"), tr("GPUs"), tr("d_i (virtual GPUs per GPU)"),
                                                      tr("Virtual GPUs"), tr("Model time on one GPU (c_i)")});
    for (const QJsonValue& v : folding.value("types").toArray()) {
        const QJsonObject t = v.toObject();
        b.rows.push_back({t.value("device").toString(), integer(t.value("gpus")), integer(t.value("d")),
                          integer(t.value("virtual_gpus")), seconds(t.value("model_seconds"))});
    }
    b.note = tr("Folding %1 · weakest type %2 · virtual cluster: %3 virtual GPUs on %4 virtual nodes of %5")
                 .arg(folding.value("mode").toString(), folding.value("weakest").toString(),
                      integer(folding.value("virtual_gpus")), number(folding.value("virtual_nodes").toDouble()),
                      integer(folding.value("gpus_per_node")));
    return b;
}

// "341.7 ms + 331.3 ms + 220.9 ms = 893.9 ms" from an object with T, T1, T2, T3.
QString objectiveText(const QJsonObject& o)
{
    return QStringLiteral("%1 + %2 + %3 = %4")
        .arg(seconds(o.value("T1")), seconds(o.value("T2")), seconds(o.value("T3")), seconds(o.value("T")));
}

DetailsBlock dittoSummary(SectionReader& r)
{
    DetailsBlock kv = keyValues(tr("Recovery and objective"));
    const QString recovery = r.take("recovery").toString();
    addRow(kv, tr("Recovery"),
           recovery == "dp"       ? tr("dp (algorithm 2, DP over the virtual template)")
           : recovery == "greedy" ? tr("greedy (algorithm 1)")
                                  : recovery);
    QJsonObject objective;
    for (const char* k : {"T", "T1", "T2", "T3"})
        objective[k] = r.take(k);
    addRow(kv, tr("T = T1 + T2 + T3 (Ditto eq. 1-3)"), objectiveText(objective));
    // k* counts from 1 in the plan (the paper's notation); shown from 0 like every other stage number.
    const QJsonValue slowest = r.take("slowest_stage");
    addRow(kv, tr("Slowest stage"), slowest.isDouble() ? QString::number(slowest.toInt() - 1) : integer(slowest));
    addRow(kv, tr("Micro-batches per iteration"), integer(r.take("micro_batches")));
    addRow(kv, tr("Virtual devices per weakest GPU"), integer(r.take("granularity")));
    const QJsonObject virt = r.takeObject("virtual_template");
    addRow(kv, tr("Virtual template"),
           tr("%1 single-GPU stages, T %2").arg(integer(virt.value("stages")), seconds(virt.value("T"))));
    addRow(kv, tr("Templates reused (--reuse)"), scalar(r.take("reused")));
    if (r.has("note"))
        addRow(kv, tr("Note"), r.take("note").toString());
    return kv;
}

// The recovered (or Oobleck) template: one row per stage, numbered from 0 like the Gantt chart and the
// stage map; `slowest` is the objective's k*, which counts from 1 as in the Ditto paper.
DetailsBlock stageTable(const QString& heading, const QJsonArray& stages, int slowest)
{
    DetailsBlock b =
        table(heading, {tr("Stage"), tr("Device type"), tr("Layers"), tr("GPUs"), tr("dp × tp"), tr("Stage time")});
    for (int i = 0; i < int(stages.size()); ++i) {
        const QJsonObject s = stages[i].toObject();
        b.rows.push_back({i + 1 == slowest ? tr("%1 (slowest)").arg(i) : QString::number(i),
                          s.value("device").toString(), layerRange(s.value("layers")), integer(s.value("gpus")),
                          QStringLiteral("%1 × %2").arg(integer(s.value("dp")), integer(s.value("tp"))),
                          seconds(s.value("seconds"))});
    }
    return b;
}

DetailsBlock virtualTemplates(const QJsonArray& templates)
{
    DetailsBlock b = table(tr("Oobleck templates on the virtual cluster"),
                           {tr("Virtual GPUs"), tr("Stages"), tr("Layer ranges"), tr("Virtual GPUs per stage")});
    b.note = tr("One template per virtual cluster size; recovery maps the chosen one onto the real GPUs.");
    for (const QJsonValue& v : templates) {
        const QJsonObject t = v.toObject();
        const QJsonArray gpus = t.value("gpus").toArray();
        b.rows.push_back({integer(t.value("virtual_gpus")), QString::number(gpus.size()),
                          rangesFromBounds(t.value("bounds").toArray()), joined(gpus)});
    }
    return b;
}

// "4" or "8 (tp 2)" per stage of a template.
QString stageGpus(const QJsonArray& stages)
{
    QStringList out;
    for (const QJsonValue& v : stages) {
        const QJsonObject s = v.toObject();
        const int tp = s.value("tp").toInt(1);
        out << (tp > 1 ? QStringLiteral("%1 (tp %2)").arg(integer(s.value("gpus"))).arg(tp) : integer(s.value("gpus")));
    }
    return out.join(QStringLiteral(", "));
}

QString stageRanges(const QJsonArray& stages)
{
    QStringList out;
    for (const QJsonValue& v : stages)
        out << layerRange(v.toObject().value("layers"));
    return out.join(QLatin1Char(' '));
}

DetailsBlock oobleckTemplates(const QJsonArray& templates, const QString& microBatches)
{
    DetailsBlock b =
        table(tr("Pipeline templates: node count → best template"),
              {tr("Nodes"), tr("Stages"), tr("Layer ranges"), tr("GPUs per stage"), tr("T"), tr("T1 + T2 + T3")});
    for (const QJsonValue& v : templates) {
        const QJsonObject t = v.toObject();
        const QJsonArray stages = t.value("template").toArray();
        b.rows.push_back({integer(t.value("nodes")), integer(t.value("stages")), stageRanges(stages), stageGpus(stages),
                          seconds(t.value("T")), objectiveText(t)});
    }
    return b;
}

// Rows = node counts, columns = stage counts, cells = T of the best template with that many stages.
DetailsBlock oobleckTByStages(const QJsonArray& templates)
{
    std::map<int, std::map<int, double>> cells;
    int maxStages = 0;
    for (const QJsonValue& v : templates) {
        const QJsonObject t = v.toObject();
        const QJsonObject byStages = t.value("T_by_stages").toObject();
        for (auto it = byStages.begin(); it != byStages.end(); ++it) {
            const int s = it.key().toInt();
            cells[t.value("nodes").toInt()][s] = it.value().toDouble();
            maxStages = std::max(maxStages, s);
        }
    }
    QStringList columns{tr("Nodes")};
    for (int s = 1; s <= maxStages; ++s)
        columns << (s == 1 ? tr("1 stage") : tr("%1 stages").arg(s));
    DetailsBlock b = table(tr("T by stage count"), columns);
    b.note = tr("T of the best template with each stage count (– : none fits memory or has too few GPUs).");
    for (const auto& [nodes, byStages] : cells) {
        QStringList row{QString::number(nodes)};
        for (int s = 1; s <= maxStages; ++s)
            row << (byStages.count(s) ? seconds(byStages.at(s)) : QStringLiteral("–"));
        b.rows.push_back(row);
    }
    return b;
}

DetailsBlock oobleckInstance(const QJsonArray& instance)
{
    DetailsBlock b =
        table(tr("Instance on the cluster"), {tr("Pipeline"), tr("Nodes"), tr("Stages"), tr("Micro-batches"), tr("T")});
    for (int i = 0; i < int(instance.size()); ++i) {
        const QJsonObject p = instance[i].toObject();
        b.rows.push_back({QString::number(i), integer(p.value("nodes")), integer(p.value("stages")),
                          integer(p.value("micro_batches")), seconds(p.value("T"))});
    }
    return b;
}
} // namespace

static DetailsSection dittoSection(const QJsonObject& object, const Plan&)
{
    SectionReader r(object);
    DetailsSection s{QStringLiteral("ditto"), tr("Ditto"), {}};
    if (r.has("folding"))
        s.blocks.push_back(dittoFolding(r.takeObject("folding")));
    const int slowest = r.rest().value("slowest_stage").toInt();
    s.blocks.push_back(dittoSummary(r));
    if (r.has("template"))
        s.blocks.push_back(stageTable(tr("Recovered template (real GPUs)"), r.takeArray("template"), slowest));
    if (r.has("virtual_templates"))
        s.blocks.push_back(virtualTemplates(r.takeArray("virtual_templates")));
    addRest(s, r);
    return s;
}

static DetailsSection oobleckSection(const QJsonObject& object, const Plan&)
{
    SectionReader r(object);
    DetailsSection s{QStringLiteral("oobleck"), tr("Oobleck"), {}};
    DetailsBlock kv = keyValues(tr("Setting"));
    addRow(kv, tr("Device type"), r.take("device").toString());
    addRow(kv, tr("GPUs per node"), integer(r.take("gpus_per_node")));
    addRow(kv, tr("Fewest nodes that fit"), integer(r.take("min_nodes")));
    addRow(kv, tr("Micro-batch size"), integer(r.take("micro_batch_size")));
    const QString microBatches = integer(r.take("micro_batches"));
    addRow(kv, tr("Micro-batches per iteration (global)"), microBatches);
    addRow(kv, tr("Templates reused (--reuse)"), scalar(r.take("reused")));
    s.blocks.push_back(kv);
    const QJsonArray templates = r.takeArray("templates");
    s.blocks.push_back(oobleckTemplates(templates, microBatches));
    s.blocks.push_back(oobleckTByStages(templates));
    if (r.has("instance"))
        s.blocks.push_back(oobleckInstance(r.takeArray("instance")));
    addRest(s, r);
    return s;
}

PlannerDisplay dittoDisplay() { return {"ditto", dittoSection, {}, {}}; }

PlannerDisplay oobleckDisplay() { return {"oobleck", oobleckSection, {}, {}}; }

} // namespace hetplan::details
