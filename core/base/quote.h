#pragma once
// Text that comes from input (keys, names, values) shown inside a message. Error and warning lines are one
// line each (`error: <file>: <field>: <reason>`), and they go to a terminal: a newline in a key must not
// split the line, and an escape sequence must not reach the terminal.
#include <string>
#include <string_view>

namespace hetplan {

// `s` with every control character (C0, DEL, C1) and byte that is not valid UTF-8 escaped as \n, \t, \r,
// \u001b, \xff. Printable text, including UTF-8 letters, is kept as it is. Applied to whole error lines,
// so it leaves backslashes alone (text that quotedInput() escaped stays as it was).
std::string escapeControls(std::string_view s);
// escapeControls for multi-line text (tables, listings): newlines and tabs are kept, every other control
// character and invalid byte is escaped.
std::string escapeControlsKeepLayout(std::string_view s);
// `s` in double quotes with `"` and `\` escaped as well as what escapeControls escapes: "a\"b\n".
std::string quotedInput(std::string_view s);
// A key in a field path: kept as it is when it is printable ASCII without spaces, quotes or backslashes
// ("nic_bandwidth", "n0/3", "layers[2]"), else quoted in brackets (["a b"], ["\u001b[31m"], ["été"]).
std::string fieldKey(std::string_view key);

} // namespace hetplan
