#include "units.h"

#include "core/base/errors.h"
#include "core/base/numbers.h"

#include <QJsonValue>
#include <cctype>
#include <cmath>
#include <map>

namespace hetplan {

namespace {

const std::map<std::string, double>& table(Dimension dim)
{
    // Decimal prefixes for rates (as vendors and network specs use them), binary for GiB/MiB.
    static const std::map<std::string, double> bandwidth = {
        {"B/s", 1},        {"KB/s", 1e3},        {"MB/s", 1e6},           {"GB/s", 1e9},     {"TB/s", 1e12},
        {"KiB/s", 1024.0}, {"MiB/s", 1048576.0}, {"GiB/s", 1073741824.0}, {"bps", 1.0 / 8},  {"Kbps", 1e3 / 8},
        {"Mbps", 1e6 / 8}, {"Gbps", 1e9 / 8},    {"Tbps", 1e12 / 8},      {"Gb/s", 1e9 / 8}, {"Mb/s", 1e6 / 8}};
    static const std::map<std::string, double> bytes = {
        {"B", 1},           {"KB", 1e3},           {"MB", 1e6},
        {"GB", 1e9},        {"TB", 1e12},          {"KiB", 1024.0},
        {"MiB", 1048576.0}, {"GiB", 1073741824.0}, {"TiB", 1099511627776.0}};
    static const std::map<std::string, double> seconds = {{"s", 1},     {"ms", 1e-3}, {"us", 1e-6}, {"µs", 1e-6},
                                                          {"ns", 1e-9}, {"min", 60},  {"h", 3600}};
    static const std::map<std::string, double> flops = {{"FLOPS", 1},      {"GFLOPS", 1e9},  {"TFLOPS", 1e12},
                                                        {"PFLOPS", 1e15},  {"FLOP/s", 1},    {"GFLOP/s", 1e9},
                                                        {"TFLOP/s", 1e12}, {"PFLOP/s", 1e15}};
    switch (dim) {
    case Dimension::Bandwidth: return bandwidth;
    case Dimension::Bytes: return bytes;
    case Dimension::Seconds: return seconds;
    case Dimension::FlopRate: return flops;
    }
    return bytes;
}

const char* dimensionName(Dimension dim)
{
    switch (dim) {
    case Dimension::Bandwidth: return "bandwidth (e.g. \"100 Gbps\", \"12.5 GB/s\")";
    case Dimension::Bytes: return "size (e.g. \"16 GiB\")";
    case Dimension::Seconds: return "time (e.g. \"5 us\", \"1.2 ms\")";
    case Dimension::FlopRate: return "compute rate (e.g. \"125 TFLOPS\")";
    }
    return "";
}

} // namespace

double parseQuantity(const std::string& text, Dimension dim, const std::string& file, const std::string& field)
{
    // The figure follows the one number rule (core/base/numbers.h), spaces may separate it from the unit,
    // and nothing may come before the figure or after the unit.
    if (!text.empty() && (std::isspace(static_cast<unsigned char>(text.front())) ||
                          std::isspace(static_cast<unsigned char>(text.back()))))
        throw InputError(file, field, "space before or after '" + text + "': write the value alone");
    const size_t length = decimalPrefixLength(text);
    // "0x10" would otherwise read as 0 with the unit "x10".
    if (length == 0 || (length < text.size() && (text[length] == 'x' || text[length] == 'X')))
        throw InputError(file, field,
                         "expected a decimal number with a unit (no hex, inf or nan), got '" + text + "'");
    const std::optional<double> v = decimalNumber(std::string_view(text).substr(0, length));
    if (!v)
        throw InputError(file, field, "value out of range in '" + text + "'");
    std::string unit = text.substr(length);
    unit.erase(0, unit.find_first_not_of(' '));
    if (unit.empty())
        throw InputError(file, field,
                         "missing unit in '" + text + "': write a " + dimensionName(dim) +
                             " or a plain JSON number in SI base units");
    const auto& t = table(dim);
    auto it = t.find(unit);
    if (it == t.end())
        throw InputError(file, field, "unknown unit '" + unit + "' for a " + dimensionName(dim));
    const double r = *v * it->second;
    if (!std::isfinite(r) || isSubnormal(r))
        throw InputError(file, field, "value out of range in '" + text + "'");
    return r;
}

double parseQuantity(const QJsonValue& value, Dimension dim, const std::string& file, const std::string& field)
{
    if (value.isDouble()) {
        const double v = value.toDouble();
        if (!std::isfinite(v))
            throw InputError(file, field, "not a finite number");
        if (isSubnormal(v))
            throw InputError(file, field, kSubnormalReason);
        return v;
    }
    if (value.isString())
        return parseQuantity(value.toString().toStdString(), dim, file, field);
    if (value.isUndefined())
        throw InputError(file, field, "missing");
    throw InputError(file, field, std::string("expected a number or a string with a unit, e.g. ") + dimensionName(dim));
}

} // namespace hetplan
