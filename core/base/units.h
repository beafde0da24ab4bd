#pragma once
// Quantities in files: a bare JSON number is in SI base units (bytes, seconds, bytes/s, FLOP/s); a string
// carries its unit explicitly ("100 Gbps", "12.5 GB/s", "16 GiB", "5 us", "312 TFLOPS"). Units are parsed
// exactly; an unknown or mismatched unit is an error, never a guess.
#include <string>

class QJsonValue;

namespace hetplan {

enum class Dimension { Bandwidth, Bytes, Seconds, FlopRate };

// Parses "<number> <unit>" for the given dimension; throws InputError(file, field, reason).
double parseQuantity(const std::string& text, Dimension dim, const std::string& file, const std::string& field);
double parseQuantity(const QJsonValue& value, Dimension dim, const std::string& file, const std::string& field);

} // namespace hetplan
