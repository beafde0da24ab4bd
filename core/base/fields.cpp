#include "fields.h"

#include "core/base/numbers.h"

#include <cmath>
#include <limits>

namespace hetplan::fields_detail {

std::string rangeProblem(const OptionDecl& decl, double v)
{
    if (isSubnormal(v))
        return kSubnormalReason;
    const bool whole = decl.type == OptionType::Int;
    if (std::isfinite(v) && v >= decl.min && v <= decl.max && (!whole || v == std::floor(v)))
        return {};
    if (std::isinf(decl.max))
        return decl.min == 0 ? "must be a finite non-negative number"
                             : "must be a finite number of at least " + numberText(decl.min);
    return "must be between " + numberText(decl.min) + " and " + numberText(decl.max);
}

std::string choiceProblem(const OptionDecl& decl, const std::string& got)
{
    std::string list;
    for (size_t i = 0; i < decl.choices.size(); ++i)
        list += (i == 0 ? "" : i + 1 == decl.choices.size() ? " or " : ", ") + decl.choices[i];
    return "expected " + list + ", got " + quotedInput(got);
}

bool parseNumber(const OptionDecl& decl, const std::string& s, double& out)
{
    if (decl.type == OptionType::Bool) {
        if (s == "true" || s == "1" || s == "yes")
            out = 1;
        else if (s == "false" || s == "0" || s == "no")
            out = 0;
        else
            return false;
        return true;
    }
    if (decl.type == OptionType::Int) {
        const std::optional<long long> v = wholeNumber(s);
        out = double(v.value_or(0));
        return v.has_value();
    }
    const std::optional<double> v = decimalNumber(s);
    out = v.value_or(0);
    return v.has_value();
}

double defaultNumber(const OptionDecl& decl)
{
    double v = 0;
    return parseNumber(decl, decl.defaultValue, v) ? v : std::numeric_limits<double>::quiet_NaN();
}

} // namespace hetplan::fields_detail
