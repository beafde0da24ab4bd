#pragma once
// Numbers as the app writes them for people.
#include <QString>

namespace hetplan {

// `value` with at most `decimals` decimals and no trailing zeros ("21.25", "10", "0.3"): trailing zeros
// would claim a precision the value does not have.
QString trimmedNumber(double value, int decimals);

} // namespace hetplan
