#include "json_reader.h"

#include "core/base/errors.h"
#include "core/base/numbers.h"

#include <cmath>
#include <set>

namespace hetplan {

void JsonReader::fail(const std::string& key, const std::string& reason) const
{
    throw InputError(file_, field(key), reason);
}

std::string JsonReader::string(const std::string& key) const
{
    QJsonValue v = value(key);
    if (v.isUndefined())
        fail(key, "missing");
    if (!v.isString())
        fail(key, "expected a string");
    return v.toString().toStdString();
}

std::string JsonReader::string(const std::string& key, const std::string& def) const
{
    return has(key) ? string(key) : def;
}

double JsonReader::number(const std::string& key) const
{
    QJsonValue v = value(key);
    if (v.isUndefined())
        fail(key, "missing");
    if (!v.isDouble())
        fail(key, "expected a number");
    double d = v.toDouble();
    if (!std::isfinite(d))
        fail(key, "not a finite number");
    if (isSubnormal(d))
        fail(key, kSubnormalReason);
    return d;
}

double JsonReader::number(const std::string& key, double def) const { return has(key) ? number(key) : def; }

int JsonReader::integer(const std::string& key) const
{
    double d = number(key);
    if (d != std::floor(d) || std::fabs(d) > 2e9)
        fail(key, "expected an integer");
    return int(d);
}

int JsonReader::integer(const std::string& key, int def) const { return has(key) ? integer(key) : def; }

bool JsonReader::boolean(const std::string& key, bool def) const
{
    if (!has(key))
        return def;
    QJsonValue v = value(key);
    if (!v.isBool())
        fail(key, "expected true or false");
    return v.toBool();
}

double JsonReader::quantity(const std::string& key, Dimension dim) const
{
    if (!has(key))
        fail(key, "missing");
    return parseQuantity(value(key), dim, file_, field(key));
}

double JsonReader::quantity(const std::string& key, Dimension dim, double def) const
{
    return has(key) ? quantity(key, dim) : def;
}

JsonReader JsonReader::object(const std::string& key) const
{
    QJsonValue v = value(key);
    if (v.isUndefined())
        fail(key, "missing");
    if (!v.isObject())
        fail(key, "expected an object");
    return JsonReader(v.toObject(), file_, field(key));
}

QJsonArray JsonReader::array(const std::string& key) const
{
    QJsonValue v = value(key);
    if (v.isUndefined())
        fail(key, "missing");
    if (!v.isArray())
        fail(key, "expected an array");
    return v.toArray();
}

JsonReader JsonReader::element(const QJsonArray& a, const std::string& key, int i) const
{
    const std::string f = field(key) + "[" + std::to_string(i) + "]";
    if (!a.at(i).isObject())
        throw InputError(file_, f, "expected an object");
    return JsonReader(a.at(i).toObject(), file_, f);
}

void JsonReader::allowOnly(std::initializer_list<const char*> keys) const
{
    allowOnly(std::vector<std::string>(keys.begin(), keys.end()));
}

void JsonReader::allowOnly(const std::vector<std::string>& keys) const
{
    const std::set<std::string> ok(keys.begin(), keys.end());
    for (auto it = o_.begin(); it != o_.end(); ++it)
        if (!ok.count(it.key().toStdString()))
            fail(it.key().toStdString(), "unknown field");
}

} // namespace hetplan
