#include "plan_details_view.h"

#include "widgets/models/current_plan.h"
#include "plan_summary_rows.h"

#include "core/base/qstrings.h"
#include "core/model/pricing.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTableWidget>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <map>

namespace hetplan {

namespace {
constexpr int kMaxVisibleRows = 60; // longer tables scroll inside themselves

// Ctrl+C on a table copies its selected cells, tab-separated, one line per row.
void addCopyAction(QTableWidget* table)
{
    auto* copy = new QAction(PlanDetailsView::tr("Copy selected cells"), table); // named in Help ▸ Keyboard Shortcuts
    copy->setShortcut(QKeySequence::Copy);
    copy->setShortcutContext(Qt::WidgetShortcut);
    QObject::connect(copy, &QAction::triggered, table, [table] {
        std::map<int, std::map<int, QString>> cells;
        for (const QTableWidgetItem* it : table->selectedItems())
            cells[it->row()][it->column()] = it->text();
        QStringList lines;
        for (const auto& [row, cols] : cells) {
            QStringList line;
            for (const auto& [col, text] : cols)
                line << text;
            lines << line.join(QLatin1Char('\t'));
        }
        QApplication::clipboard()->setText(lines.join(QLatin1Char('\n')));
    });
    table->addAction(copy);
}

QWidget* tableWidget(const DetailsBlock& b)
{
    auto* t = new QTableWidget(int(b.rows.size()), int(b.columns.size()));
    t->setHorizontalHeaderLabels(b.columns);
    t->verticalHeader()->hide();
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setAlternatingRowColors(true);
    t->setWordWrap(false);
    for (int r = 0; r < int(b.rows.size()); ++r)
        for (int c = 0; c < int(b.rows[r].size()) && c < int(b.columns.size()); ++c)
            t->setItem(r, c, new QTableWidgetItem(b.rows[r][c]));
    t->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    t->verticalHeader()->setDefaultSectionSize(t->fontMetrics().height() + 8);
    t->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    const bool scrolls = int(b.rows.size()) > kMaxVisibleRows;
    t->setVerticalScrollBarPolicy(scrolls ? Qt::ScrollBarAlwaysOn : Qt::ScrollBarAlwaysOff);
    // As wide and as high as the content (up to kMaxVisibleRows rows), so tables read as tables, not bands.
    // Wider than the tab: the tab scrolls sideways, so no scroll bar inside the table hides its last row.
    t->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    t->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
    t->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
    const int rows = std::min(int(b.rows.size()), kMaxVisibleRows);
    t->setFixedHeight(t->horizontalHeader()->sizeHint().height() + rows * t->verticalHeader()->defaultSectionSize() +
                      2 * t->frameWidth());
    addCopyAction(t);
    return t;
}

QWidget* textWidget(const DetailsBlock& b)
{
    auto* text = new QPlainTextEdit;
    text->setReadOnly(true);
    text->setLineWrapMode(QPlainTextEdit::NoWrap);
    text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    text->setPlainText(b.text);
    text->setMinimumHeight(320);
    return text;
}

void addTreeItems(QTreeWidgetItem* parent, const std::vector<DetailsTreeNode>& nodes)
{
    for (const DetailsTreeNode& n : nodes)
        addTreeItems(new QTreeWidgetItem(parent, {n.key, n.value}), n.children);
}

QWidget* treeWidget(const DetailsBlock& b)
{
    auto* tree = new QTreeWidget;
    tree->setHeaderLabels({QObject::tr("Key"), QObject::tr("Value")});
    for (const DetailsTreeNode& n : b.tree)
        addTreeItems(new QTreeWidgetItem(tree, {n.key, n.value}), n.children);
    tree->expandToDepth(0);
    tree->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    tree->setMinimumHeight(220);
    return tree;
}

QWidget* blockWidget(const DetailsBlock& b)
{
    switch (b.kind) {
    case DetailsBlock::Kind::Table: return tableWidget(b);
    case DetailsBlock::Kind::Text: return textWidget(b);
    case DetailsBlock::Kind::Tree: return treeWidget(b);
    }
    return new QWidget;
}

// One section: its blocks stacked under their headings; a program or tree takes the spare height.
QWidget* sectionWidget(const DetailsSection& s)
{
    auto* page = new QWidget;
    auto* layout = new QVBoxLayout(page);
    bool stretches = false;
    for (const DetailsBlock& b : s.blocks) {
        auto* heading = new QLabel(QStringLiteral("<b>%1</b>").arg(b.heading.toHtmlEscaped()));
        layout->addWidget(heading);
        if (!b.note.isEmpty()) {
            auto* note = new QLabel(b.note);
            note->setWordWrap(true);
            note->setStyleSheet(QStringLiteral("color: #505050"));
            layout->addWidget(note);
        }
        const bool grows = b.kind != DetailsBlock::Kind::Table;
        layout->addWidget(blockWidget(b), grows ? 1 : 0, grows ? Qt::Alignment() : Qt::AlignLeft);
        layout->addSpacing(8);
        stretches |= grows;
    }
    if (!stretches)
        layout->addStretch(1);
    auto* scroll = new QScrollArea;
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(page);
    return scroll;
}
} // namespace

PlanDetailsView::PlanDetailsView(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    auto* top = new QHBoxLayout;
    summary_ = new QLabel;
    summary_->setWordWrap(true); // the options line can be long
    copy_ = new QPushButton(tr("Copy section"));
    copy_->setToolTip(tr("Copy the shown section as text (tables tab-separated)"));
    copy_->setEnabled(false);
    top->addWidget(summary_, 1);
    top->addWidget(copy_);
    layout->addLayout(top);
    summaryHeading_ = new QLabel(QStringLiteral("<b>%1</b>").arg(tr("Summary")));
    summaryTable_ = new QTableWidget(0, 2);
    summaryTable_->setHorizontalHeaderLabels({tr("Quantity"), tr("Value")});
    summaryTable_->verticalHeader()->hide();
    summaryTable_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    summaryTable_->setAlternatingRowColors(true);
    summaryTable_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    summaryTable_->horizontalHeader()->setStretchLastSection(true);
    summaryTable_->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    summaryTable_->setWordWrap(true);
    connect(summaryTable_->horizontalHeader(), &QHeaderView::sectionResized, this, [this](int column) {
        if (column == 1)
            QMetaObject::invokeMethod(this, &PlanDetailsView::fitSummaryHeight, Qt::QueuedConnection);
    });
    addCopyAction(summaryTable_);
    layout->addWidget(summaryHeading_);
    layout->addWidget(summaryTable_);
    stack_ = new QStackedWidget;
    message_ = new QLabel;
    message_->setAlignment(Qt::AlignCenter);
    message_->setWordWrap(true);
    tabs_ = new QTabWidget;
    tabs_->setDocumentMode(true);
    stack_->addWidget(message_);
    stack_->addWidget(tabs_);
    layout->addWidget(stack_, 1);
    connect(copy_, &QPushButton::clicked, this, &PlanDetailsView::copySection);
    clear();
}

void PlanDetailsView::showCurrent(const CurrentPlan& current)
{
    if (current.plan())
        setPlan(*current.plan());
    else
        clear();
}

void PlanDetailsView::clear()
{
    layout_ = {};
    summary_->clear();
    showSummary(nullptr);
    showMessage(tr("Run planners and select a plan to see what its planner decided: Ditto's folding, Oobleck's "
                   "templates, HetHub's metrics, HAP's synthesized program."));
}

void PlanDetailsView::showMessage(const QString& text)
{
    while (tabs_->count() > 0) {
        QWidget* w = tabs_->widget(0);
        tabs_->removeTab(0);
        w->deleteLater();
    }
    message_->setText(text);
    stack_->setCurrentWidget(message_);
    copy_->setEnabled(false);
}

void PlanDetailsView::setPlan(const Plan& plan)
{
    const QString previous = tabs_->count() > 0 ? tabs_->tabText(tabs_->currentIndex()) : QString();
    PlanDetailsLayout layout = layoutPlanDetails(plan);
    showMessage(tr("The plan by %1 has no planner-specific details: the Gantt chart and the stage map show its "
                   "decision.")
                    .arg(QString::fromStdString(plan.planner)));
    layout_ = std::move(layout);
    showSummary(&plan);
    summary_->setText(layout_.options.isEmpty() ? layout_.summary
                                                : layout_.summary + QLatin1Char('\n') + layout_.options);
    if (layout_.sections.empty())
        return;
    for (const DetailsSection& s : layout_.sections)
        tabs_->addTab(sectionWidget(s), s.title);
    // Keep the section the user was reading when the next plan has it too.
    for (int i = 0; i < tabs_->count(); ++i)
        if (tabs_->tabText(i) == previous)
            tabs_->setCurrentIndex(i);
    stack_->setCurrentWidget(tabs_);
    copy_->setEnabled(true);
}

QString PlanDetailsView::currentSectionText() const
{
    const int i = tabs_->currentIndex();
    if (i < 0 || i >= int(layout_.sections.size()))
        return {};
    return detailsSectionText(layout_.sections[i]);
}

namespace {
QString zeroStageText(int stage)
{
    switch (stage) {
    case 0: return PlanDetailsView::tr("0 — nothing sharded");
    case 1: return PlanDetailsView::tr("1 — optimizer states sharded over data parallelism");
    case 2: return PlanDetailsView::tr("2 — optimizer states and gradients sharded");
    default: return PlanDetailsView::tr("3 — optimizer states, gradients and parameters sharded");
    }
}
} // namespace

// The summary table as high as its rows (a layer split of several pipelines takes several lines), so it
// never scrolls; hidden when there is no plan or its summary cannot be computed.
void PlanDetailsView::showSummary(const Plan* plan)
{
    const std::optional<PlanSummary> s = plan ? summaryOfPlan(*plan) : std::nullopt;
    std::vector<SummaryRow> rows = s ? summaryRows(*s, plan->estimate.cost, toQString(costUnknownReason(plan->estimate))) : std::vector<SummaryRow>{};
    if (s) { // what each data-parallel copy shards, beside the degrees it shards over
        const auto degrees = std::find_if(rows.begin(), rows.end(),
                                          [](const SummaryRow& r) { return r.label == QObject::tr("Degrees"); });
        rows.insert(degrees == rows.end() ? rows.end() : degrees + 1,
                    {tr("ZeRO stage"), zeroStageText(plan->job.zeroStage), 0, false});
    }
    summaryTable_->setRowCount(int(rows.size()));
    for (int r = 0; r < int(rows.size()); ++r) {
        summaryTable_->setItem(r, 0, new QTableWidgetItem(rows[r].label));
        auto* value = new QTableWidgetItem(rows[r].value);
        value->setToolTip(rows[r].value);
        summaryTable_->setItem(r, 1, value);
    }
    fitSummaryHeight();
    summaryHeading_->setVisible(!rows.empty());
    summaryTable_->setVisible(!rows.empty());
}

// Rows as high as their wrapped text at the column's current width (the Bottleneck sentence takes two lines
// in a narrow window); called again whenever the value column changes width.
void PlanDetailsView::fitSummaryHeight()
{
    summaryTable_->resizeRowsToContents();
    int height = summaryTable_->horizontalHeader()->sizeHint().height() + 2 * summaryTable_->frameWidth();
    for (int r = 0; r < summaryTable_->rowCount(); ++r)
        height += summaryTable_->rowHeight(r);
    summaryTable_->setFixedHeight(height);
}

QString PlanDetailsView::summaryText() const { return summary_->text(); }

void PlanDetailsView::copySection() { QApplication::clipboard()->setText(currentSectionText()); }

} // namespace hetplan
