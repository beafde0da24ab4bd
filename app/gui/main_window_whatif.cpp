// The main window's What-if tab: a sweep of the current cluster, model and job with the
// Run tab's ticked planners and their options, as a run would use them; messages go to the status bar.
#include "main_window.h"

#include "widgets/controller/live_controller.h"
#include "widgets/panels/run_panel.h"
#include "widgets/panels/whatif_panel.h"

#include <QTabWidget>

namespace hetplan {

void MainWindow::buildWhatIfTab()
{
    whatIf_ = new WhatIfPanel;
    whatIf_->setRequestSource([this] { return currentPlanRequest(*doc_); });
    whatIf_->setPlannerSource([this] { return runPanel_->checkedPlanners(); });
    whatIf_->setOptionsSource([this] { return runPanel_->options(); });
    tabs_->addTab(whatIf_, tr("What-if"));
    // The Run tab's ticks may have changed while another tab was shown.
    connect(tabs_, &QTabWidget::currentChanged, this, [this](int index) {
        if (tabs_->widget(index) == whatIf_)
            whatIf_->refreshPlanners();
    });
    connect(whatIf_, &WhatIfPanel::message, this, &MainWindow::showMessage);
}

} // namespace hetplan
