#pragma once
// Translatable text of the cluster editor's undo commands (their names in Edit ▸ Undo …), one context for
// all of them.
#include <QCoreApplication>
#include <QString>

namespace hetplan {

inline QString commandText(const char* s) { return QCoreApplication::translate("ClusterCommands", s); }

} // namespace hetplan
