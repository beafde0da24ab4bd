// HAP's section: its search (synthesize/balance rounds, A* counts), the device classes it balanced over
// and the load-balance ratio per GPU of each class, segments named from the plan's SPMD part.
#include "planner_display.h"

#include "core/base/qstrings.h"
#include "widgets/views/plan_details_format.h"

#include <QJsonArray>
#include <QObject>

namespace hetplan::details {

namespace {
DetailsBlock hapClasses(const QJsonArray& classes)
{
    DetailsBlock b = table(tr("Device classes (HAP's virtual devices)"),
                           {tr("Class"), tr("Device type"), tr("GPUs"), tr("Sustained rate (TFLOP/s)")});
    for (int i = 0; i < int(classes.size()); ++i) {
        const QJsonObject c = classes[i].toObject();
        b.rows.push_back({QString::number(i), c.value("device").toString(), integer(c.value("gpus")),
                          number(c.value("flops_per_second").toDouble() / 1e12)});
    }
    return b;
}

// Rows = segments, columns = device classes, cells = the share of one GPU of that class.
DetailsBlock hapClassRatios(const QJsonArray& ratios, const QJsonArray& classes, const Plan& plan)
{
    QStringList columns{tr("Segment"), tr("Name")};
    for (const QJsonValue& c : classes)
        columns << tr("per %1 GPU").arg(c.toObject().value("device").toString());
    DetailsBlock b = table(tr("Load balance: ratio per GPU of each class (eq. 3)"), columns);
    for (int s = 0; s < int(ratios.size()); ++s) {
        const bool named = plan.spmd && s < int(plan.spmd->segments.size());
        QStringList row{QString::number(s), named ? toQString(plan.spmd->segments[s]) : QString()};
        for (const QJsonValue& v : ratios[s].toArray())
            row << number(v.toDouble());
        b.rows.push_back(row);
    }
    return b;
}

DetailsBlock hapSearch(SectionReader& r)
{
    DetailsBlock kv = keyValues(tr("Search"));
    addRow(kv, tr("Synthesize/balance rounds"), integer(r.take("rounds")));
    addRow(kv, tr("Stopped by"), r.take("stopped_by").toString());
    QStringList trace;
    for (const QJsonValue& v : r.takeArray("cost_trace"))
        trace << seconds(v);
    addRow(kv, tr("Cost per round t(Q, B)"), trace.join(QStringLiteral(" → ")));
    addRow(kv, tr("A* programs expanded"), integer(r.take("expanded")));
    addRow(kv, tr("A* programs generated"), integer(r.take("generated")));
    addRow(kv, tr("A* programs pruned (dominance)"), integer(r.take("pruned")));
    return kv;
}

DetailsSection hapSection(const QJsonObject& object, const Plan& plan)
{
    SectionReader r(object);
    DetailsSection s{QStringLiteral("hap"), tr("HAP"), {}};
    s.blocks.push_back(hapSearch(r));
    const QJsonArray classes = r.takeArray("device_classes");
    s.blocks.push_back(hapClasses(classes));
    if (r.has("class_ratios"))
        s.blocks.push_back(hapClassRatios(r.takeArray("class_ratios"), classes, plan));
    addRest(s, r);
    return s;
}
} // namespace

PlannerDisplay hapDisplay() { return {"hap", hapSection, {}, {}}; }

} // namespace hetplan::details
