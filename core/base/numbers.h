#pragma once
// The one rule for a number written as text: a command-line value, a planner or import option, a CSV
// cell, the figure before a unit ("12.5 GB/s"). Decimal only, with an optional sign, fraction and exponent
// ("32", "-0.5", "+2", ".5", "2.5e-3", "1E6"); no hex ("0x10"), no "inf" or "nan", no space before or after
// and nothing trailing; the value must be finite and not subnormal (below 2.2e-308 nothing is physical, and
// such a value loses its precision). Every reader of numbers from text goes through these functions, so
// " 5", "5 " and "0x10" are refused the same way everywhere.
#include <optional>
#include <string>
#include <string_view>

namespace hetplan {

// The number `text` spells, or nothing when it breaks the rule.
std::optional<double> decimalNumber(std::string_view text);
// Why decimalNumber refused `text`, for an error message ("expected a decimal number …, got '0x10'").
std::string decimalProblem(std::string_view text);
// A whole number: an optional sign and digits only ("32", "-1", "+7"), within long long; nothing else.
std::optional<long long> wholeNumber(std::string_view text);
// How many leading characters of `text` form a decimal number by the rule's grammar (0: none), for a figure
// followed by its unit. An 'e' not followed by digits is left out (it starts the unit).
size_t decimalPrefixLength(std::string_view text);

// A nonzero value closer to 0 than the smallest normal double (2.2e-308): no measurement, and it has lost
// its precision.
bool isSubnormal(double v);
inline const std::string kSubnormalReason = "a subnormal number (too close to 0 to be a measurement)";

// Compact text of `v` for messages and help: whole numbers below 1e15 in full ("10000000"), anything else
// in the shortest form that reads back as `v` ("0.1", "1e+308", "5e-324", "inf").
std::string numberText(double v);
// `v` for a message about an input value: whole numbers below 1e15 in full, else six significant digits
// ("1e+20" for 99999999999999983616, "1e-303", "0.333333"), never hundreds of digits.
std::string messageNumber(double v);

} // namespace hetplan
