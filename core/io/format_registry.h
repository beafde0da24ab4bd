#pragma once
// Registries of file formats, after Tiled's FileFormat: each format registers once with its name, a
// one-line description, a file-name filter and a default suffix, and everything that lists formats (the
// CLI's usage and --format checks, the GUI's import dialog and export menu) asks the registry instead of
// naming formats itself. The importer and exporter registries (importers.h, exporters.h) derive from this.
#include "core/base/errors.h"

#include <stdexcept>
#include <string>
#include <vector>

namespace hetplan {

// What every format shows the user.
struct FileFormat {
    std::string name;                      // the --format value, e.g. "amp-npy"
    std::string description;               // one line for --help, combo boxes and menus
    std::string filter;                    // file-name filter for file dialogs, e.g. "*.npy"; "" = any name
    std::string suffix;                    // default suffix with its dot, e.g. ".npy"; "" = none
    std::vector<std::string> aliases = {}; // other names --format accepts

    // "AMP .npy (*.npy)", the entry a file dialog's filter list wants (Tiled's nameFilter()).
    std::string nameFilter() const { return description + " (" + (filter.empty() ? "*" : filter) + ")"; }
};

// "a, b, c" (sep ", ") or "a|b|c" (sep "|").
std::string joinNames(const std::vector<std::string>& names, const std::string& sep);

// Formats in registration order; Format derives from FileFormat.
template <typename Format>
class FormatRegistry {
public:
    // A second format with a taken name or alias is a programming error.
    void add(Format format)
    {
        for (const std::string& n : namesOf(format))
            if (n.empty() || find(n))
                throw std::logic_error("format name '" + n + "' is empty or already registered");
        formats_.push_back(std::move(format));
    }
    const std::vector<Format>& formats() const { return formats_; }
    // By name or alias; nullptr if unknown.
    const Format* find(const std::string& name) const
    {
        for (const Format& f : formats_)
            for (const std::string& n : namesOf(f))
                if (n == name)
                    return &f;
        return nullptr;
    }
    // By name or alias; an unknown name is InputError("--format", "format", "unknown format 'x' (known: …)").
    const Format& get(const std::string& name) const
    {
        if (const Format* f = find(name))
            return *f;
        throw InputError("--format", "format",
                         "unknown format '" + name + "' (known: " + joinNames(names(), ", ") + ")");
    }
    std::vector<std::string> names() const
    {
        std::vector<std::string> out;
        for (const Format& f : formats_)
            out.push_back(f.name);
        return out;
    }

private:
    static std::vector<std::string> namesOf(const FileFormat& f)
    {
        std::vector<std::string> all{f.name};
        all.insert(all.end(), f.aliases.begin(), f.aliases.end());
        return all;
    }
    std::vector<Format> formats_;
};

} // namespace hetplan
