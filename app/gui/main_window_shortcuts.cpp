// Keyboard zoom on the current tab, Help ▸ Keyboard Shortcuts and Help ▸ User Guide.
#include "main_window.h"
#include "shortcut_list.h"
#include "user_guide.h"

#include "widgets/canvas/cluster_editor.h"
#include "widgets/views/plot_view.h"

#include <QDialog>
#include <QTabWidget>

namespace hetplan {

namespace {
// The plot on a tab: the tab itself, or one inside it.
PlotView* plotViewOf(QWidget* tab)
{
    if (auto* view = qobject_cast<PlotView*>(tab))
        return view;
    return tab ? tab->findChild<PlotView*>() : nullptr;
}
} // namespace

void MainWindow::zoomActiveView(double factor)
{
    QWidget* tab = tabs_->currentWidget();
    if (tab == editor_)
        factor > 1 ? editor_->zoomIn() : editor_->zoomOut();
    else if (PlotView* view = plotViewOf(tab))
        view->zoomBy(factor);
}

void MainWindow::resetActiveView()
{
    QWidget* tab = tabs_->currentWidget();
    if (tab == editor_)
        editor_->zoomToFit();
    else if (PlotView* view = plotViewOf(tab))
        view->resetZoom();
}

void MainWindow::showKeyboardShortcuts()
{
    if (auto* open = findChild<QDialog*>(QStringLiteral("KeyboardShortcutsDialog"))) {
        open->raise();
        open->activateWindow();
        return;
    }
    createShortcutsDialog(this, collectShortcuts(this))->show();
}

void MainWindow::showUserGuide()
{
    if (auto* open = findChild<QDialog*>(QStringLiteral("UserGuideDialog"))) {
        open->raise();
        open->activateWindow();
        return;
    }
    createUserGuideDialog(this)->show();
}

} // namespace hetplan
