#pragma once
// JSON Schema validation with valijson. hetplan's schemas declare draft 7, the draft valijson checks, so a
// schema means to any other draft-7 validator what it means here; a schema declaring another draft is refused
// (located at "#/$schema") rather than checked by rules it was not written for.
#include <QJsonObject>
#include <QJsonValue>

#include <string>
#include <vector>

namespace hetplan {

struct SchemaViolation {
    // Location in the instance, JSON pointer-like ("/pipelines/0/stages/1/gpus", "/" for the root); a
    // problem with the schema itself is located in the schema instead ("#/definitions/stage").
    std::string path;
    std::string message;
};

// Validates `instance` against `schema` (the root, whose definitions resolve the $refs). Returns every violation
// found (empty = valid).
std::vector<SchemaViolation> validateJson(const QJsonValue& instance, const QJsonObject& schema);

// The bundled plan schema (Qt resource :/schema/plan.schema.json). Throws InputError if it cannot be loaded.
const QJsonObject& planSchema();

// validateJson(plan, planSchema()), with the schema compiled once.
std::vector<SchemaViolation> validatePlanJson(const QJsonObject& plan);

// "path: message" lines joined by newlines (for error messages and test output); each violation is also
// the field and reason of an InputError(file, path, message).
std::string describe(const std::vector<SchemaViolation>& violations);

} // namespace hetplan
