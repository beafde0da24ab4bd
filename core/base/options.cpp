#include "options.h"

#include "core/base/errors.h"
#include "core/base/numbers.h"
#include "core/base/quote.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <stdexcept>

namespace hetplan {

namespace {

std::string formatNumber(double v)
{
    std::ostringstream os;
    os << std::setprecision(12) << v;
    return os.str();
}

// The one number rule (core/base/numbers.h): "3", "-2", "0.25", "1e-3"; no spaces, no hex, finite.
bool parseInt(const std::string& s, long long& out)
{
    const std::optional<long long> v = wholeNumber(s);
    out = v.value_or(0);
    return v.has_value();
}

bool parseReal(const std::string& s, double& out)
{
    const std::optional<double> v = decimalNumber(s);
    out = v.value_or(0);
    return v.has_value();
}

} // namespace

OptionDecl OptionDecl::integer(std::string key, std::string label, int def, int min, int max, std::string help)
{
    return {std::move(key),   OptionType::Int, std::to_string(def), double(min), double(max), {},
            std::move(label), std::move(help)};
}

OptionDecl OptionDecl::real(std::string key, std::string label, double def, double min, double max, std::string help)
{
    return {std::move(key), OptionType::Real, formatNumber(def), min, max, {}, std::move(label), std::move(help)};
}

OptionDecl OptionDecl::boolean(std::string key, std::string label, bool def, std::string help)
{
    return {std::move(key), OptionType::Bool, def ? "true" : "false", 0, 0, {}, std::move(label), std::move(help)};
}

OptionDecl OptionDecl::choice(std::string key, std::string label, std::string def, std::vector<std::string> choices,
                              std::string help)
{
    return {std::move(key),     OptionType::Choice, std::move(def), 0, 0,
            std::move(choices), std::move(label),   std::move(help)};
}

std::string OptionDecl::typeName() const
{
    switch (type) {
    case OptionType::Int: return "integer " + formatNumber(min) + ".." + formatNumber(max);
    case OptionType::Real: return "number " + formatNumber(min) + ".." + formatNumber(max);
    case OptionType::Bool: return "true|false";
    case OptionType::Choice: {
        std::string out;
        for (const std::string& c : choices)
            out += (out.empty() ? "" : "|") + c;
        return out;
    }
    }
    return {};
}

std::string OptionDecl::check(const std::string& value, const std::string& source) const
{
    auto fail = [&](const std::string& why) -> std::string {
        throw InputError(source, key, "expected " + typeName() + ", got '" + value + "'" + why);
    };
    switch (type) {
    case OptionType::Int: {
        long long v = 0;
        if (!parseInt(value, v))
            return fail("");
        if (v < min || v > max)
            return fail(" (out of range)");
        return std::to_string(v);
    }
    case OptionType::Real: {
        double v = 0;
        if (!parseReal(value, v))
            return fail("");
        if (v < min || v > max)
            return fail(" (out of range)");
        return formatNumber(v);
    }
    case OptionType::Bool:
        if (value == "true" || value == "1" || value == "yes")
            return "true";
        if (value == "false" || value == "0" || value == "no")
            return "false";
        return fail("");
    case OptionType::Choice:
        if (std::find(choices.begin(), choices.end(), value) == choices.end())
            return fail("");
        return value;
    }
    return fail("");
}

std::map<std::string, std::string> resolveOptions(const std::vector<OptionDecl>& declared,
                                                  const std::map<std::string, std::string>& given,
                                                  const std::string& owner, const std::string& source)
{
    std::map<std::string, std::string> out;
    for (const OptionDecl& o : declared)
        out[o.key] = o.defaultValue;
    for (const auto& [key, value] : given) {
        auto it = std::find_if(declared.begin(), declared.end(), [&](const OptionDecl& o) { return o.key == key; });
        if (it == declared.end()) {
            std::string valid;
            for (const OptionDecl& o : declared)
                valid += (valid.empty() ? "" : ", ") + o.key;
            throw InputError(source, fieldKey(key),
                             "unknown option for " + owner + " (" +
                                 (valid.empty() ? std::string("it takes no options") : "valid: " + valid) + ")");
        }
        out[key] = it->check(value, source);
    }
    return out;
}

const std::string& textOption(const std::map<std::string, std::string>& resolved, const std::string& key)
{
    auto it = resolved.find(key);
    if (it == resolved.end())
        throw std::logic_error("option '" + key + "' is not declared (or options were not resolved)");
    return it->second;
}

int intOption(const std::map<std::string, std::string>& resolved, const std::string& key)
{
    long long v = 0;
    if (!parseInt(textOption(resolved, key), v))
        throw std::logic_error("option '" + key + "' is not a resolved integer");
    return int(v);
}

double doubleOption(const std::map<std::string, std::string>& resolved, const std::string& key)
{
    double v = 0;
    if (!parseReal(textOption(resolved, key), v))
        throw std::logic_error("option '" + key + "' is not a resolved number");
    return v;
}

bool boolOption(const std::map<std::string, std::string>& resolved, const std::string& key)
{
    return textOption(resolved, key) == "true";
}

} // namespace hetplan
