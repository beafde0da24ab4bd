#include "whatif_panel.h"

#include "core/base/errors.h"
#include "widgets/common/gui_errors.h"
#include "widgets/controller/sweep_controller.h"

#include <QComboBox>
#include <QCompleter>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QStringListModel>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

namespace hetplan {

namespace {

const char* const kSource = "What-if";

struct Parameter {
    const char* axis;
    const char* label;
    const char* example; // the field's placeholder
};
const Parameter kParameters[] = {
    {"gbs", QT_TRANSLATE_NOOP("WhatIfPanel", "Global batch size"), "16,32,64"},
    {"seq", QT_TRANSLATE_NOOP("WhatIfPanel", "Sequence length"), "512,1024,2048"},
    {"zero", QT_TRANSLATE_NOOP("WhatIfPanel", "ZeRO stage"), "0,1,2,3"},
    {"without", QT_TRANSLATE_NOOP("WhatIfPanel", "Without node"), "none,NODE,..."},
};

// The sweep's reason in GUI words: the field named as this tab names it, no CLI flags and no internal
// source names (a node check reports from "What-if without").
QString errorText(const InputError& e)
{
    const std::string prefix = std::string(kSource) + " ";
    for (const Parameter& p : kParameters)
        if (e.field() == p.axis || e.file() == prefix + p.axis) {
            const std::string& r = e.reason();
            const QString reason = r == "no values given"
                                       ? WhatIfPanel::tr("enter one or more values separated by commas")
                                       : withoutCliFlags(QString::fromStdString(r));
            return WhatIfPanel::tr("%1: %2").arg(WhatIfPanel::tr(p.label), reason);
        }
    return guiErrorText(e);
}

// Completes the last of the comma-separated values from a list (the cluster's node names).
class LastValueCompleter : public QCompleter {
public:
    using QCompleter::QCompleter;
    QStringList splitPath(const QString& path) const override { return {path.section(',', -1).trimmed()}; }
    QString pathFromIndex(const QModelIndex& index) const override
    {
        const QString typed = widget() ? static_cast<QLineEdit*>(widget())->text() : QString();
        const int comma = typed.lastIndexOf(',');
        return typed.left(comma + 1) + QCompleter::pathFromIndex(index);
    }
};

QStringList nodeNames(const Cluster& cluster)
{
    QStringList names;
    for (const Node& n : cluster.nodes)
        if (!n.failed)
            names << QString::fromStdString(n.name);
    return names;
}

QTableWidgetItem* cell(const QString& text, Qt::Alignment align = Qt::AlignLeft | Qt::AlignVCenter)
{
    auto* item = new QTableWidgetItem(text);
    item->setTextAlignment(align);
    item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
    return item;
}

QString number(double v, int decimals) { return std::isfinite(v) && v > 0 ? QString::number(v, 'f', decimals) : "–"; }

} // namespace

WhatIfPanel::WhatIfPanel(QWidget* parent) : QWidget(parent), controller_(new SweepController(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(buildForm());
    auto* split = new QSplitter(Qt::Vertical, this);
    view_ = new WhatIfView(split);
    buildTable();
    split->addWidget(view_);
    split->addWidget(table_);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setSizes({360, 240});
    layout->addWidget(split, 1);
    connect(controller_, &SweepController::progress, this, &WhatIfPanel::onProgress);
    connect(controller_, &SweepController::finished, this, &WhatIfPanel::onFinished);
    setRunning(false);
    onParameterChanged();
}

QWidget* WhatIfPanel::buildForm()
{
    auto* form = new QWidget(this);
    auto* grid = new QFormLayout(form);
    parameterBox_ = new QComboBox(form);
    parameterBox_->setObjectName("WhatIfParameter");
    for (const Parameter& p : kParameters)
        parameterBox_->addItem(tr(p.label), QString::fromLatin1(p.axis));
    valuesEdit_ = new QLineEdit(form);
    valuesEdit_->setObjectName("WhatIfValues");
    valuesEdit_->setText("16,32,64");
    valuesEdit_->setToolTip(tr("The values to plan at, separated by commas; every ticked planner plans each one"));
    nodeNames_ = new QStringListModel(form);
    auto* completer = new LastValueCompleter(nodeNames_, form);
    completer->setCaseSensitivity(Qt::CaseInsensitive);
    valuesEdit_->setCompleter(completer);
    errorLabel_ = new QLabel(form);
    errorLabel_->setObjectName("WhatIfError");
    errorLabel_->setStyleSheet("color: #b00020");
    errorLabel_->setWordWrap(true);
    errorLabel_->setVisible(false);
    plannersLabel_ = new QLabel(form);
    plannersLabel_->setWordWrap(true);

    runButton_ = new QPushButton(tr("Run sweep"), form);
    runButton_->setObjectName("WhatIfRun");
    cancelButton_ = new QPushButton(tr("Cancel"), form);
    cancelButton_->setObjectName("WhatIfCancel");
    progress_ = new QProgressBar(form);
    progress_->setFormat(tr("%v of %m planned"));
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(runButton_);
    buttons->addWidget(cancelButton_);
    buttons->addWidget(progress_, 3);
    buttons->addStretch(1); // the buttons keep their size while the progress bar is hidden

    grid->addRow(tr("Vary"), parameterBox_);
    grid->addRow(tr("Values"), valuesEdit_);
    grid->addRow(QString(), errorLabel_);
    grid->addRow(tr("Planners"), plannersLabel_);
    grid->addRow(QString(), buttons);

    connect(parameterBox_, &QComboBox::currentIndexChanged, this, &WhatIfPanel::onParameterChanged);
    connect(valuesEdit_, &QLineEdit::textChanged, this, &WhatIfPanel::updateRunButton);
    connect(valuesEdit_, &QLineEdit::returnPressed, this, &WhatIfPanel::startSweep);
    connect(runButton_, &QPushButton::clicked, this, &WhatIfPanel::startSweep);
    connect(cancelButton_, &QPushButton::clicked, this, &WhatIfPanel::cancelSweep);
    return form;
}

void WhatIfPanel::buildTable()
{
    table_ = new QTableWidget(0, 6, this);
    table_->setObjectName("WhatIfTable");
    table_->setHorizontalHeaderLabels(
        {tr("Value"), tr("Planner"), tr("Iteration (ms)"), tr("Tokens/s"), tr("$ / M tokens"), tr("Result")});
    table_->verticalHeader()->setVisible(false);
    table_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6); // compact: more rows in view
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
}

void WhatIfPanel::setParameter(const std::string& axis)
{
    parameterBox_->setCurrentIndex(parameterBox_->findData(QString::fromStdString(axis)));
}

std::string WhatIfPanel::parameter() const { return parameterBox_->currentData().toString().toStdString(); }

void WhatIfPanel::onParameterChanged()
{
    const int i = std::max(0, parameterBox_->currentIndex());
    valuesEdit_->setPlaceholderText(tr("e.g. %1").arg(kParameters[i].example));
    // Values typed for the previous parameter rarely suit this one (a batch size is no node name): start
    // from a sweep that runs, the user's own values for this parameter if they were set before.
    const QString axis = QString::fromLatin1(kParameters[i].axis);
    valuesEdit_->setText(typedValues_.value(axis, defaultValues(kParameters[i].axis)));
    updateRunButton();
}

QString WhatIfPanel::defaultValues(const std::string& axis) const
{
    const auto base = requestSource_ ? requestSource_() : std::nullopt;
    if (axis == "without") {
        const QStringList nodes = base ? nodeNames(base->cluster) : QStringList{};
        return nodes.isEmpty() ? QStringLiteral("none") : QStringLiteral("none,") + nodes.front();
    }
    for (const Parameter& p : kParameters)
        if (axis == p.axis)
            return QString::fromLatin1(p.example);
    return {};
}

void WhatIfPanel::showError(const QString& text)
{
    errorLabel_->setText(text);
    errorLabel_->setVisible(!text.isEmpty());
}

std::optional<SweepAxis> WhatIfPanel::checkedAxis()
{
    // No spaces in the parser's grammar; "16, 32" is what people type.
    const QString values = valuesEdit_->text().remove(' ');
    typedValues_[parameterBox_->currentData().toString()] = valuesEdit_->text();
    try {
        const SweepAxis parsed = parseSweepAxis(parameter() + "=" + values.toStdString(), kSource);
        std::vector<SweepAxis> axes;
        addSweepAxis(axes, parsed, kSource); // refuses a value given twice
        const auto base = requestSource_ ? requestSource_() : std::nullopt;
        if (base && parsed.name == "without")
            sweepRequestsFor(*base, parsed, kSource); // the node names, as typed rather than on Run
        showError({});
        return axes.front();
    } catch (const InputError& e) {
        QString text = errorText(e);
        const auto base = requestSource_ ? requestSource_() : std::nullopt;
        if (base && parameter() == "without")
            text += tr(" (nodes: %1)").arg(nodeNames(base->cluster).join(", "));
        showError(text);
        return std::nullopt;
    }
}

void WhatIfPanel::updateRunButton()
{
    if (isRunning())
        return;
    const auto base = requestSource_ ? requestSource_() : std::nullopt;
    nodeNames_->setStringList(base ? nodeNames(base->cluster) : QStringList{});
    const bool valid = checkedAxis().has_value();
    const bool planners = plannerSource_ && !plannerSource_().empty();
    runButton_->setEnabled(valid && planners && base);
    runButton_->setToolTip(!valid      ? tr("Correct the values first (the reason is under the field)")
                           : !planners ? tr("Tick at least one planner in the Run tab")
                           : !base     ? tr("The project needs a cluster and a model before a sweep")
                                       : tr("Plan every value with every ticked planner"));
}

void WhatIfPanel::refreshPlanners()
{
    const auto planners = plannerSource_ ? plannerSource_() : std::vector<std::string>{};
    QStringList names;
    for (const std::string& p : planners)
        names << QString::fromStdString(p);
    plannersLabel_->setText(names.isEmpty() ? tr("none ticked: tick planners in the Run tab")
                                            : tr("%1 (ticked in the Run tab, with its options)").arg(names.join(", ")));
    updateRunButton();
}

bool WhatIfPanel::startSweep()
{
    refreshPlanners();
    if (isRunning())
        return false;
    const std::optional<SweepAxis> axis = checkedAxis();
    if (!axis)
        return false;
    const auto planners = plannerSource_ ? plannerSource_() : std::vector<std::string>{};
    const auto base = requestSource_ ? requestSource_() : std::nullopt;
    if (planners.empty() || !base) {
        showError(planners.empty() ? tr("Tick at least one planner in the Run tab")
                                   : tr("The project needs a cluster and a model before a sweep"));
        return false;
    }
    std::vector<std::pair<SweepPoint, PlanRequest>> requests;
    try {
        requests = sweepRequestsFor(*base, *axis, kSource);
    } catch (const InputError& e) {
        showError(errorText(e));
        return false;
    }
    pending_ = {*axis, planners, {}, base->cluster.name, base->model.name};
    controller_->start(std::move(requests), planners, 0, optionsSource_ ? optionsSource_() : PlannerOptions{});
    progress_->setRange(0, int(axis->values.size() * planners.size()));
    progress_->setValue(0);
    setRunning(true);
    emit message(tr("Sweeping %1 over %2 value(s) with %3 planner(s)…")
                     .arg(WhatIfView::axisLabel(axis->name))
                     .arg(axis->values.size())
                     .arg(planners.size()),
                 false);
    return true;
}

void WhatIfPanel::cancelSweep() { controller_->cancel(); }

bool WhatIfPanel::isRunning() const { return controller_->isRunning(); }

void WhatIfPanel::setRunning(bool running)
{
    runButton_->setEnabled(!running);
    cancelButton_->setEnabled(running);
    progress_->setVisible(running);
    if (!running)
        updateRunButton();
}

void WhatIfPanel::onProgress(int finished, int total)
{
    progress_->setRange(0, total);
    progress_->setValue(finished);
}

void WhatIfPanel::onFinished()
{
    setRunning(false);
    pending_.rows = controller_->rows();
    fillTable(pending_.rows);
    view_->setSweep(pending_);
    const auto ok = std::count_if(pending_.rows.begin(), pending_.rows.end(),
                                  [](const SweepRow& r) { return r.status == RunStatus::Ok && r.feasible; });
    emit message(controller_->wasCancelled()
                     ? tr("Sweep cancelled: %1 of %2 rows have a plan").arg(ok).arg(pending_.rows.size())
                     : tr("Sweep finished: %1 of %2 rows have a plan that fits").arg(ok).arg(pending_.rows.size()),
                 false);
    emit sweepFinished();
}

void WhatIfPanel::fillTable(const std::vector<SweepRow>& rows)
{
    table_->setRowCount(int(rows.size()));
    table_->horizontalHeaderItem(0)->setText(WhatIfView::axisLabel(pending_.axis.name));
    const Qt::Alignment right = Qt::AlignRight | Qt::AlignVCenter;
    for (int i = 0; i < int(rows.size()); ++i) {
        const SweepRow& r = rows[size_t(i)];
        const bool hasPlan = r.status == RunStatus::Ok && r.feasible;
        const QString result = hasPlan ? tr("plan fits")
                               : r.status == RunStatus::Ok ? tr("does not fit memory")
                                                  : QString::fromStdString(toString(r.status));
        const QString value = r.point.empty() ? QString() : QString::fromStdString(r.point.front().second);
        const QList<QTableWidgetItem*> items{
            cell(value),
            cell(QString::fromStdString(r.planner)),
            cell(hasPlan || r.iterationSeconds > 0 ? number(r.iterationSeconds * 1e3, 1) : "–", right),
            cell(hasPlan ? number(r.tokensPerSecond, 0) : "–", right),
            cell(hasPlan && r.cost ? number(r.cost->dollarsPerMillionTokens, 3) : "–", right),
            cell(result)};
        for (int c = 0; c < items.size(); ++c) {
            if (!hasPlan) {
                items[c]->setForeground(QColor(0xb0, 0x00, 0x20));
                items[c]->setToolTip(r.error.empty() ? result : withoutCliFlags(QString::fromStdString(r.error)));
            }
            table_->setItem(i, c, items[c]);
        }
    }
    table_->resizeColumnsToContents();
}

} // namespace hetplan
