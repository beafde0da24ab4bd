// Export through the registry; the formats themselves live in formats/export_*.cpp.
#include "core/io/exporters.h"

namespace hetplan {

std::string exportPlan(const Plan& plan, const std::string& format)
{
    return ExporterRegistry::instance().get(format).write(plan);
}

} // namespace hetplan
