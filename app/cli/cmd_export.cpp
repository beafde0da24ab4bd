#include "cli.h"

#include "core/io/exporters.h"
#include "core/io/json_io.h"
#include "core/sim/simulator.h"

#include <ostream>

namespace hetplan::cli {

// Writes a plan file in one of the registered export formats.
int cmdExport(const std::vector<std::string>& argv, std::ostream& out, std::ostream&)
{
    const ExporterRegistry& formats = ExporterRegistry::instance();
    CommandLine cl = commandLine("export");
    cl.addOption("plan", "FILE", "The plan file (written by plan --out).");
    cl.addOption("format", "NAME",
                 "The output format: " + joinNames(formats.names(), ", ") + ". chrome-trace writes at most " +
                     std::to_string(kMaxTimelineEvents) +
                     " events: a plan with more (millions of micro-batches) is refused (exit 2).");
    cl.addOption("out", "FILE", "Write here instead of to stdout.");
    cl.addFlag("force",
               "Write a launch file (script, framework config, hostfile, rank table) even for a plan that does not "
               "fit memory when simulated, or is marked infeasible; without it such a plan is refused (exit 3).");
    cl.setEpilogue("Formats:\n" + formatTable(formats));
    if (!cl.parse(argv, out))
        return Ok;
    const ExportFormat& format = formats.get(cl.get("format"));
    const std::string path = cl.get("plan");
    const Plan plan = readPlan(path);
    // Exporters name the plan "plan"; here it is the file the user gave.
    if (format.launches && !cl.flag("force"))
        if (const std::string why = withPlanFile(path, [&] { return launchRefusal(plan); }); !why.empty())
            throw InfeasibleError(path + ": not exported as " + format.name + ": " + why +
                                  "; pass --force to export it anyway");
    const std::string text = withPlanFile(path, [&] { return format.write(plan); });
    if (cl.has("out"))
        writeTextFile(cl.get("out"), text);
    else
        out << text;
    return Ok;
}

} // namespace hetplan::cli
