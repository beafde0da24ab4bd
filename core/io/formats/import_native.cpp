// hetplan's own profile format (hetplan.profile/1), as json_io reads it.
#include "core/io/importers.h"

#include "core/io/formats/import_util.h"
#include "core/io/json_io.h"

namespace hetplan {

Profile importNative(const std::string& path)
{
    Profile p = readProfile(path);
    p.source = "native";
    return p;
}

void registerNativeImporter(ImporterRegistry& registry)
{
    registry.add({{"native", "hetplan profile JSON (hetplan.profile/1)", "*.json", ".json"},
                  [](const std::string& path, const ImportOptions&) { return importNative(path); },
                  {},
                  [](const std::string& path) {
                      return importutil::readHead(path).find("\"hetplan.profile/1\"") != std::string::npos;
                  }});
}

} // namespace hetplan
