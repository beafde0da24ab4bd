#include "json_parse.h"

#include "errors.h"
#include "quote.h"

#include <QJsonDocument>
#include <QJsonParseError>

#include <set>
#include <vector>

namespace hetplan {

namespace {

void appendUtf8(std::string& out, unsigned cp)
{
    if (cp < 0x80) {
        out += char(cp);
    } else if (cp < 0x800) {
        out += char(0xc0 | (cp >> 6));
        out += char(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        out += char(0xe0 | (cp >> 12));
        out += char(0x80 | ((cp >> 6) & 0x3f));
        out += char(0x80 | (cp & 0x3f));
    } else {
        out += char(0xf0 | (cp >> 18));
        out += char(0x80 | ((cp >> 12) & 0x3f));
        out += char(0x80 | ((cp >> 6) & 0x3f));
        out += char(0x80 | (cp & 0x3f));
    }
}

unsigned hex4(std::string_view s, size_t at)
{
    unsigned v = 0;
    for (size_t k = at; k < at + 4 && k < s.size(); ++k) {
        const char c = s[k];
        v = v * 16 + unsigned(c >= '0' && c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
    }
    return v;
}

// The decoded string starting at the quote s[i]; i ends after the closing quote.
std::string readString(std::string_view s, size_t& i)
{
    std::string out;
    for (++i; i < s.size() && s[i] != '"'; ++i) {
        if (s[i] != '\\') {
            out += s[i];
            continue;
        }
        const char e = i + 1 < s.size() ? s[++i] : '\\';
        switch (e) {
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
            unsigned cp = hex4(s, i + 1);
            i += 4;
            // A high surrogate followed by \uDC00-\uDFFF is one code point.
            if (cp >= 0xd800 && cp < 0xdc00 && i + 6 < s.size() && s[i + 1] == '\\' && s[i + 2] == 'u') {
                const unsigned low = hex4(s, i + 3);
                if (low >= 0xdc00 && low < 0xe000) {
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
                    i += 6;
                }
            }
            appendUtf8(out, cp);
            break;
        }
        default: out += e; // \" \\ \/
        }
    }
    ++i;
    return out;
}

struct Frame {
    bool object = false;
    bool expectKey = false;
    std::set<std::string> keys;
    std::string key; // the member being read (objects)
    int index = 0;   // the element being read (arrays)
};

std::string pathOf(const std::vector<Frame>& frames)
{
    std::string path;
    for (const Frame& f : frames) {
        if (!f.object) {
            path += "[" + std::to_string(f.index) + "]";
            continue;
        }
        const std::string k = fieldKey(f.key);
        path += path.empty() || k.rfind("[\"", 0) == 0 ? k : "." + k;
    }
    return path;
}

} // namespace

std::optional<std::string> duplicateKeyPath(std::string_view s)
{
    std::vector<Frame> frames;
    for (size_t i = 0; i < s.size();) {
        const char c = s[i];
        switch (c) {
        case '{':
        case '[':
            frames.push_back(Frame{c == '{', c == '{', {}, {}, 0});
            ++i;
            break;
        case '}':
        case ']':
            if (!frames.empty())
                frames.pop_back();
            ++i;
            break;
        case ',':
            if (!frames.empty()) {
                frames.back().expectKey = frames.back().object;
                ++frames.back().index;
            }
            ++i;
            break;
        case '"': {
            std::string text = readString(s, i);
            if (!frames.empty() && frames.back().expectKey) {
                Frame& f = frames.back();
                f.expectKey = false;
                f.key = std::move(text);
                if (!f.keys.insert(f.key).second)
                    return pathOf(frames);
            }
            break;
        }
        default: ++i; // ':', white space, numbers, true/false/null
        }
    }
    return std::nullopt;
}

QJsonObject parseJsonObject(std::string_view json, const std::string& file)
{
    QJsonParseError err;
    const QJsonDocument doc =
        QJsonDocument::fromJson(QByteArray::fromRawData(json.data(), qsizetype(json.size())), &err);
    if (err.error != QJsonParseError::NoError)
        throw InputError(file, "json",
                         "invalid JSON at offset " + std::to_string(err.offset) + ": " +
                             err.errorString().toStdString());
    if (!doc.isObject())
        throw InputError(file, "json", "top level must be a JSON object");
    if (const auto path = duplicateKeyPath(json))
        throw InputError(file, *path,
                         "duplicate key: a JSON object must not repeat a key (only one of the values would be read)");
    return doc.object();
}

} // namespace hetplan
