#include "plan_pair_view.h"

#include "gantt_view.h"

#include "core/cost/costmodel.h"
#include "core/sim/summary.h"
#include "widgets/common/gui_errors.h"

#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace hetplan {

namespace {
const QColor kDifferentBackground(255, 236, 179); // a light amber: readable under black bold text

QTableWidgetItem* cell(const QString& text, bool marked)
{
    auto* item = new QTableWidgetItem(text);
    if (marked) {
        QFont f = item->font();
        f.setBold(true);
        item->setFont(f);
        item->setBackground(kDifferentBackground);
    }
    return item;
}
} // namespace

PlanPairView::PlanPairView(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    heading_ = new QLabel;
    heading_->setWordWrap(true);
    layout->addWidget(heading_);
    table_ = new QTableWidget(0, 4);
    table_->verticalHeader()->hide();
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setStretchLastSection(true);
    auto* splitter = new QSplitter(Qt::Vertical);
    splitter->addWidget(table_);
    for (GanttView*& g : gantts_) {
        g = new GanttView;
        splitter->addWidget(g);
    }
    splitter->setStretchFactor(0, 2);
    splitter->setStretchFactor(1, 3);
    splitter->setStretchFactor(2, 3);
    layout->addWidget(splitter, 1);
    linkTimeAxes();
}

bool PlanPairView::setPlans(const Plan& left, const Plan& right, const QString& leftName, const QString& rightName,
                            QString* error)
{
    const Plan* plans[2] = {&left, &right};
    SimResult sims[2];
    PlanSummary summaries[2];
    try {
        for (int i = 0; i < 2; ++i) {
            const CostModel costs(plans[i]->model, plans[i]->job, plans[i]->profile);
            sims[i] = simulate(*plans[i], costs, SimOptions{true});
            summaries[i] = plans[i]->summary ? *plans[i]->summary : summarize(*plans[i], costs, sims[i]);
        }
    } catch (const std::exception& e) {
        if (error)
            *error = guiErrorText(e);
        return false;
    }
    rows_ = compareSummaries(summaries[0], summaries[1]);
    fillTable(leftName, rightName);
    const double longest = std::max(sims[0].iterationSeconds, sims[1].iterationSeconds);
    for (int i = 0; i < 2; ++i) {
        gantts_[i]->setPlan(*plans[i], sims[i]);
        gantts_[i]->setMinimumTimeSpan(longest);
    }
    return true;
}

void PlanPairView::fillTable(const QString& leftName, const QString& rightName)
{
    const int differing = int(std::count_if(rows_.begin(), rows_.end(), [](const ComparedRow& r) { return r.differs; }));
    heading_->setText(tr("<b>%1</b> and <b>%2</b>: %3 of %4 quantities differ (marked)")
                          .arg(leftName.toHtmlEscaped(), rightName.toHtmlEscaped())
                          .arg(differing)
                          .arg(rows_.size()));
    table_->setHorizontalHeaderLabels({tr("Quantity"), leftName, rightName, tr("Ratio (right / left)")});
    table_->setRowCount(int(rows_.size()));
    for (int r = 0; r < int(rows_.size()); ++r) {
        const ComparedRow& row = rows_[r];
        table_->setItem(r, 0, cell(row.label, false));
        table_->setItem(r, 1, cell(row.left, row.differs));
        table_->setItem(r, 2, cell(row.right, row.differs));
        table_->setItem(r, 3, cell(row.ratio, false));
    }
    table_->resizeRowsToContents();
}

// Each chart's time axis follows the other's in seconds (the charts may use different units); the
// signal outlives the chart's rebuilds (a collapsed group redraws it).
void PlanPairView::linkTimeAxes()
{
    for (int i = 0; i < 2; ++i) {
        GanttView* to = gantts_[1 - i];
        connect(gantts_[i], &GanttView::timeRangeChanged, this, [this, to](double lower, double upper) {
            if (syncing_)
                return;
            syncing_ = true;
            to->setTimeRangeSeconds(lower, upper);
            syncing_ = false;
        });
    }
}

} // namespace hetplan
