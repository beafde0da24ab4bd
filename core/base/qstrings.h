#pragma once
// The one std::string -> QString conversion used across the tree (the model keeps std::string; Qt APIs
// and JSON want QString).
#include <QString>

#include <string>

namespace hetplan {

inline QString toQString(const std::string& s) { return QString::fromStdString(s); }

} // namespace hetplan
