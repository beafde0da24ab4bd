#include "names.h"

#include "quote.h"

namespace hetplan {

namespace {
bool isAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }
bool isPlainChar(char c) { return isAlnum(c) || c == '.' || c == '-' || c == '_'; }
} // namespace

std::string plainNameProblem(std::string_view name)
{
    if (name.empty())
        return "must not be empty";
    if (name.size() > 253)
        return "is " + std::to_string(name.size()) + " characters long; " + kPlainNameRule;
    for (size_t i = 0; i < name.size(); ++i)
        if (!isPlainChar(name[i]))
            return "contains " + (name[i] == ' ' ? std::string("a space") : quotedInput(name.substr(i, 1))) +
                   " at position " + std::to_string(i) + "; " + kPlainNameRule;
    if (!isAlnum(name.front()))
        return "starts with " + quotedInput(name.substr(0, 1)) + "; " + kPlainNameRule;
    return {};
}

bool isPlainName(std::string_view name) { return plainNameProblem(name).empty(); }

} // namespace hetplan
