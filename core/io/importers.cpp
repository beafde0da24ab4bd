// hetplan's own profile format and the --format dispatch. The other formats live in import_*.cpp.
#include "core/io/importers.h"

#include "core/io/json_io.h"
#include "core/base/errors.h"

namespace hetplan {

Profile importNative(const std::string& path)
{
    Profile p = readProfile(path);
    p.source = "native";
    return p;
}

Profile importProfile(const std::string& format, const std::string& path, const ImportOptions& options)
{
    Profile p;
    if (format == "native")
        p = importNative(path);
    else if (format == "csv")
        p = importCsv(path);
    else if (format == "oobleck")
        p = importOobleck(path, options.deviceType);
    else if (format == "sailor")
        p = importSailor(path, options.deviceType);
    else if (format == "amp-npy")
        p = importAmpNpy(path, options.deviceType, options.tp, options.ampBackwardFactor, options.ampCompactGpt2);
    else
        throw InputError("--format", "format",
                         "unknown profile format '" + format + "' (known: native, csv, oobleck, sailor, amp-npy)");
    if (!options.model.empty())
        p.model = options.model;
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
