#pragma once
// A small JSON Schema (draft 2020-12) validator for the subset hetplan's own schemas use:
// type, required, properties, additionalProperties (bool or schema), items, enum, const, minimum, maximum,
// exclusiveMinimum, minItems, maxItems and $ref to "#/$defs/<name>". Annotations ($schema, $id, title,
// description, $comment, default, examples) are ignored. Any other keyword is reported as unsupported so a
// schema never silently claims a check this validator does not make.
#include <QJsonObject>
#include <QJsonValue>

#include <string>
#include <vector>

namespace hetplan {

struct SchemaViolation {
    std::string path;      // JSON pointer-like location in the instance, e.g. "/pipelines/0/stages/1/gpus"
    std::string message;
};

// Validates `instance` against `schema` (the root, whose $defs resolve the $refs). Returns every violation
// found (empty = valid).
std::vector<SchemaViolation> validateJson(const QJsonValue& instance, const QJsonObject& schema);

// The bundled plan schema (Qt resource :/schema/plan.schema.json). Throws InputError if it cannot be loaded.
const QJsonObject& planSchema();

// validateJson(plan, planSchema()).
std::vector<SchemaViolation> validatePlanJson(const QJsonObject& plan);

// "path: message" lines joined by newlines (for error messages and test output).
std::string describe(const std::vector<SchemaViolation>& violations);

} // namespace hetplan
