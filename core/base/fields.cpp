#include "fields.h"

#include <charconv>
#include <cmath>
#include <limits>

namespace hetplan::fields_detail {

std::string numberText(double v)
{
    if (v == std::floor(v) && std::abs(v) < 1e15)
        return std::to_string((long long)v); // 10000000, not 1e+07
    char buf[32];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    return ec == std::errc() ? std::string(buf, end) : std::string("nan");
}

std::string rangeProblem(const OptionDecl& decl, double v)
{
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
    const char* end = s.data() + s.size();
    if (decl.type == OptionType::Int) {
        long long v = 0;
        auto [ptr, ec] = std::from_chars(s.data(), end, v);
        out = double(v);
        return ec == std::errc() && ptr == end && !s.empty();
    }
    auto [ptr, ec] = std::from_chars(s.data(), end, out);
    return ec == std::errc() && ptr == end && !s.empty() && std::isfinite(out);
}

double defaultNumber(const OptionDecl& decl)
{
    double v = 0;
    return parseNumber(decl, decl.defaultValue, v) ? v : std::numeric_limits<double>::quiet_NaN();
}

} // namespace hetplan::fields_detail
