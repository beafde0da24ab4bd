// Keyboard use of the main window: no two shortcuts that can be live at once share a key (over every
// QAction, QShortcut and button of the window and its child widgets), F5 runs the planners from every tab,
// Ctrl+= / Ctrl+- / Ctrl+0 zoom the current view, Help ▸ Keyboard Shortcuts lists every shortcut, and the
// comparison's placeholder names a menu item that exists.
#include "testutil.h"

#include "app/gui/main_window.h"
#include "widgets/canvas/cluster_editor.h"
#include "widgets/canvas/property_panel.h"
#include "widgets/canvas/cluster_view.h"
#include "widgets/panels/run_panel.h"
#include "widgets/views/comparison_view.h"
#include "widgets/views/curves_view.h"
#include "widgets/views/gantt_view.h"

#include <qcustomplot.h>

#include <QAbstractButton>
#include <QAction>
#include <QDialog>
#include <QMenu>
#include <QMenuBar>
#include <QRegularExpression>
#include <QShortcut>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableWidget>
#include <QTest>

using namespace hetplan;

namespace {
// Where a shortcut can fire: the whole window, one widget, or a widget and its children.
struct Scope {
    enum Kind { Window, Widget, Subtree } kind;
    QWidget* widget;
};

struct Binding {
    QKeySequence key;
    QObject* owner;
    QString name;
    std::vector<Scope> scopes;
};

std::vector<Scope> scopesOf(Qt::ShortcutContext context, const std::vector<QWidget*>& widgets)
{
    std::vector<Scope> out;
    for (QWidget* w : widgets)
        out.push_back({context == Qt::WidgetShortcut              ? Scope::Widget
                       : context == Qt::WidgetWithChildrenShortcut ? Scope::Subtree
                                                                   : Scope::Window,
                       w});
    return out;
}

// Every key binding of the window and its children, by the test's own walk (not the app's list).
std::vector<Binding> allBindings(QMainWindow& w)
{
    std::vector<Binding> out;
    for (QAction* a : w.findChildren<QAction*>()) {
        std::vector<QWidget*> widgets;
        for (QObject* o : a->associatedObjects())
            if (auto* widget = qobject_cast<QWidget*>(o))
                widgets.push_back(widget);
        if (widgets.empty())
            continue; // an action in no widget has no live shortcut
        for (const QKeySequence& k : a->shortcuts())
            out.push_back({k, a, a->text(), scopesOf(a->shortcutContext(), widgets)});
    }
    for (QShortcut* s : w.findChildren<QShortcut*>())
        for (const QKeySequence& k : s->keys())
            out.push_back({k, s, s->objectName(), scopesOf(s->context(), {qobject_cast<QWidget*>(s->parent())})});
    for (QAbstractButton* b : w.findChildren<QAbstractButton*>())
        if (!b->shortcut().isEmpty()) // button shortcuts are window-wide while the button shows
            out.push_back({b->shortcut(), b, b->text(), {{Scope::Window, b}}});
    return out;
}

bool overlap(const Scope& a, const Scope& b)
{
    if (a.kind == Scope::Window || b.kind == Scope::Window || a.widget == b.widget)
        return true;
    return (a.kind == Scope::Subtree && a.widget->isAncestorOf(b.widget)) ||
           (b.kind == Scope::Subtree && b.widget->isAncestorOf(a.widget));
}

bool canFireTogether(const Binding& a, const Binding& b)
{
    for (const Scope& sa : a.scopes)
        for (const Scope& sb : b.scopes)
            if (overlap(sa, sb))
                return true;
    return false;
}

QAction* menuAction(QMainWindow& w, const QString& menu, const QString& item)
{
    for (QAction* top : w.menuBar()->actions())
        if (top->menu() && top->text().remove('&') == menu)
            for (QAction* a : top->menu()->actions())
                if (a->text().remove('&').remove(QStringLiteral("…")) == item)
                    return a;
    return nullptr;
}

// With HETPLAN_SCREENSHOTS=DIR set, writes what the widget shows to DIR/name (to look at it by eye).
void saveShot(QWidget* widget, const QString& name)
{
    const QString dir = qEnvironmentVariable("HETPLAN_SCREENSHOTS");
    if (!dir.isEmpty())
        widget->grab().save(dir + "/" + name);
}

bool waitForRun(MainWindow& w)
{
    QSignalSpy spy(&w, &MainWindow::runFinished);
    return spy.wait(test::kHangGuardMs);
}

// Focuses the first focusable widget shown on the current tab (the tab itself when there is none).
QWidget* focusInCurrentTab(MainWindow& w)
{
    QWidget* tab = w.tabs()->currentWidget();
    QWidget* target = tab;
    for (QWidget* c : tab->findChildren<QWidget*>())
        if (c->isVisible() && c->isEnabled() && c->focusPolicy() != Qt::NoFocus) {
            target = c;
            break;
        }
    target->setFocus();
    QCoreApplication::processEvents();
    return target;
}

QStringList ambiguityWarnings;
void recordAmbiguity(QtMsgType, const QMessageLogContext&, const QString& text)
{
    if (text.contains("Ambiguous shortcut"))
        ambiguityWarnings << text;
}

bool insideOf(const QObject* o, const QObject* ancestor)
{
    for (; o; o = o->parent())
        if (o == ancestor)
            return true;
    return false;
}

double width(const QCPRange& r) { return r.upper - r.lower; }
} // namespace

