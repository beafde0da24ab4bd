#include "cli.h"

#include "core/io/importers.h"
#include "core/io/json_io.h"
#include "core/model/device.h"
#include "core/base/errors.h"

#include <ostream>

namespace hetplan::cli {

int cmdImport(const std::vector<std::string>& argv, std::ostream& out)
{
    Args a(argv, {"format", "in", "out", "device", "tp", "model", "backward-factor"}, {"compact-gpt2"});
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
    ImportOptions opts;
    opts.deviceType = device;
    opts.tp = tp;
    opts.ampBackwardFactor = a.number("backward-factor", 2.0);
    if (!(opts.ampBackwardFactor > 0))
        throw InputError("--backward-factor", "argument", "must be positive");
    // AMP's GPT-2 arrays carry no-op entries (embedding, no-op, blocks, 2 no-ops, head, no-op); fold them so
    // the profile lines up with the gpt2-amp example model.
    opts.ampCompactGpt2 = a.flag("compact-gpt2");
    opts.model = a.get("model", "");
    Profile p = importProfile(format, in, opts);
    writeJsonFile(outPath, toJson(p));
    out << "imported " << p.tables().size() << " table(s), " << p.layerCount() << " layers, devices:";
    for (const std::string& d : p.deviceTypes())
        out << " " << d;
    out << " -> " << outPath << "\n";
    return Ok;
}

} // namespace hetplan::cli
