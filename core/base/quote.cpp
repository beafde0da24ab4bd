#include "quote.h"

#include <algorithm>
#include <cstdio>

namespace hetplan {

namespace {
std::string hexEscape(const char* format, unsigned value)
{
    char buf[12];
    std::snprintf(buf, sizeof buf, format, value);
    return buf;
}

// Length of the valid UTF-8 sequence starting at s[i] (2-4), or 0 when it is not one. Overlong forms,
// surrogates and values above U+10FFFF are not valid.
size_t utf8SequenceLength(std::string_view s, size_t i)
{
    const auto at = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char c = at(i);
    size_t n = 0;
    unsigned cp = 0;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
        cp = c & 0x1Fu;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        cp = c & 0x0Fu;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        cp = c & 0x07u;
    } else {
        return 0;
    }
    if (i + n > s.size())
        return 0;
    for (size_t k = 1; k < n; ++k) {
        if ((at(i + k) & 0xC0u) != 0x80u)
            return 0;
        cp = (cp << 6) | (at(i + k) & 0x3Fu);
    }
    const bool overlong = (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000);
    if (overlong || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
        return 0;
    return n;
}

std::string escapeWith(std::string_view s, bool quotes)
{
    std::string out;
    out.reserve(s.size() + 2);
    for (size_t i = 0; i < s.size();) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        if (c >= 0x80) {
            const size_t n = utf8SequenceLength(s, i);
            // C1 controls (U+0080..U+009F, encoded C2 80..C2 9F) act as escape codes on some terminals.
            const bool c1 = n == 2 && c == 0xC2 && static_cast<unsigned char>(s[i + 1]) <= 0x9F;
            if (n == 0) {
                out += hexEscape("\\x%02x", c);
                ++i;
            } else if (c1) {
                out += hexEscape("\\u%04x", static_cast<unsigned char>(s[i + 1]));
                i += 2;
            } else {
                out.append(s.substr(i, n));
                i += n;
            }
            continue;
        }
        switch (c) {
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\\': out += quotes ? "\\\\" : "\\"; break;
        case '"': out += quotes ? "\\\"" : "\""; break;
        default:
            if (c < 0x20 || c == 0x7F)
                out += hexEscape("\\u%04x", c);
            else
                out += char(c);
        }
        ++i;
    }
    return out;
}
} // namespace

std::string escapeControls(std::string_view s) { return escapeWith(s, false); }

std::string quotedInput(std::string_view s) { return "\"" + escapeWith(s, true) + "\""; }

std::string escapeControlsKeepLayout(std::string_view s)
{
    std::string out;
    out.reserve(s.size());
    for (size_t from = 0; from <= s.size();) {
        const size_t cut = std::min(s.find_first_of("\n\t", from), s.size());
        out += escapeWith(s.substr(from, cut - from), false);
        if (cut < s.size())
            out += s[cut];
        from = cut + 1;
    }
    return out;
}

std::string fieldKey(std::string_view key)
{
    bool plain = !key.empty();
    for (char ch : key)
        plain = plain && ch > ' ' && ch < 0x7f && ch != '"' && ch != '\\';
    return plain ? std::string(key) : "[" + quotedInput(key) + "]";
}

} // namespace hetplan
