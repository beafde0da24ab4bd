// The built-in profile importers and plan exporters, one line per format. Each formats/*.cpp implements
// its format next to a `void register<Name>Importer(ImporterRegistry&)` or
// `void register<Name>Exporter(ExporterRegistry&)`; this explicit list is what links them in (a static
// library drops objects nothing references) and fixes the order the CLI and the GUI show them in.
#include "core/io/exporters.h"
#include "core/io/importers.h"

#define HETPLAN_BUILTIN_IMPORTERS(X) \
    X(registerNativeImporter)        \
    X(registerCsvImporter)           \
    X(registerOobleckImporter)       \
    X(registerSailorImporter)        \
    X(registerAmpNpyImporter)        \
    X(registerMetisImporter)         \
    /* one line per importer, above this one */

#define HETPLAN_BUILTIN_EXPORTERS(X)     \
    X(registerPlanJsonExporter)          \
    X(registerDeepSpeedExporter)         \
    X(registerDeepSpeedRanksExporter)    \
    X(registerDeepSpeedLauncherExporter) \
    X(registerMegatronExporter)          \
    X(registerHostfileExporter)          \
    X(registerRankTableExporter)         \
    X(registerChromeTraceExporter)       \
    /* one line per exporter, above this one */

namespace hetplan {

#define HETPLAN_DECLARE_IMPORTER(fn) void fn(ImporterRegistry&);
#define HETPLAN_DECLARE_EXPORTER(fn) void fn(ExporterRegistry&);
HETPLAN_BUILTIN_IMPORTERS(HETPLAN_DECLARE_IMPORTER)
HETPLAN_BUILTIN_EXPORTERS(HETPLAN_DECLARE_EXPORTER)
#define HETPLAN_ADD_FORMAT(fn) fn(registry);

// Registered once, on first use (thread-safe static initialisation).
ImporterRegistry& ImporterRegistry::instance()
{
    static ImporterRegistry registry = [] {
        ImporterRegistry registry;
        HETPLAN_BUILTIN_IMPORTERS(HETPLAN_ADD_FORMAT)
        return registry;
    }();
    return registry;
}

ExporterRegistry& ExporterRegistry::instance()
{
    static ExporterRegistry registry = [] {
        ExporterRegistry registry;
        HETPLAN_BUILTIN_EXPORTERS(HETPLAN_ADD_FORMAT)
        return registry;
    }();
    return registry;
}

} // namespace hetplan
