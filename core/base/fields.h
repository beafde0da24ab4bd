#pragma once
// A struct's fields declared once. One row per member gives its JSON key, type, default and range or
// choices (the OptionDecl planners and profile formats use), the label and one-line help the GUI shows, the
// unit, and the command-line flag. Readers, writers, validation, CLI flags, editors and error labels are
// loops over the table, so adding a field is one row (and the member) rather than six hand-kept lists.
#include "errors.h"
#include "numbers.h"
#include "options.h"
#include "quote.h"

#include <algorithm>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace hetplan {

// How an editor shows a value: `scale` × the stored value followed by `unit` (memory margin: a fraction
// stored, a percentage shown); `valueLabels` name an integer's values from its minimum up, or a choice's
// values in order, for a drop-down list.
struct FieldLook {
    std::string unit;
    double scale = 1;
    std::vector<std::string> valueLabels;
};

template <class T>
struct FieldSpec {
    OptionDecl decl;          // key = the JSON key; type, default, range or choices, label, help
    std::string unit;         // of the stored value ("B/param"); empty for counts, switches and choices
    std::string flag;         // command-line flag without "--"; empty: none. A boolean's flag sets the
                              // opposite of its default ("no-tf32").
    std::string defaultNote;  // what the CLI help names as the default when not the declared value
    bool required = false;    // readers refuse a document without it
    bool writeDefault = true; // writers write it even when it holds its default
    FieldLook look;
    // Numbers and booleans go through double (every int and bool is exact in it); choices through text.
    std::function<double(const T&)> number;
    std::function<void(T&, double)> setNumber;
    std::function<std::string(const T&)> text;
    std::function<bool(T&, const std::string&)> setText; // false: not one of the choices

    FieldSpec& cli(std::string f) { flag = std::move(f); return *this; }
    FieldSpec& in(std::string u) { unit = std::move(u); return *this; }
    FieldSpec& shown(FieldLook l) { look = std::move(l); return *this; }
    FieldSpec& mandatory() { required = true; return *this; }
    FieldSpec& omittedAtDefault() { writeDefault = false; return *this; }
    FieldSpec& defaultIs(std::string note) { defaultNote = std::move(note); return *this; }
};

// A numeric or boolean member: `decl` must be an integer, real or boolean declaration.
template <class T, class M>
FieldSpec<T> memberField(M T::*member, OptionDecl decl)
{
    FieldSpec<T> f;
    f.decl = std::move(decl);
    f.number = [member](const T& o) { return double(o.*member); };
    f.setNumber = [member](T& o, double v) { o.*member = static_cast<M>(v); };
    return f;
}

// An enum member written as text: `decl` is a choice declaration whose choices are what `name` writes.
template <class T, class E>
FieldSpec<T> enumField(E T::*member, OptionDecl decl, std::string (*name)(E), bool (*parse)(const std::string&, E&))
{
    FieldSpec<T> f;
    f.decl = std::move(decl);
    f.text = [member, name](const T& o) { return name(o.*member); };
    f.setText = [member, parse](T& o, const std::string& s) { return parse(s, o.*member); };
    return f;
}

namespace fields_detail {
// The range problem of `v` for `decl` ("must be between 1 and 10000000"), empty when it is within range.
std::string rangeProblem(const OptionDecl& decl, double v);
// "expected fp16, bf16 or fp32, got 'x'"
std::string choiceProblem(const OptionDecl& decl, const std::string& got);
// Strict whole-string parses (as OptionDecl::check): false on anything else.
bool parseNumber(const OptionDecl& decl, const std::string& s, double& out);
// The declared default as a number (integer, real and boolean declarations).
double defaultNumber(const OptionDecl& decl);
} // namespace fields_detail

// The row whose JSON key or flag is `name`; null when none is.
template <class T>
const FieldSpec<T>* findField(const std::vector<FieldSpec<T>>& fields, std::string_view name)
{
    for (const FieldSpec<T>& f : fields)
        if (f.decl.key == name || (!f.flag.empty() && f.flag == name))
            return &f;
    return nullptr;
}

// The member's value as text ("32", "0.1", "true", "bf16").
template <class T>
std::string fieldText(const FieldSpec<T>& f, const T& o)
{
    switch (f.decl.type) {
    case OptionType::Choice: return f.text(o);
    case OptionType::Bool: return f.number(o) != 0 ? "true" : "false";
    case OptionType::Int:
    case OptionType::Real: break;
    }
    return numberText(f.number(o));
}

template <class T>
bool holdsDefault(const FieldSpec<T>& f, const T& o)
{
    return f.decl.type == OptionType::Choice ? f.text(o) == f.decl.defaultValue
                                             : f.number(o) == fields_detail::defaultNumber(f.decl);
}

// Checks one member against its declaration; InputError(file, prefix + key, reason).
template <class T>
void checkField(const FieldSpec<T>& f, const T& o, const std::string& file, const std::string& prefix = {})
{
    std::string why;
    if (f.decl.type == OptionType::Choice) {
        const std::string v = f.text(o);
        if (std::find(f.decl.choices.begin(), f.decl.choices.end(), v) == f.decl.choices.end())
            why = fields_detail::choiceProblem(f.decl, v);
    } else if (f.decl.type != OptionType::Bool) {
        why = fields_detail::rangeProblem(f.decl, f.number(o));
    }
    if (!why.empty())
        throw InputError(file, prefix + f.decl.key, why);
}

template <class T>
void checkFields(const T& o, const std::vector<FieldSpec<T>>& fields, const std::string& file,
                 const std::string& prefix = {})
{
    for (const FieldSpec<T>& f : fields)
        checkField(f, o, file, prefix);
}

// Sets the member from text a user typed (a flag's value, an editor's text) and checks it; InputError(source,
// key, reason) when the text is not of the field's type or out of its range.
template <class T>
void setFieldText(const FieldSpec<T>& f, T& o, const std::string& text, const std::string& source)
{
    if (f.decl.type == OptionType::Choice) {
        if (!f.setText(o, text))
            throw InputError(source, f.decl.key, fields_detail::choiceProblem(f.decl, text));
        return;
    }
    double v = 0;
    if (!fields_detail::parseNumber(f.decl, text, v))
        throw InputError(source, f.decl.key, "expected " + f.decl.typeName() + ", got " + quotedInput(text));
    if (f.decl.type != OptionType::Bool)
        if (const std::string why = fields_detail::rangeProblem(f.decl, v); !why.empty())
            throw InputError(source, f.decl.key, why);
    f.setNumber(o, v);
}

} // namespace hetplan
