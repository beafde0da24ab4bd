// The plan itself (hetplan.plan/1), inputs included, as json_io writes it.
#include "core/io/exporters.h"

#include "core/io/formats/export_util.h"
#include "core/io/json_io.h"

namespace hetplan {

void registerPlanJsonExporter(ExporterRegistry& registry)
{
    registry.add({{"plan", "Plan JSON (hetplan.plan/1)", "*.json", ".json"},
                  [](const Plan& plan) { return exportutil::indentedJson(toJson(plan)); }});
}

} // namespace hetplan
