#pragma once
// Names that leave hetplan in files other programs parse: node names become host names in a DeepSpeed
// hostfile, a torchrun command line and a CSV rank table; planner names appear in launch scripts. A plain
// name needs no quoting in any of them: ASCII letters, digits, '.', '-' and '_', starting with a letter or
// digit (so it cannot be taken for an option), at most 253 characters (a DNS host name's limit).
#include <string>
#include <string_view>

namespace hetplan {

// The rule in words, for error messages and the schema's description.
inline constexpr const char* kPlainNameRule =
    "only ASCII letters, digits, '.', '-' and '_', starting with a letter or digit, at most 253 characters";

bool isPlainName(std::string_view name);

// "" when `name` is plain, else why not ("contains a space", "starts with '-'", ...), naming the first
// offending character so the user can find it.
std::string plainNameProblem(std::string_view name);

} // namespace hetplan
