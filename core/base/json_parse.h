#pragma once
// Parsing JSON text from outside (files, project documents, imported profiles). QJsonDocument keeps the
// last of two equal keys without a word, so {"gbs": 8, "gbs": 64} would silently mean 64: a repeated key is
// refused here, naming its path, like every other malformed input.
#include <QJsonObject>

#include <optional>
#include <string>
#include <string_view>

namespace hetplan {

// The field path ("nodes[2].name") of the first key that repeats within one object of `json`, which must
// be valid JSON; nothing when no key repeats. Keys are compared after their escapes are decoded
// ("a" and "\u0061" are the same key).
std::optional<std::string> duplicateKeyPath(std::string_view json);

// The top-level object of `json`. Throws InputError(file, "json", reason) for invalid JSON or a top level
// that is not an object, and InputError(file, <path>, "duplicate key ...") for a repeated key.
QJsonObject parseJsonObject(std::string_view json, const std::string& file);

} // namespace hetplan
