// Import through the registry; the formats themselves live in formats/import_*.cpp.
#include "core/io/importers.h"

namespace hetplan {

Profile importProfile(const std::string& format, const std::string& path, const ImportOptions& options)
{
    Profile p = ImporterRegistry::instance().get(format).read(path, options);
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
