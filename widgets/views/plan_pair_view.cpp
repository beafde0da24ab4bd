#include "plan_pair_view.h"

#include "gantt_view.h"

#include "core/cost/costmodel.h"
#include "core/sim/summary.h"
#include "widgets/common/gui_errors.h"

#include <QHeaderView>
#include <QLabel>
#include <QResizeEvent>
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
    // The two plans' columns share the width and wrap (a long layer split); the table is as high as its
    // rows, so every quantity is in view above the charts.
    QHeaderView* header = table_->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    header->setSectionResizeMode(1, QHeaderView::Stretch);
    header->setSectionResizeMode(2, QHeaderView::Stretch);
    table_->setWordWrap(true);
    table_->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    table_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    connect(header, &QHeaderView::sectionResized, this, &PlanPairView::fitTableHeight);
    layout->addWidget(table_);
    auto* splitter = new QSplitter(Qt::Vertical);
    for (GanttView*& g : gantts_) {
        g = new GanttView;
        splitter->addWidget(g);
    }
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
    rows_ = compareSummaries(summaries[0], summaries[1], plans[0]->estimate.cost, plans[1]->estimate.cost);
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
    table_->setCurrentItem(nullptr); // no highlighted cell until the user picks one
    fitTableHeight();
}

void PlanPairView::resizeEvent(QResizeEvent* e)
{
    QWidget::resizeEvent(e);
    // After the table's own resize has stretched its columns (that comes later in this event round).
    QMetaObject::invokeMethod(this, &PlanPairView::fitTableHeight, Qt::QueuedConnection);
}

void PlanPairView::fitTableHeight()
{
    table_->resizeRowsToContents();
    int height = table_->horizontalHeader()->height() + 2 * table_->frameWidth();
    for (int r = 0; r < table_->rowCount(); ++r)
        height += table_->rowHeight(r);
    table_->setFixedHeight(height);
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
