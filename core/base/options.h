#pragma once
// Typed option declarations, shared by everything that takes named values from the user: planners
// (--option key=value, the Run tab, plan JSON) and profile formats (import --<key>, the import dialog).
// A declaration gives the type, default, range or choices, a label for the GUI and a one-line help; values
// travel as text and check() validates and canonicalises one.
#include <map>
#include <string>
#include <vector>

namespace hetplan {

enum class OptionType { Int, Real, Bool, Choice };

struct OptionDecl {
    std::string key;
    OptionType type = OptionType::Int;
    std::string defaultValue;         // canonical text of the default
    double min = 0, max = 0;          // Int and Real: inclusive range
    std::vector<std::string> choices; // Choice: the allowed values
    std::string label;                // short human label ("Strategies re-scored")
    std::string help;                 // one line

    static OptionDecl integer(std::string key, std::string label, int def, int min, int max, std::string help);
    static OptionDecl real(std::string key, std::string label, double def, double min, double max, std::string help);
    static OptionDecl boolean(std::string key, std::string label, bool def, std::string help);
    static OptionDecl choice(std::string key, std::string label, std::string def, std::vector<std::string> choices,
                             std::string help);

    // The canonical text of `value` ("1"/"true"/"yes" → "true"; " 3" is refused) or
    // InputError(source, key, reason).
    std::string check(const std::string& value, const std::string& source = "options") const;
    std::string typeName() const; // "integer 1..1000", "true|false", "fast|paper", ...
};

// `declared` with `given` applied: every key present, values checked and canonical, defaults filled in. An
// unknown key throws InputError(source, key, "unknown option for <owner> (valid: …)").
std::map<std::string, std::string> resolveOptions(const std::vector<OptionDecl>& declared,
                                                  const std::map<std::string, std::string>& given,
                                                  const std::string& owner, const std::string& source = "options");

// Typed reads of resolved values; a key that is missing or not of that type is a programming error
// (std::logic_error).
int intOption(const std::map<std::string, std::string>& resolved, const std::string& key);
double doubleOption(const std::map<std::string, std::string>& resolved, const std::string& key);
bool boolOption(const std::map<std::string, std::string>& resolved, const std::string& key);
const std::string& textOption(const std::map<std::string, std::string>& resolved, const std::string& key);

} // namespace hetplan
