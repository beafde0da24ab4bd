#include "project_io.h"

#include "core/base/errors.h"
#include "core/io/json_io.h"

#include <QDateTime>

namespace hetplan {

namespace {

std::string importPlan(ProjectDocument& doc, const std::string& path)
{
    Plan plan = readPlan(path);
    Run run;
    run.cluster = plan.cluster.name;
    run.model = plan.model.name;
    run.job = "imported";
    run.started = QDateTime::currentDateTimeUtc().toString(Qt::ISODate).toStdString();
    const int id = doc.addRun(run);
    RunResult result;
    result.planner = plan.planner;
    result.plan = std::move(plan);
    doc.addRunResult(id, result);
    doc.setCurrentPlan(PlanRef{id, 0});
    return "Run " + std::to_string(id);
}

} // namespace

std::string importJson(ProjectDocument& doc, JsonItem kind, const std::string& path)
{
    switch (kind) {
    case JsonItem::Cluster: {
        Cluster c = readCluster(path); // throws before anything changes
        c.name = uniqueName(c.name, [&](const std::string& n) { return doc.hasItem(ItemKind::Cluster, n); });
        doc.setCluster(c);
        return c.name;
    }
    case JsonItem::Model: {
        ProjectModel m{readModel(path), {}};
        m.model.name = uniqueName(m.model.name, [&](const std::string& n) { return doc.hasItem(ItemKind::Model, n); });
        doc.addModel(m);
        return m.model.name;
    }
    case JsonItem::Plan: return importPlan(doc, path);
    }
    return {};
}

void exportJson(const ProjectDocument& doc, JsonItem kind, const std::string& path)
{
    switch (kind) {
    case JsonItem::Cluster:
        if (!doc.cluster())
            throw InputError(path, "cluster", "the project has no current cluster to export");
        writeJsonFile(path, toJson(*doc.cluster()));
        return;
    case JsonItem::Model:
        if (!doc.model())
            throw InputError(path, "model", "the project has no current model to export");
        writeJsonFile(path, toJson(doc.model()->model));
        return;
    case JsonItem::Plan: {
        const auto ref = doc.currentPlan();
        const Plan* plan = ref ? doc.plan(*ref) : nullptr;
        if (!plan)
            throw InputError(path, "plan", "no plan is selected: run a planner or pick a result first");
        writeJsonFile(path, toJson(*plan));
        return;
    }
    }
}

} // namespace hetplan
