#include "shortcut_list.h"

#include <QAbstractButton>
#include <QAction>
#include <QDialog>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QShortcut>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

#include <set>

namespace hetplan {

QString plainCommandText(QString text)
{
    text.replace(QStringLiteral("&&"), QStringLiteral("\x01"));
    text.remove(QLatin1Char('&'));
    text.replace(QStringLiteral("\x01"), QStringLiteral("&"));
    if (text.endsWith(QStringLiteral("…")))
        text.chop(1);
    return text.trimmed();
}

namespace {
QString keysText(const QList<QKeySequence>& keys)
{
    QStringList parts;
    for (const QKeySequence& k : keys)
        if (!k.isEmpty())
            parts << k.toString(QKeySequence::NativeText);
    return parts.join(QStringLiteral(", "));
}

// Menu actions with shortcuts, depth first, "File ▸ Export Plan" style paths.
void collectMenu(QMenu* menu, const QString& path, std::vector<ShortcutEntry>& out, std::set<QObject*>& seen)
{
    for (QAction* a : menu->actions()) {
        if (QMenu* sub = a->menu()) {
            collectMenu(sub, path + QStringLiteral(" ▸ ") + plainCommandText(a->text()), out, seen);
            continue;
        }
        seen.insert(a);
        if (!a->shortcuts().isEmpty())
            out.push_back({plainCommandText(a->text()), keysText(a->shortcuts()), path + QObject::tr(" menu")});
    }
}

// The main tab (or dock) a widget lives in, as the user sees it: "Cluster tab" (the outermost tab, not a
// section tab inside one).
QString placeOf(QWidget* w, QMainWindow* window)
{
    QString place = QObject::tr("main window");
    for (QWidget* p = w; p && p != window; p = p->parentWidget()) {
        QWidget* stack = p->parentWidget();
        if (auto* tabs = qobject_cast<QTabWidget*>(stack ? stack->parentWidget() : nullptr))
            if (const int i = tabs->indexOf(p); i >= 0)
                place = plainCommandText(tabs->tabText(i)) + QObject::tr(" tab");
        if (stack == window && !p->windowTitle().isEmpty())
            place = p->windowTitle();
    }
    return place;
}

QWidget* widgetOf(QAction* a)
{
    for (QObject* o : a->associatedObjects())
        if (auto* w = qobject_cast<QWidget*>(o))
            return w;
    return nullptr;
}
} // namespace

std::vector<ShortcutEntry> collectShortcuts(QMainWindow* window)
{
    std::vector<ShortcutEntry> out;
    std::set<QObject*> seen;
    for (QAction* top : window->menuBar()->actions())
        if (QMenu* menu = top->menu())
            collectMenu(menu, plainCommandText(top->text()), out, seen);
    for (QAction* a : window->findChildren<QAction*>()) {
        if (seen.count(a) || a->shortcuts().isEmpty())
            continue;
        seen.insert(a);
        QWidget* w = widgetOf(a);
        out.push_back({plainCommandText(a->text()), keysText(a->shortcuts()), placeOf(w ? w : window, window)});
    }
    for (QShortcut* s : window->findChildren<QShortcut*>())
        if (!s->keys().isEmpty())
            out.push_back({s->whatsThis().isEmpty() ? s->objectName() : s->whatsThis(), keysText(s->keys()),
                           placeOf(qobject_cast<QWidget*>(s->parent()), window)});
    for (QAbstractButton* b : window->findChildren<QAbstractButton*>())
        if (!b->shortcut().isEmpty())
            out.push_back({plainCommandText(b->text()), keysText({b->shortcut()}), placeOf(b, window)});
    // One line per command and place (e.g. every table of the plan details has its own Ctrl+C).
    std::vector<ShortcutEntry> unique;
    std::set<QStringList> listed;
    for (ShortcutEntry& e : out)
        if (listed.insert({e.command, e.keys, e.where}).second)
            unique.push_back(std::move(e));
    return unique;
}

QDialog* createShortcutsDialog(QWidget* parent, const std::vector<ShortcutEntry>& entries)
{
    auto* dialog = new QDialog(parent);
    dialog->setObjectName(QStringLiteral("KeyboardShortcutsDialog"));
    dialog->setWindowTitle(QObject::tr("Keyboard Shortcuts"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    auto* layout = new QVBoxLayout(dialog);
    auto* table = new QTableWidget(int(entries.size()), 3, dialog);
    table->setHorizontalHeaderLabels({QObject::tr("Command"), QObject::tr("Keys"), QObject::tr("Where")});
    table->verticalHeader()->hide();
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    for (int r = 0; r < int(entries.size()); ++r) {
        const ShortcutEntry& e = entries[size_t(r)];
        int c = 0;
        for (const QString& text : {e.command, e.keys, e.where})
            table->setItem(r, c++, new QTableWidgetItem(text));
    }
    table->resizeColumnsToContents();
    table->horizontalHeader()->setStretchLastSection(true);
    layout->addWidget(table);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
    QObject::connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::close);
    layout->addWidget(buttons);
    dialog->resize(560, 520);
    return dialog;
}

} // namespace hetplan
