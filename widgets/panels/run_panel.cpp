#include "run_panel.h"

#include "core/base/qstrings.h"
#include "core/planners/planner.h"
#include "widgets/common/palette.h"
#include "widgets/models/project_tree.h"
#include "widgets/views/view_util.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSplitter>
#include <QTimer>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace hetplan {

namespace {
// The results table's columns.
enum Column { kPlanner, kStatus, kSimulated, kOwnEstimate, kTokens, kSearchTime, kMessage };
} // namespace

RunPanel::RunPanel(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    context_ = new QLabel;
    context_->setObjectName("RunContext");
    context_->setTextFormat(Qt::PlainText);
    context_->setStyleSheet(QStringLiteral("font-weight: bold"));
    context_->setToolTip(tr("The current cluster, model and job (batch size, sequence length) a run plans for"));
    layout->addWidget(context_);
    auto* split = new QSplitter(Qt::Vertical);
    planners_ = new QTreeWidget;
    planners_->setObjectName("plannerList");
    planners_->setHeaderLabels({tr("Planner / option"), tr("Value"), tr("Description")});
    planners_->setRootIsDecorated(true);
    for (const std::string& name : PlannerRegistry::instance().names())
        addPlanner(*PlannerRegistry::instance().create(name));
    planners_->expandAll();
    setChecked(defaultPlanners());
    connect(planners_, &QTreeWidget::itemChanged, this, [this](QTreeWidgetItem* it, int column) {
        if (!it->parent() && column == 0)
            emit plannersTicked(checkedPlanners());
    });
    planners_->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    planners_->header()->setSectionResizeMode(1, QHeaderView::Fixed);
    planners_->header()->resizeSection(1, 150);

    auto* top = new QWidget;
    auto* topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    auto* hint = new QLabel(tr("Tick the planners to run on the current cluster, model and job. "
                               "Options start at their defaults; hover over one for its meaning."));
    hint->setWordWrap(true); // one long line would set the window's minimum width
    topLayout->addWidget(hint);
    notice_ = new QLabel;
    notice_->setObjectName("runNotice");
    notice_->setWordWrap(true);
    notice_->setStyleSheet("color: #b00020");
    notice_->setVisible(false);
    topLayout->addWidget(notice_);
    topLayout->addWidget(planners_);
    topLayout->addLayout(objectiveRow());
    auto* buttons = new QHBoxLayout;
    // No shortcut on the button: F5 belongs to Run ▸ Run Planners, which works from every tab (a second
    // F5 here made the key ambiguous on this tab, and neither fired).
    run_ = new QPushButton(tr("Run planners"));
    run_->setToolTip(tr("Run the ticked planners (F5 from any tab)"));
    cancel_ = new QPushButton(tr("Cancel"));
    cancel_->setEnabled(false);
    buttons->addWidget(run_);
    buttons->addWidget(cancel_);
    live_ = new QCheckBox(tr("Live"));
    live_->setObjectName("RunLive");
    live_->setToolTip(tr("Re-run the ticked planners (up to 1 s each) after every cluster, model, profile or job "
                         "edit and show the best plan; the project keeps one live run (Run ▸ Live)"));
    buttons->addWidget(live_);
    buttons->addWidget(select_);
    buttons->addStretch();
    topLayout->addLayout(buttons);
    split->addWidget(top);

    results_ = new QTreeWidget;
    results_->setRootIsDecorated(true); // plans with metrics of their own expand to show them
    results_->setHeaderLabels({tr("Planner"), tr("Status"), tr("Simulated s/iter"), tr("Planner's own s/iter"),
                               tr("Tokens/s"), tr("Search time"), tr("Message")});
    results_->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    results_->header()->setStretchLastSection(true);
    split->addWidget(results_);
    details_ = new QPlainTextEdit;
    details_->setReadOnly(true);
    details_->setPlaceholderText(tr("Select a result to read its whole message here."));
    split->addWidget(details_);
    split->setStretchFactor(0, 3); // the option editors need the room more than a few result rows
    split->setStretchFactor(1, 1);
    split->setStretchFactor(2, 0);
    split->setSizes({360, 150, 60}); // the details pane: a few lines; it scrolls, or drag it taller
    layout->addWidget(split);
    tick_ = new QTimer(this);
    tick_->setInterval(250); // the running row's elapsed time
    connect(tick_, &QTimer::timeout, this, &RunPanel::refreshRunningRow);

    connect(run_, &QPushButton::clicked, this, &RunPanel::runRequested);
    connect(cancel_, &QPushButton::clicked, this, &RunPanel::cancelRequested);
    connect(live_, &QCheckBox::toggled, this, &RunPanel::liveToggled);
    connect(results_, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* it) {
        showDetails(it);
        if (it && it != runningItem_)
            emit resultActivated(it->data(0, kRoleRun).toInt(), it->data(0, kRoleResult).toInt());
    });
}

