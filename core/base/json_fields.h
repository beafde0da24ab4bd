#pragma once
// A field table (fields.h) read from and written to JSON. Reading checks types (and required keys); ranges
// are the struct's validate(), which names the same keys.
#include "fields.h"
#include "json_reader.h"
#include "qstrings.h"

namespace hetplan {

template <class T>
void readFields(const JsonReader& r, T& o, const std::vector<FieldSpec<T>>& fields)
{
    for (const FieldSpec<T>& f : fields) {
        const std::string& key = f.decl.key;
        if (!r.has(key) && !f.required)
            continue;
        switch (f.decl.type) {
        case OptionType::Int: f.setNumber(o, r.integer(key)); break;
        case OptionType::Real: f.setNumber(o, r.number(key)); break;
        case OptionType::Bool: f.setNumber(o, r.boolean(key, false) ? 1 : 0); break;
        case OptionType::Choice: {
            const std::string v = r.string(key);
            if (!f.setText(o, v))
                r.fail(key, fields_detail::choiceProblem(f.decl, v));
            break;
        }
        }
    }
}

template <class T>
void writeFields(QJsonObject& j, const T& o, const std::vector<FieldSpec<T>>& fields)
{
    for (const FieldSpec<T>& f : fields) {
        if (!f.writeDefault && holdsDefault(f, o))
            continue;
        const QString key = toQString(f.decl.key);
        switch (f.decl.type) {
        case OptionType::Int: j[key] = qint64(f.number(o)); break;
        case OptionType::Real: j[key] = f.number(o); break;
        case OptionType::Bool: j[key] = f.number(o) != 0; break;
        case OptionType::Choice: j[key] = toQString(f.text(o)); break;
        }
    }
}

// The JSON keys of a table, for a reader's allowOnly-style key list.
template <class T>
std::vector<std::string> fieldKeys(const std::vector<FieldSpec<T>>& fields)
{
    std::vector<std::string> keys;
    for (const FieldSpec<T>& f : fields)
        keys.push_back(f.decl.key);
    return keys;
}

} // namespace hetplan