class TestWindowShortcuts : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName("hetplan-tests");
        QCoreApplication::setApplicationName("tst_window_shortcuts");
    }

    void noTwoLiveShortcutsShareAKey()
    {
        MainWindow w;
        w.setInteractive(false);
        w.show();
        // A run first, so the plan views and the plan details' tables (with their own Ctrl+C) exist.
        w.openExample("amp-het-cluster", "gpt2-amp");
        QVERIFY(w.runPlanners({"megatron"}));
        QVERIFY(waitForRun(w));
        const std::vector<Binding> bindings = allBindings(w);
        QStringList keys;
        for (const Binding& b : bindings)
            keys << b.key.toString();
        for (const char* k : {"F5", "Esc", "Ctrl+=", "Ctrl+-", "Ctrl+0", "F1"})
            QVERIFY2(keys.contains(k), k);
        for (size_t i = 0; i < bindings.size(); ++i)
            for (size_t j = i + 1; j < bindings.size(); ++j) {
                const Binding &a = bindings[i], &b = bindings[j];
                if (a.owner != b.owner && a.key == b.key)
                    QVERIFY2(!canFireTogether(a, b), qPrintable(QStringLiteral("%1 is both '%2' and '%3'")
                                                                    .arg(a.key.toString(), a.name, b.name)));
            }
    }

    void f5RunsThePlannersFromEveryTab()
    {
        MainWindow w;
        w.setInteractive(false);
        w.show();
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        w.openExample("amp-het-cluster", "gpt2-amp");
        w.runPanel()->setChecked({"megatron"});
        ambiguityWarnings.clear();
        const QtMessageHandler previous = qInstallMessageHandler(recordAmbiguity);
        for (int tab = 0; tab < w.tabs()->count(); ++tab) {
            w.tabs()->setCurrentIndex(tab);
            QCoreApplication::processEvents();
            QWidget* target = focusInCurrentTab(w);
            const size_t runs = w.document()->project().runs.size();
            QSignalSpy finished(&w, &MainWindow::runFinished);
            QTest::keyClick(target, Qt::Key_F5);
            const QString name = w.tabs()->tabText(tab);
            QVERIFY2(w.document()->project().runs.size() == runs + 1, qPrintable("F5 on the tab " + name));
            QVERIFY(finished.wait(test::kHangGuardMs));
        }
        qInstallMessageHandler(previous);
        QVERIFY2(ambiguityWarnings.isEmpty(), qPrintable(ambiguityWarnings.join('\n')));
    }

    void zoomKeysChangeTheCurrentViewsRange()
    {
        MainWindow w;
        w.setInteractive(false);
        w.show();
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        w.openExample("amp-het-cluster", "gpt2-amp");
        QVERIFY(w.runPlanners({"megatron"}));
        QVERIFY(waitForRun(w));

        // Gantt: time axis only, about its centre, by 1.25 per step.
        w.tabs()->setCurrentWidget(w.gantt());
        QWidget* target = focusInCurrentTab(w);
        const QCPRange start = w.gantt()->plot()->xAxis->range();
        const QCPRange rows = w.gantt()->plot()->yAxis->range();
        QTest::keyClick(target, Qt::Key_Equal, Qt::ControlModifier);
        QCPRange in = w.gantt()->plot()->xAxis->range();
        QVERIFY(qFuzzyCompare(width(in), width(start) / 1.25));
        QVERIFY(qFuzzyCompare(in.center(), start.center()));
        QCOMPARE(w.gantt()->plot()->yAxis->range(), rows); // rows stay
        QTest::keyClick(target, Qt::Key_Equal, Qt::ControlModifier);
        QVERIFY(qFuzzyCompare(width(w.gantt()->plot()->xAxis->range()), width(start) / 1.25 / 1.25));
        QTest::keyClick(target, Qt::Key_Minus, Qt::ControlModifier); // the Gantt never shows more than it all
        QVERIFY(qFuzzyCompare(width(w.gantt()->plot()->xAxis->range()), width(start) / 1.25));
        QTest::keyClick(target, Qt::Key_0, Qt::ControlModifier); // back to the whole iteration
        QVERIFY(qFuzzyCompare(width(w.gantt()->plot()->xAxis->range()), width(start)));
        QCOMPARE(w.gantt()->plot()->xAxis->range().lower, 0.0);

        // Curves: both axes narrow on zoom in; Ctrl+0 restores them.
        w.tabs()->setCurrentWidget(w.curves());
        target = focusInCurrentTab(w);
        const QCPRange curvesX = w.curves()->plot()->xAxis->range();
        QTest::keyClick(target, Qt::Key_Equal, Qt::ControlModifier);
        QVERIFY(w.curves()->plot()->xAxis->range().size() < curvesX.size());
        QTest::keyClick(target, Qt::Key_0, Qt::ControlModifier);
        QVERIFY(qFuzzyCompare(w.curves()->plot()->xAxis->range().lower, curvesX.lower));
        QVERIFY(qFuzzyCompare(w.curves()->plot()->xAxis->range().upper, curvesX.upper));

        // The canvas: its zoom factor, not the plots'.
        w.tabs()->setCurrentWidget(w.clusterEditor());
        target = focusInCurrentTab(w);
        ClusterView* canvas = w.clusterEditor()->findChild<ClusterView*>();
        QVERIFY(canvas);
        canvas->zoomToRect(QRectF(0, 0, canvas->viewport()->width() * 2.0, canvas->viewport()->height() * 2.0));
        const double z = canvas->zoom(); // 50 %: room both ways
        const QCPRange ganttBefore = w.gantt()->plot()->xAxis->range();
        QTest::keyClick(target, Qt::Key_Equal, Qt::ControlModifier);
        QVERIFY(qFuzzyCompare(canvas->zoom(), z * 1.25));
        QTest::keyClick(target, Qt::Key_Minus, Qt::ControlModifier);
        QVERIFY(qFuzzyCompare(canvas->zoom(), z));
        QCOMPARE(w.gantt()->plot()->xAxis->range(), ganttBefore); // other tabs are left alone
    }

    void helpListsEveryShortcut()
    {
        MainWindow w;
        w.setInteractive(false);
        w.show();
        w.openExample("amp-het-cluster", "gpt2-amp");
        QVERIFY(w.runPlanners({"megatron"}));
        QVERIFY(waitForRun(w));
        QAction* help = menuAction(w, "Help", "Keyboard Shortcuts");
        QVERIFY(help);
        help->trigger();
        auto* dialog = w.findChild<QDialog*>("KeyboardShortcutsDialog");
        QVERIFY(dialog);
        QVERIFY(dialog->isVisible());
        auto* table = dialog->findChild<QTableWidget*>();
        QVERIFY(table);
        saveShot(dialog, "keyboard-shortcuts.png");
        QStringList rows;
        for (int r = 0; r < table->rowCount(); ++r)
            rows << table->item(r, 0)->text() + " | " + table->item(r, 1)->text() + " | " + table->item(r, 2)->text();
        QVERIFY2(rows.contains("Run Planners | F5 | Run menu"), qPrintable(rows.join('\n')));
        QVERIFY(rows.contains("Zoom In | Ctrl+=, Ctrl++ | View menu"));
        QVERIFY(rows.contains("Zoom Out | Ctrl+- | View menu"));
        QVERIFY(rows.contains("Zoom to Fit | Ctrl+0 | View menu"));
        // Every binding the window has (outside the dialog; widget-local ones too) is on some row with its key.
        for (const Binding& b : allBindings(w)) {
            if (insideOf(b.owner, dialog))
                continue;
            const QString key = b.key.toString(QKeySequence::NativeText);
            bool listed = false;
            for (int r = 0; r < table->rowCount() && !listed; ++r)
                listed = table->item(r, 1)->text().split(", ").contains(key);
            QVERIFY2(listed, qPrintable(key + " (" + b.name + ") is not listed"));
        }
    }

    void comparisonPlaceholderNamesAMenuItemThatExists()
    {
        MainWindow w;
        const QString text = w.comparison()->placeholderText();
        static const QRegularExpression menuPath(QStringLiteral("(\\w+) ▸ ([\\w ]+?) \\((\\S+)\\)"));
        const auto m = menuPath.match(text);
        QVERIFY2(m.hasMatch(), qPrintable(text));
        QAction* a = menuAction(w, m.captured(1), m.captured(2));
        QVERIFY2(a, qPrintable(m.captured(0)));
        QCOMPARE(a->shortcut().toString(), m.captured(3)); // the key it names is the item's
        QVERIFY(!text.contains("Compare)"));
        w.resize(1200, 700);
        w.show();
        w.tabs()->setCurrentWidget(w.comparison());
        saveShot(&w, "comparison-placeholder.png");
    }
};

QTEST_MAIN(TestWindowShortcuts)
#include "tst_window_shortcuts.moc"
