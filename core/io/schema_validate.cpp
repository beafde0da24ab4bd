#include "schema_validate.h"

#include "core/base/errors.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>

#include <cmath>
#include <mutex>
#include <set>

namespace hetplan {

namespace {

const std::set<QString>& annotationKeys()
{
    static const std::set<QString> k{"$schema", "$id", "title", "description", "$comment", "default", "examples",
                                     "$defs"};
    return k;
}

const std::set<QString>& checkedKeys()
{
    static const std::set<QString> k{"type", "required", "properties", "additionalProperties", "items", "enum",
                                     "const", "minimum", "maximum", "exclusiveMinimum", "minItems", "maxItems",
                                     "$ref"};
    return k;
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

bool hasType(const QJsonValue& v, const QString& t)
{
    if (t == "integer")
        return v.isDouble() && std::isfinite(v.toDouble()) && std::floor(v.toDouble()) == v.toDouble();
    if (t == "number")
        return v.isDouble();
    return QString::fromStdString(typeName(v)) == t;
}

std::string shortJson(const QJsonValue& v)
{
    QJsonArray wrap{v};
    std::string s = QJsonDocument(wrap).toJson(QJsonDocument::Compact).toStdString();
    s = s.substr(1, s.size() - 2);
    return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

class Validator {
public:
    explicit Validator(const QJsonObject& root) : root_(root) {}

    void check(const QJsonValue& v, const QJsonValue& schemaValue, const std::string& path, int depth = 0)
    {
        if (depth > 64) {
            fail(path, "schema nesting too deep (recursive $ref?)");
            return;
        }
        if (schemaValue.isBool()) {          // true accepts anything, false nothing
            if (!schemaValue.toBool())
                fail(path, "no value is allowed here");
            return;
        }
        if (!schemaValue.isObject()) {
            fail(path, "invalid schema: expected an object or boolean");
            return;
        }
        const QJsonObject s = schemaValue.toObject();
        for (auto it = s.begin(); it != s.end(); ++it)
            if (!checkedKeys().count(it.key()) && !annotationKeys().count(it.key()))
                fail(path, "schema keyword '" + it.key().toStdString() + "' is not supported by this validator");

        if (s.contains("$ref")) {
            const QString ref = s.value("$ref").toString();
            const QString prefix = "#/$defs/";
            if (!ref.startsWith(prefix)) {
                fail(path, "unsupported $ref '" + ref.toStdString() + "'");
            } else {
                const QJsonValue target = root_.value("$defs").toObject().value(ref.mid(prefix.size()));
                if (target.isUndefined())
                    fail(path, "unresolved $ref '" + ref.toStdString() + "'");
                else
                    check(v, target, path, depth + 1);
            }
        }
        if (s.contains("type")) {
            const QJsonValue t = s.value("type");
            bool ok = false;
            std::string want;
            if (t.isArray()) {
                for (const QJsonValue& e : t.toArray()) {
                    ok |= hasType(v, e.toString());
                    want += (want.empty() ? "" : " or ") + e.toString().toStdString();
                }
            } else {
                ok = hasType(v, t.toString());
                want = t.toString().toStdString();
            }
            if (!ok) {
                fail(path, "expected " + want + ", got " + typeName(v));
                return;   // the remaining keywords would only repeat the type mismatch
            }
        }
        if (s.contains("const") && s.value("const") != v)
            fail(path, "expected " + shortJson(s.value("const")) + ", got " + shortJson(v));
        if (s.contains("enum")) {
            bool found = false;
            for (const QJsonValue& e : s.value("enum").toArray())
                found |= e == v;
            if (!found)
                fail(path, shortJson(v) + " is not one of " + shortJson(s.value("enum")));
        }
        if (v.isDouble()) {
            const double x = v.toDouble();
            if (s.contains("minimum") && x < s.value("minimum").toDouble())
                fail(path, shortJson(v) + " is below the minimum " + shortJson(s.value("minimum")));
            if (s.contains("maximum") && x > s.value("maximum").toDouble())
                fail(path, shortJson(v) + " is above the maximum " + shortJson(s.value("maximum")));
            if (s.contains("exclusiveMinimum") && x <= s.value("exclusiveMinimum").toDouble())
                fail(path, shortJson(v) + " must be greater than " + shortJson(s.value("exclusiveMinimum")));
        }
        if (v.isArray()) {
            const QJsonArray a = v.toArray();
            if (s.contains("minItems") && a.size() < s.value("minItems").toInt())
                fail(path, "needs at least " + std::to_string(s.value("minItems").toInt()) + " items");
            if (s.contains("maxItems") && a.size() > s.value("maxItems").toInt())
                fail(path, "allows at most " + std::to_string(s.value("maxItems").toInt()) + " items");
            if (s.contains("items"))
                for (int i = 0; i < a.size(); ++i)
                    check(a.at(i), s.value("items"), path + "/" + std::to_string(i), depth + 1);
        }
        if (v.isObject()) {
            const QJsonObject o = v.toObject();
            for (const QJsonValue& r : s.value("required").toArray())
                if (!o.contains(r.toString()))
                    fail(path, "missing required property '" + r.toString().toStdString() + "'");
            const QJsonObject props = s.value("properties").toObject();
            for (auto it = o.begin(); it != o.end(); ++it) {
                const std::string child = path + "/" + it.key().toStdString();
                if (props.contains(it.key()))
                    check(it.value(), props.value(it.key()), child, depth + 1);
                else if (s.contains("additionalProperties")) {
                    const QJsonValue ap = s.value("additionalProperties");
                    if (ap.isBool() && !ap.toBool())
                        fail(path, "unexpected property '" + it.key().toStdString() + "'");
                    else
                        check(it.value(), ap, child, depth + 1);
                }
            }
        }
    }

    std::vector<SchemaViolation> violations;

private:
    void fail(const std::string& path, const std::string& message)
    {
        violations.push_back({path.empty() ? "/" : path, message});
    }
    const QJsonObject& root_;
};

} // namespace

std::vector<SchemaViolation> validateJson(const QJsonValue& instance, const QJsonObject& schema)
{
    Validator v(schema);
    v.check(instance, schema, "");
    return std::move(v.violations);
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

std::vector<SchemaViolation> validatePlanJson(const QJsonObject& plan) { return validateJson(plan, planSchema()); }

std::string describe(const std::vector<SchemaViolation>& violations)
{
    std::string out;
    for (const SchemaViolation& v : violations)
        out += (out.empty() ? "" : "\n") + v.path + ": " + v.message;
    return out;
}

} // namespace hetplan
