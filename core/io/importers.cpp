// Import through the registry; the formats themselves live in formats/import_*.cpp.
#include "core/io/importers.h"

#include "core/base/errors.h"
#include "core/base/quote.h"

namespace hetplan {

std::vector<std::string> formatsSupporting(const std::string& path)
{
    std::vector<std::string> out;
    for (const ImportFormat& f : ImporterRegistry::instance().formats())
        if (f.supports && f.supports(path))
            out.push_back(f.name);
    return out;
}

std::string detectFormat(const std::string& path)
{
    const std::vector<std::string> found = formatsSupporting(path);
    if (found.size() == 1)
        return found.front();
    if (found.empty())
        throw InputError("--format", "format",
                         "cannot tell the format of " + quotedInput(path) + ": none of " +
                             joinNames(ImporterRegistry::instance().names(), ", ") + " recognises it; give --format");
    throw InputError("--format", "format",
                     quotedInput(path) + " reads as " + joinNames(found, " and ") + "; give --format to choose");
}

Profile importProfile(const std::string& format, const std::string& path, const ImportOptions& options)
{
    const ImportFormat& f = ImporterRegistry::instance().get(format);
    ImportOptions resolved = options;
    resolved.params = resolveOptions(f.options, options.params, "format '" + f.name + "'", "params");
    Profile p = f.read(path, resolved);
    if (!options.model.empty())
        p.model = options.model;
    if (options.sequenceLength > 0)
        p.sequenceLength = options.sequenceLength;
    if (options.precision)
        p.precision = options.precision;
    p.validate(path);
    return p;
}

Profile importProfile(const std::string& format, const std::string& path, const std::string& deviceType, int tp)
{
    ImportOptions o;
    o.deviceType = deviceType;
    o.tp = tp;
    return importProfile(format, path, o);
}

} // namespace hetplan
