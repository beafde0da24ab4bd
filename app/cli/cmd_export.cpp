#include "cli.h"

#include "core/io/exporters.h"
#include "core/io/json_io.h"

#include <ostream>

namespace hetplan::cli {

// Writes a plan file in one of the registered export formats.
int cmdExport(const std::vector<std::string>& argv, std::ostream& out, std::ostream&)
{
    const ExporterRegistry& formats = ExporterRegistry::instance();
    CommandLine cl = commandLine("export");
    cl.addOption("plan", "FILE", "The plan file (written by plan --out).");
    cl.addOption("format", "NAME", "The output format: " + joinNames(formats.names(), ", ") + ".");
    cl.addOption("out", "FILE", "Write here instead of to stdout.");
    cl.setEpilogue("Formats:\n" + formatTable(formats));
    if (!cl.parse(argv, out))
        return Ok;
    const ExportFormat& format = formats.get(cl.get("format"));
    const std::string text = format.write(readPlan(cl.get("plan")));
    if (cl.has("out"))
        writeTextFile(cl.get("out"), text);
    else
        out << text;
    return Ok;
}

} // namespace hetplan::cli
