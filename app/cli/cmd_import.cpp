#include "cli.h"

#include "core/io/importers.h"
#include "core/io/json_io.h"
#include "core/model/device.h"
#include "core/model/errors.h"

#include <ostream>

namespace hetplan::cli {

int cmdImport(const std::vector<std::string>& argv, std::ostream& out)
{
    Args a(argv, {"format", "in", "out", "device", "tp"});
    const std::string format = a.get("format");
    const std::string in = a.get("in");
    const std::string outPath = a.get("out");
    std::string device = a.get("device", "");
    if (!device.empty()) {
        const DeviceType* d = DeviceCatalog::builtin().find(device);
        if (!d)
            throw InputError("--device", "device", "unknown device type '" + device + "' (see: hetplan-cli list devices)");
        device = d->name;
    } else if (format == "oobleck" || format == "sailor" || format == "amp-npy") {
        throw InputError("--device", "argument", "required for --format " + format + " (the GPU it was measured on)");
    }
    const int tp = a.integer("tp", 1);
    if (tp < 1)
        throw InputError("--tp", "argument", "must be at least 1");
    Profile p = importProfile(format, in, device, tp);
    writeJsonFile(outPath, toJson(p));
    out << "imported " << p.tables().size() << " table(s), " << p.layerCount() << " layers, devices:";
    for (const std::string& d : p.deviceTypes())
        out << " " << d;
    out << " -> " << outPath << "\n";
    return Ok;
}

} // namespace hetplan::cli
