#include "numbers.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>

namespace hetplan {

namespace {

bool isDigit(char c) { return c >= '0' && c <= '9'; }

size_t digitsFrom(std::string_view s, size_t i)
{
    size_t j = i;
    while (j < s.size() && isDigit(s[j]))
        ++j;
    return j - i;
}

size_t signLength(std::string_view s) { return !s.empty() && (s[0] == '+' || s[0] == '-') ? 1 : 0; }

} // namespace

size_t decimalPrefixLength(std::string_view s)
{
    size_t i = signLength(s);
    size_t mantissa = digitsFrom(s, i);
    i += mantissa;
    if (i < s.size() && s[i] == '.') {
        const size_t fraction = digitsFrom(s, i + 1);
        mantissa += fraction;
        i += 1 + fraction;
    }
    if (mantissa == 0)
        return 0;
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        size_t j = i + 1;
        if (j < s.size() && (s[j] == '+' || s[j] == '-'))
            ++j;
        if (const size_t exponent = digitsFrom(s, j); exponent > 0)
            i = j + exponent;
    }
    return i;
}

std::optional<double> decimalNumber(std::string_view s)
{
    if (s.empty() || decimalPrefixLength(s) != s.size())
        return std::nullopt;
    if (s[0] == '+') // from_chars takes '-' but not '+'
        s.remove_prefix(1);
    double v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v))
        return std::nullopt;
    if (isSubnormal(v))
        return std::nullopt;
    return v;
}

std::string decimalProblem(std::string_view s)
{
    const std::string got = ", got '" + std::string(s) + "'";
    if (s.empty() || decimalPrefixLength(s) != s.size())
        return "not a decimal number (no hex, inf, nan or spaces around it)" + got;
    double v = 0;
    const std::string_view digits = s[0] == '+' ? s.substr(1) : s;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (ec == std::errc() && isSubnormal(v))
        return kSubnormalReason + got;
    return "out of the range of a number (beyond 1.8e+308 or too close to 0)" + got;
}

std::optional<long long> wholeNumber(std::string_view s)
{
    const size_t sign = signLength(s);
    if (s.size() == sign || digitsFrom(s, sign) != s.size() - sign)
        return std::nullopt;
    if (s[0] == '+')
        s.remove_prefix(1);
    long long v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size())
        return std::nullopt;
    return v;
}

bool isSubnormal(double v) { return v != 0 && std::abs(v) < std::numeric_limits<double>::min(); }

std::string messageNumber(double v)
{
    if (std::isfinite(v) && v == std::floor(v) && std::abs(v) < 1e15)
        return std::to_string((long long)v);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

std::string numberText(double v)
{
    if (std::isfinite(v) && v == std::floor(v) && std::abs(v) < 1e15)
        return std::to_string((long long)v); // 10000000, not 1e+07
    char buf[32];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    return ec == std::errc() ? std::string(buf, end) : std::string("nan");
}

} // namespace hetplan
