#include "schema_validate.h"

#include "core/base/errors.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>

#include <valijson/adapters/qtjson_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <mutex>
#include <regex>

namespace hetplan {

namespace {

constexpr const char* kDraft7 = "http://json-schema.org/draft-07/schema#";

// ---- Compiling and running -----------------------------------------------------------------------------

struct CompiledSchema {
    valijson::Schema schema;
    std::vector<SchemaViolation> problems; // non-empty: the schema cannot be used
};

std::unique_ptr<CompiledSchema> compile(const QJsonObject& schema)
{
    auto c = std::make_unique<CompiledSchema>();
    // valijson applies draft 7's rules; a schema written for another draft could mean checks it does not make
    // (a keyword beside $ref, prefixItems), so only draft-07 schemas are taken.
    if (schema.value("$schema").toString() != kDraft7) {
        c->problems.push_back({"#/$schema", "expected \"" + std::string(kDraft7) + "\" (this validator checks draft 7)"});
        return c;
    }
    try {
        valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
        parser.populateSchema(valijson::adapters::QtJsonAdapter(schema), c->schema);
    } catch (const std::exception& e) { // malformed keyword value, unresolvable $ref
        c->problems.push_back({"#", std::string("invalid schema: ") + e.what()});
    }
    return c;
}

std::string typeName(const QJsonValue& v)
{
    switch (v.type()) {
    case QJsonValue::Null: return "null";
    case QJsonValue::Bool: return "boolean";
    case QJsonValue::Double: return "number";
    case QJsonValue::String: return "string";
    case QJsonValue::Array: return "array";
    case QJsonValue::Object: return "object";
    default: return "undefined";
    }
}

std::string shortJson(const QJsonValue& v)
{
    QJsonArray wrap{v};
    std::string s = QJsonDocument(wrap).toJson(QJsonDocument::Compact).toStdString();
    s = s.substr(1, s.size() - 2);
    return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

// valijson prints bounds with std::to_string ("3.000000"); "3" reads better.
std::string shortNumber(const std::string& text)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.15g", std::stod(text));
    return buf;
}

std::string items(const std::string& count) { return count + (count == "1" ? " item" : " items"); }

// valijson's context is {"<root>", "[key]", "[0]", ...}.
using Context = std::vector<std::string>;

std::string pathOf(const Context& context)
{
    std::string p;
    for (size_t i = 1; i < context.size(); ++i)
        p += "/" + context[i].substr(1, context[i].size() - 2);
    return p.empty() ? "/" : p;
}

QJsonValue valueAt(const QJsonValue& root, const Context& context)
{
    QJsonValue v = root;
    for (size_t i = 1; i < context.size(); ++i) {
        const QString key = QString::fromStdString(context[i].substr(1, context[i].size() - 2));
        v = v.isArray() ? v.toArray().at(key.toInt()) : v.toObject().value(key);
    }
    return v;
}

// One error in hetplan's words. `wrapper`: valijson's note that a child failed ("Failed to validate item
// #0 ..."), located at that child; it says nothing when an error at the child or a note below it names
// the cause (it is kept for a child that a false schema refuses, as nothing else mentions it).
struct Finding {
    Context context;
    std::string message;
    bool wrapper = false;
};

Finding rephrase(const valijson::ValidationResults::Error& e, const QJsonValue& instance)
{
    const std::string& d = e.description;
    const std::string got = shortJson(valueAt(instance, e.context));
    std::smatch m;
    auto is = [&](const char* pattern) { return std::regex_match(d, m, std::regex(pattern)); };
    Context child = e.context;
    if (is("Failed to validate against schema associated with property name '(.*)'\\.") ||
        is("Failed to validate item #(\\d+) in array\\.")) {
        child.push_back("[" + m.str(1) + "]");
        return {child, "no value is allowed here", true};
    }
    if (is("Failed to validate item #\\d+ against corresponding item schema\\.") ||
        is("Failed to validate against additional properties schema") ||
        is("Failed to validate against schema associated with pattern '.*'\\."))
        return {child, "no value is allowed here", true};
    if (is("Missing required property '(.*)'\\."))
        return {child, "missing required property '" + m.str(1) + "'"};
    if (is("Object contains a property that could not be validated .*: '(.*)'\\."))
        return {child, "unexpected property '" + m.str(1) + "'"};
    if (is("Value type not permitted by 'type' constraint\\."))
        return {child, "wrong type: got " + typeName(valueAt(instance, e.context)) + " " + got};
    if (is("Failed to match against any enum values\\."))
        return {child, got + " is not one of the allowed values"};
    if (is("Failed to match expected value set by 'const' constraint\\."))
        return {child, got + " is not the required value"};
    if (is("Expected number greater than or equal to (.*)"))
        return {child, got + " is below the minimum " + shortNumber(m.str(1))};
    if (is("Expected number greater than (.*)"))
        return {child, got + " must be greater than " + shortNumber(m.str(1))};
    if (is("Expected number less than or equal to (.*)"))
        return {child, got + " is above the maximum " + shortNumber(m.str(1))};
    if (is("Expected number less than (.*)"))
        return {child, got + " must be less than " + shortNumber(m.str(1))};
    if (is("Failed to match regex specified by 'pattern' constraint\\."))
        return {child, got + " does not match the pattern"};
    if (is("Array should contain no fewer than (\\d+) elements\\."))
        return {child, "needs at least " + items(m.str(1))};
    if (is("Array should contain no more than (\\d+) elements\\."))
        return {child, "allows at most " + items(m.str(1))};
    return {child, d}; // anything else in valijson's own words
}

bool within(const Context& inner, const Context& outer)
{
    return inner.size() >= outer.size() && std::equal(outer.begin(), outer.end(), inner.begin());
}

// Note: valijson's Qt adapter takes "integer" to mean a whole number within int range (QJsonValue::toInt),
// so a count above 2^31 would be refused; hetplan's integer fields are all far smaller.
std::vector<SchemaViolation> run(const CompiledSchema& c, const QJsonValue& instance)
{
    if (!c.problems.empty())
        return c.problems;
    valijson::Validator validator;
    valijson::ValidationResults results;
    const bool valid = validator.validate(c.schema, valijson::adapters::QtJsonAdapter(instance), &results);
    std::vector<Finding> findings;
    for (const auto& e : results)
        findings.push_back(rephrase(e, instance));
    std::vector<SchemaViolation> out;
    for (const Finding& f : findings) {
        const bool explained =
            f.wrapper && std::any_of(findings.begin(), findings.end(), [&](const Finding& g) {
                return within(g.context, f.context) && (g.context.size() > f.context.size() || !g.wrapper);
            });
        const bool repeated = std::any_of(out.begin(), out.end(), [&](const SchemaViolation& v) {
            return v.path == pathOf(f.context) && v.message == f.message;
        });
        if (!explained && !repeated)
            out.push_back({pathOf(f.context), f.message});
    }
    if (!valid && out.empty()) // e.g. a false schema inside allOf, which valijson fails without a word
        out.push_back({"/", "does not match the schema"});
    return out;
}

} // namespace

std::vector<SchemaViolation> validateJson(const QJsonValue& instance, const QJsonObject& schema)
{
    return run(*compile(schema), instance);
}

const QJsonObject& planSchema()
{
    static QJsonObject schema;
    static std::string error;
    static std::once_flag once;
    std::call_once(once, [] {
        QFile f(":/schema/plan.schema.json");
        if (!f.open(QIODevice::ReadOnly)) {
            error = "resource not found";
            return;
        }
        QJsonParseError err;
        const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &err);
        if (err.error != QJsonParseError::NoError || !doc.isObject())
            error = "invalid JSON: " + err.errorString().toStdString();
        else
            schema = doc.object();
    });
    if (!error.empty())
        throw InputError(":/schema/plan.schema.json", "", error);
    return schema;
}

std::vector<SchemaViolation> validatePlanJson(const QJsonObject& plan)
{
    static const std::unique_ptr<CompiledSchema> compiled = compile(planSchema());
    return run(*compiled, plan);
}

std::string describe(const std::vector<SchemaViolation>& violations)
{
    std::string out;
    for (const SchemaViolation& v : violations)
        out += (out.empty() ? "" : "\n") + v.path + ": " + v.message;
    return out;
}

} // namespace hetplan
