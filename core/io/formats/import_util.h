#pragma once
// Small helpers shared by the profile importers (internal to core/io). Every helper reports problems as
// InputError(file, field, reason) so the importers never crash on bad input.
#include <QJsonDocument>
#include <QJsonValue>
#include <string>
#include <string_view>

namespace hetplan::importutil {

// Whole file as bytes; a missing or unreadable file is InputError(path, "file", reason).
std::string readBytes(const std::string& path);

// At most the first `limit` bytes of `path` when it is a readable regular file, else "" (format detection:
// never throws, never reads a special file).
std::string readHead(const std::string& path, size_t limit = 4096);
// Whether `path` is a directory holding a file whose whole name matches `pattern` (a regular expression).
bool directoryHolds(const std::string& path, const std::string& pattern);

// Parses a JSON document (object or array, unlike readJsonFile which wants an object). Syntax errors
// are InputError(path, "json", ...) naming the line and column.
QJsonDocument readJsonDocument(const std::string& path);

// A JSON number that is finite and >= 0 (times, byte counts).
double nonNegativeNumber(const QJsonValue& v, const std::string& file, const std::string& field);

// An unsigned whole number by the one number rule (core/base/numbers.h): digits only, nothing around them.
bool parseInt(std::string_view text, long long& out);

std::string_view trim(std::string_view s);

// Formats that do not name the GPU need one from the caller.
void requireDeviceType(const std::string& deviceType, const std::string& file, const std::string& format);

// The built-in catalog's name for a GPU type given by name or alias ("V100-16" -> "V100-16GB"), as the
// native reader does; unknown names (custom devices) are kept as written.
std::string canonicalDevice(const std::string& name);

} // namespace hetplan::importutil
