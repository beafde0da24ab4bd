#pragma once
// Every keyboard shortcut of a main window, read from the window itself (menu actions, actions and
// QShortcuts of child widgets, button shortcuts), so Help ▸ Keyboard Shortcuts cannot drift from what
// the keys do.
#include <QString>

#include <vector>

class QDialog;
class QMainWindow;
class QWidget;

namespace hetplan {

struct ShortcutEntry {
    QString command; // "Run Planners"
    QString keys;    // "F5", several joined by ", "
    QString where;   // "Run menu", or the tab/widget a widget-local shortcut acts in ("Cluster tab")
};

// Menu actions first (in menu order), then the shortcuts that act inside one widget.
std::vector<ShortcutEntry> collectShortcuts(QMainWindow* window);

// A non-modal dialog (object name "KeyboardShortcutsDialog", deleted on close) listing `entries`.
QDialog* createShortcutsDialog(QWidget* parent, const std::vector<ShortcutEntry>& entries);

// Menu text without mnemonics and ellipsis: "Open &Example…" → "Open Example".
QString plainCommandText(QString text);

} // namespace hetplan