QHBoxLayout* RunPanel::objectiveRow()
{
    auto* row = new QHBoxLayout;
    goal_ = new QComboBox;
    goal_->setObjectName("RunGoal");
    goal_->addItem(tr("Fastest"), QStringLiteral("time"));
    goal_->addItem(tr("Cheapest per token"), QStringLiteral("cost"));
    goal_->setToolTip(tr("What every planner's plan minimises: the iteration time, or the dollars per million "
                         "tokens at the GPUs' prices (catalog, or a node's own price). Cheapest also tries "
                         "leaving GPUs out."));
    budget_ = new QDoubleSpinBox;
    budget_->setObjectName("RunBudget");
    budget_->setRange(0, 1e6);
    budget_->setDecimals(2);
    budget_->setSuffix(tr(" /h"));
    budget_->setSpecialValueText(tr("no budget"));
    budget_->setToolTip(tr("Only plans whose GPUs cost at most this per hour; GPUs left idle cost nothing"));
    floor_ = new QDoubleSpinBox;
    floor_->setObjectName("RunThroughputFloor");
    floor_->setRange(0, 1e12);
    floor_->setDecimals(0);
    floor_->setSingleStep(1000);
    floor_->setSuffix(tr(" tokens/s"));
    floor_->setSpecialValueText(tr("no floor"));
    floor_->setToolTip(tr("Only plans reaching at least this many tokens per second"));
    select_ = new QCheckBox(tr("Choose GPUs"));
    select_->setObjectName("RunSelectGpus");
    select_->setToolTip(tr("Also plan on subsets of the nodes (without a GPU type, fewer nodes) and keep the best "
                           "plan; the plan says which GPUs it leaves out and why. A cost goal, a budget or a "
                           "floor always do this."));
    // One short line (the Run tab must fit a 1024-pixel window beside the docks): the boxes say what they
    // hold ("no budget", "$40.00 /h", "no floor", "5000 tokens/s"), their tooltips the rest.
    budget_->setPrefix(tr("budget $"));
    floor_->setPrefix(tr("floor "));
    row->addWidget(goal_);
    row->addWidget(budget_);
    row->addWidget(floor_);
    row->addStretch();
    // The constraints imply choosing GPUs: the box shows it ticked and fixed while they are set, and the
    // user's own tick comes back when they are cleared.
    connect(select_, &QCheckBox::toggled, this, [this](bool on) {
        if (select_->isEnabled())
            userSelect_ = on;
    });
    const auto sync = [this] {
        const bool implied = !objective().isDefault();
        select_->setEnabled(!implied);
        select_->setChecked(implied || userSelect_);
    };
    connect(goal_, &QComboBox::currentIndexChanged, this, sync);
    connect(budget_, &QDoubleSpinBox::valueChanged, this, sync);
    connect(floor_, &QDoubleSpinBox::valueChanged, this, sync);
    return row;
}

Objective RunPanel::objective() const
{
    Objective o;
    parseObjectiveGoal(goal_->currentData().toString().toStdString(), o.goal);
    o.budgetDollarsPerHour = budget_->value();
    o.minTokensPerSecond = floor_->value();
    return o;
}

void RunPanel::setObjective(const Objective& o)
{
    goal_->setCurrentIndex(goal_->findData(QString::fromStdString(toString(o.goal))));
    budget_->setValue(o.budgetDollarsPerHour);
    floor_->setValue(o.minTokensPerSecond);
}

bool RunPanel::selectGpus() const { return select_->isChecked(); }
void RunPanel::setSelectGpus(bool on) { select_->setChecked(on); }

