#include "cli.h"

#include "core/base/errors.h"
#include "core/base/quote.h"
#include "core/io/examples.h"
#include "core/model/device.h"
#include "core/model/model.h"

#include <algorithm>
#include <iomanip>
#include <ostream>

namespace hetplan::cli {

int cmdList(const std::vector<std::string>& argv, std::ostream& out, std::ostream&)
{
    CommandLine cl = commandLine("list");
    cl.addPositional("what", "planners, examples or devices");
    if (!cl.parse(argv, out))
        return Ok;
    if (cl.positional().size() != 1)
        throw InputError("list", "what", "expected one of: planners, examples, devices");
    const std::string what = cl.positional()[0];
    if (what == "planners") {
        const std::vector<std::string> names = PlannerRegistry::instance().names();
        size_t width = 0; // the longest name and two spaces, so no description runs into its name
        for (const std::string& n : names)
            width = std::max(width, n.size() + 2);
        for (const std::string& n : names) {
            auto p = PlannerRegistry::instance().create(n);
            out << std::left << std::setw(int(width)) << escapeControls(n) << escapeControls(p->description()) << "\n";
        }
    } else if (what == "examples") {
        out << "clusters:\n";
        for (const std::string& n : exampleClusterNames()) {
            Cluster c = exampleCluster(n);
            out << "  " << std::left << std::setw(18) << escapeControls(n) << c.gpuCount() << " GPUs";
            if (!c.description.empty())
                out << "  " << escapeControls(c.description);
            out << "\n";
        }
        out << "models:\n";
        for (const std::string& n : exampleModelNames()) {
            ModelSpec m = buildExampleModel(n);
            out << "  " << std::left << std::setw(18) << escapeControls(n) << std::fixed << std::setprecision(1)
                << m.totalParams() / 1e6 << " M params, " << m.layerCount() << " layers, seq " << m.arch.sequence
                << "\n";
        }
    } else if (what == "devices") {
        out << std::left << std::setw(16) << "device" << std::setw(8) << "vendor" << std::right << std::setw(10)
            << "TFLOP/s" << std::setw(9) << "GiB" << std::setw(10) << "GB/s"
            << "  intra-node link\n";
        for (const DeviceType& d : DeviceCatalog::builtin().all())
            out << std::left << std::setw(16) << escapeControls(d.name) << std::setw(8) << escapeControls(d.vendor)
                << std::right << std::fixed << std::setprecision(1) << std::setw(10) << d.peakFlops / 1e12
                << std::setw(9) << d.memoryBytes / 1073741824.0 << std::setprecision(0) << std::setw(10)
                << d.memoryBandwidth / 1e9 << "  " << escapeControls(d.intraNodeLink) << "\n";
    } else {
        throw InputError("list", "what", "unknown list '" + what + "' (expected planners, examples or devices)");
    }
    return Ok;
}

} // namespace hetplan::cli
