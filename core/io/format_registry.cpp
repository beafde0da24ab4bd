#include "core/io/format_registry.h"

namespace hetplan {

std::string joinNames(const std::vector<std::string>& names, const std::string& sep)
{
    std::string out;
    for (const std::string& n : names)
        out += (out.empty() ? "" : sep) + n;
    return out;
}

} // namespace hetplan