std::vector<std::string> RunPanel::checkedPlanners() const
{
    std::vector<std::string> out;
    for (int i = 0; i < planners_->topLevelItemCount(); ++i)
        if (planners_->topLevelItem(i)->checkState(0) == Qt::Checked)
            out.push_back(planners_->topLevelItem(i)->text(0).toStdString());
    return out;
}

bool RunPanel::isLive() const { return live_->isChecked(); }

void RunPanel::setLive(bool on) { live_->setChecked(on); }

void RunPanel::setChecked(const std::vector<std::string>& planners)
{
    const QSignalBlocker quiet(planners_);
    for (int i = 0; i < planners_->topLevelItemCount(); ++i) {
        QTreeWidgetItem* it = planners_->topLevelItem(i);
        const bool on = std::find(planners.begin(), planners.end(), it->text(0).toStdString()) != planners.end();
        it->setCheckState(0, on ? Qt::Checked : Qt::Unchecked);
    }
}

void RunPanel::addPlanner(const Planner& planner)
{
    auto* item = new QTreeWidgetItem(planners_, {toQString(planner.name()), QString(), toQString(planner.description())});
    item->setIcon(0, palette::plannerIcon(planner.name()));
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    item->setCheckState(0, Qt::Unchecked);
    item->setToolTip(2, toQString(planner.description()));
    std::vector<OptionEditor>& editors = editors_[planner.name()];
    for (const PlannerOption& o : planner.options()) {
        auto* row = new QTreeWidgetItem(item, {toQString(o.label), QString(), toQString(o.help)});
        // The key and its type are what the CLI's --option key=value takes.
        const QString tip = QStringLiteral("%1\n%2 = %3").arg(toQString(o.help), toQString(o.key), toQString(o.typeName()));
        row->setToolTip(0, tip);
        row->setToolTip(2, tip);
        editors.emplace_back(o, planners_);
        planners_->setItemWidget(row, 1, editors.back().widget());
    }
}

std::map<std::string, std::map<std::string, std::string>> RunPanel::options() const
{
    std::map<std::string, std::map<std::string, std::string>> out;
    for (const auto& [planner, editors] : editors_)
        for (const OptionEditor& e : editors)
            if (!e.isDefault())
                out[planner][e.option().key] = e.value();
    return out;
}

QWidget* RunPanel::optionEditor(const std::string& planner, const std::string& key) const
{
    auto it = editors_.find(planner);
    if (it == editors_.end())
        return nullptr;
    for (const OptionEditor& e : it->second)
        if (e.option().key == key)
            return e.widget();
    return nullptr;
}

void RunPanel::setContext(const QString& text) { context_->setText(text); }

QString RunPanel::context() const { return context_->text(); }

void RunPanel::setRunning(bool running)
{
    run_->setEnabled(!running);
    cancel_->setEnabled(running);
    if (running) {
        runningRunId_ = shownRunId_;
        return;
    }
    runningIndex_ = -1;
    runningPlanner_.clear();
    tick_->stop();
    delete runningItem_;
    runningItem_ = nullptr;
}

void RunPanel::startPlanner(int index, const QString& planner)
{
    runningIndex_ = index;
    runningPlanner_ = planner;
    runningText_ = tr("starting");
    runningClock_.start();
    tick_->start();
    refreshRunningRow();
}

void RunPanel::setPlannerProgress(const QString& text)
{
    if (runningPlanner_.isEmpty())
        return;
    // The run prefixes each report with the planner's name; the row already says it.
    const QString prefix = runningPlanner_ + QStringLiteral(": ");
    runningText_ = text.startsWith(prefix) ? text.mid(prefix.size()) : text;
    refreshRunningRow();
}

QString RunPanel::elapsedText(double seconds)
{
    if (seconds < 60)
        return tr("%1 s").arg(seconds, 0, 'f', 1);
    const int whole = int(seconds);
    return tr("%1 min %2 s").arg(whole / 60).arg(whole % 60, 2, 10, QLatin1Char('0'));
}

