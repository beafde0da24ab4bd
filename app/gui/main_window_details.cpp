// The main window's Plan details tab: built beside the other plan views, filled with the current plan,
// and in the screenshots.
#include "main_window.h"

#include "widgets/views/plan_details_view.h"

#include <QApplication>
#include <QDir>
#include <QTabWidget>

namespace hetplan {

void MainWindow::buildDetailsTab()
{
    details_ = new PlanDetailsView;
    tabs_->addTab(details_, tr("Plan details"));
}

void MainWindow::showPlanDetails(const Plan* plan)
{
    if (plan)
        details_->setPlan(*plan);
    else
        details_->clear();
}

// details.png: the whole window with the tab shown, as a user sees it (it is widgets, not a plot).
bool MainWindow::writeDetailsScreenshot(const QString& dir)
{
    tabs_->setCurrentWidget(details_);
    QApplication::processEvents();
    return grab().save(QDir(dir).filePath("details.png"));
}

} // namespace hetplan
