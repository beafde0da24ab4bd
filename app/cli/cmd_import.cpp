#include "cli.h"

#include "core/base/errors.h"
#include "core/base/quote.h"
#include "core/io/importers.h"
#include "core/io/json_io.h"
#include "core/model/device.h"

#include <algorithm>
#include <map>
#include <ostream>

namespace hetplan::cli {

namespace {
// The names of the formats that need `what`, for the help of the option that supplies it.
std::string formatsNeeding(bool ImportNeeds::*what)
{
    std::vector<std::string> names;
    for (const ImportFormat& f : ImporterRegistry::instance().formats())
        if (f.needs.*what)
            names.push_back(f.name);
    return joinNames(names, ", ");
}

// `import --<key>` (underscores as dashes) for a format's declared option.
std::string paramFlag(const std::string& key)
{
    std::string flag = key;
    std::replace(flag.begin(), flag.end(), '_', '-');
    return flag;
}

// One option (a flag for booleans) per key any format declares, its help from the declaration.
void addFormatParams(CommandLine& cl)
{
    std::map<std::string, std::pair<OptionDecl, std::vector<std::string>>> byKey; // key → declaration, formats
    for (const ImportFormat& f : ImporterRegistry::instance().formats())
        for (const OptionDecl& o : f.options) {
            auto& entry = byKey.try_emplace(o.key, o, std::vector<std::string>{}).first->second;
            entry.second.push_back(f.name);
        }
    for (const auto& [key, entry] : byKey) {
        const auto& [decl, formats] = entry;
        const std::string help = decl.help + " (" + decl.typeName() + ", default " + decl.defaultValue + "), for " +
                                 joinNames(formats, ", ") + ".";
        if (decl.type == OptionType::Bool)
            cl.addFlag(paramFlag(key), help);
        else
            cl.addOption(paramFlag(key), decl.type == OptionType::Int ? "N" : "X", help);
    }
}

// The values given for the format's declared options; one given for an option the format does not
// declare is an error naming the formats that take it.
std::map<std::string, std::string> formatParams(const CommandLine& cl, const ImportFormat& format)
{
    std::map<std::string, std::string> params;
    for (const ImportFormat& f : ImporterRegistry::instance().formats())
        for (const OptionDecl& o : f.options) {
            const std::string flag = paramFlag(o.key);
            if (!cl.has(flag))
                continue;
            const auto own = std::find_if(format.options.begin(), format.options.end(),
                                          [&](const OptionDecl& d) { return d.key == o.key; });
            if (own == format.options.end())
                throw InputError("--" + flag, "argument", "does not apply to --format " + format.name);
            params[o.key] = own->check(own->type == OptionType::Bool ? "true" : cl.value(flag), "--" + flag);
        }
    return params;
}

void addImportOptions(CommandLine& cl)
{
    const ImporterRegistry& formats = ImporterRegistry::instance();
    cl.addOption("format", "NAME",
                 "The input format: " + joinNames(formats.names(), ", ") +
                     " (default: the one format that recognises the input's signature).");
    cl.addOption("in", "PATH",
                 "The measurements: a file, or a directory for " + formatsNeeding(&ImportNeeds::directory) +
                     ". Repeatable: several inputs (e.g. hetplan-profile's file of each GPU type) are merged into "
                     "one profile, later ones winning for the same device, tp and micro-batch; they must agree "
                     "on the sequence length and precision.");
    cl.addOption("out", "FILE", "Write the profile JSON (hetplan.profile/1) here.");
    cl.addOption("device", "TYPE",
                 "The GPU type it was measured on (see: hetplan-cli list devices); required for " +
                     formatsNeeding(&ImportNeeds::device) + ".");
    cl.addOption("tp", "N", "Tensor-parallel degree it was measured at, for " + formatsNeeding(&ImportNeeds::tp) + ".",
                 "1");
    cl.addOption("model", "NAME", "The model the profile belongs to (stored in the profile).");
    cl.addOption("sequence", "N",
                 "Sequence length the measurements ran at (stored in the profile; a job at another length "
                 "rescales the times with a warning).");
    cl.addOption("precision", "P",
                 "Precision the measurements ran at: fp16, bf16 or fp32 (stored in the profile; a job in "
                 "another precision is refused).");
    addFormatParams(cl);
    cl.setEpilogue("Formats:\n" + formatTable(formats));
}

// The catalog's name for --device, or "" when it is not given (and the format does not need it).
std::string deviceFromArgs(const CommandLine& cl, const ImportFormat& format)
{
    const std::string device = cl.value("device");
    if (device.empty()) {
        if (format.needs.device)
            throw InputError("--device", "argument",
                             "required for --format " + format.name + " (the GPU it was measured on)");
        return device;
    }
    const DeviceType* d = DeviceCatalog::builtin().find(device);
    if (!d)
        throw InputError("--device", "device", "unknown device type '" + device + "' (see: hetplan-cli list devices)");
    return d->name;
}
} // namespace

// Converts measurements in a registered import format to hetplan's profile JSON.
int cmdImport(const std::vector<std::string>& argv, std::ostream& out, std::ostream&)
{
    CommandLine cl = commandLine("import");
    addImportOptions(cl);
    if (!cl.parse(argv, out))
        return Ok;
    const std::string firstIn = cl.get("in"); // required
    // Without --format the file says what it is: the one format whose signature matches, else a request for
    // --format naming the candidates.
    const std::string formatName = cl.value("format").empty() ? detectFormat(firstIn) : cl.value("format");
    const ImportFormat& format = ImporterRegistry::instance().get(formatName);
    const std::string outPath = cl.get("out");
    ImportOptions opts;
    opts.deviceType = deviceFromArgs(cl, format);
    opts.tp = cl.integer("tp");
    if (opts.tp < 1)
        throw InputError("--tp", "argument", "must be at least 1");
    opts.params = formatParams(cl, format);
    opts.model = cl.value("model");
    if (!cl.value("sequence").empty()) {
        opts.sequenceLength = cl.integer("sequence");
        if (opts.sequenceLength < 1 || opts.sequenceLength > kMaxBatch)
            throw InputError("--sequence", "argument", "must be between 1 and " + std::to_string(kMaxBatch));
    }
    if (!cl.value("precision").empty()) {
        Precision prec;
        if (!parsePrecision(cl.value("precision"), prec))
            throw InputError("--precision", "argument", "expected fp16, bf16 or fp32");
        opts.precision = prec;
    }
    Profile p;
    for (const std::string& in : cl.all("in")) {
        const Profile one = importProfile(format.name, in, opts);
        if (!p.model.empty() && !one.model.empty() && one.model != p.model)
            throw InputError(in, "model", "is a profile of '" + one.model + "', an earlier input of '" + p.model + "'");
        p.merge(one);
    }
    p.validate("--in"); // the merged tables must agree on the layer count
    writeJsonFile(outPath, toJson(p));
    out << "imported " << p.tables().size() << " table(s), " << p.layerCount() << " layers, devices:";
    for (const std::string& d : p.deviceTypes())
        out << " " << escapeControls(d);
    out << " -> " << outPath << "\n";
    return Ok;
}

} // namespace hetplan::cli