// The running row follows the results, until the running planner's own result is among them.
void RunPanel::refreshRunningRow()
{
    const bool show =
        !runningPlanner_.isEmpty() && shownRunId_ == runningRunId_ && shownResults_ <= size_t(runningIndex_);
    if (!show) {
        delete runningItem_;
        runningItem_ = nullptr;
        return;
    }
    if (!runningItem_) {
        runningItem_ = new QTreeWidgetItem(results_);
        QFont italic = runningItem_->font(kStatus);
        italic.setItalic(true);
        runningItem_->setFont(kStatus, italic);
        runningItem_->setTextAlignment(kSearchTime, Qt::AlignRight | Qt::AlignVCenter);
    }
    runningItem_->setText(kPlanner, runningPlanner_);
    runningItem_->setText(kStatus, tr("running…"));
    runningItem_->setText(kSearchTime, elapsedText(runningClock_.elapsed() / 1000.0));
    runningItem_->setText(kMessage, runningText_);
    runningItem_->setToolTip(kMessage, runningText_);
    if (results_->currentItem() == runningItem_)
        showDetails(runningItem_);
}

void RunPanel::showDetails(QTreeWidgetItem* item)
{
    if (!item) {
        details_->clear();
        return;
    }
    while (item->parent()) // a plan's metric row: its result's message
        item = item->parent();
    details_->setPlainText(QStringLiteral("%1 — %2\n%3").arg(item->text(kPlanner), item->text(kStatus),
                                                              item->toolTip(kMessage)));
}

namespace {
// A plan's own metrics (the scalar values of its planner sections, e.g. HetHub's MFU and upper bound) as
// child rows of its result: "hethub · mfu" in the first column, the value in the second.
void addDetailRows(QTreeWidgetItem* parent, const Plan& plan)
{
    for (const auto& [section, object] : plan.details)
        for (auto it = object.begin(); it != object.end(); ++it) {
            QString value;
            if (it.value().isDouble())
                value = QString::number(it.value().toDouble(), 'g', 4);
            else if (it.value().isBool())
                value = it.value().toBool() ? QStringLiteral("yes") : QStringLiteral("no");
            else if (it.value().isString())
                value = it.value().toString();
            else
                continue; // arrays and objects: see the plan JSON
            auto* row = new QTreeWidgetItem(
                parent, {QString::fromStdString(section) + QStringLiteral(" · ") + it.key(), value});
            row->setData(0, kRoleRun, parent->data(0, kRoleRun)); // selecting it shows its plan
            row->setData(0, kRoleResult, parent->data(0, kRoleResult));
        }
}
} // namespace

void RunPanel::showRun(const Run& run)
{
    runningItem_ = nullptr; // clear() deletes it
    results_->clear();
    for (size_t i = 0; i < run.results.size(); ++i) {
        const RunResult& r = run.results[i];
        QStringList cols{QString::fromStdString(r.planner), QString::fromStdString(toString(r.status))};
        if (r.plan) {
            cols << QString::number(r.plan->estimate.iterationSeconds, 'f', 4)
                 << (r.plan->plannerEstimate ? QString::number(*r.plan->plannerEstimate, 'f', 4) : QString("–"))
                 << QString::number(r.plan->estimate.tokensPerSecond, 'f', 0)
                 << viewutil::formatDuration(r.plan->search.seconds);
        } else {
            cols << "–"
                 << "–"
                 << "–" << viewutil::formatDuration(r.durationSeconds);
        }
        cols << QString::fromStdString(r.message);
        auto* it = new QTreeWidgetItem(results_, cols);
        it->setIcon(kPlanner, palette::plannerIcon(r.planner));
        it->setData(0, kRoleRun, run.id);
        it->setData(0, kRoleResult, int(i));
        it->setToolTip(kMessage, cols.back()); // long messages: whole in the tooltip and the details pane
        for (int c = kSimulated; c <= kSearchTime; ++c)
            it->setTextAlignment(c, Qt::AlignRight | Qt::AlignVCenter);
        if (r.plan)
            addDetailRows(it, *r.plan);
    }
    shownResults_ = run.results.size();
    shownRunId_ = run.id;
    refreshRunningRow();
}

void RunPanel::setNotice(const QString& text)
{
    notice_->setText(text);
    notice_->setVisible(!text.isEmpty());
}

QString RunPanel::notice() const { return notice_->text(); }

} // namespace hetplan
