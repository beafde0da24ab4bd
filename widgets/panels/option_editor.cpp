#include "option_editor.h"

#include "core/base/qstrings.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QSpinBox>

#include <algorithm>
#include <climits>
#include <cmath>

namespace hetplan {

namespace {
int clampToInt(double v) { return int(std::clamp(v, double(INT_MIN), double(INT_MAX))); }
} // namespace

int decimalsFor(double value)
{
    for (int d = 2; d < 10; ++d)
        if (QString::number(value, 'f', d).toDouble() == value)
            return d;
    return 10;
}

OptionEditor::OptionEditor(OptionDecl option, QWidget* parent) : option_(std::move(option))
{
    widget_ = create(parent);
    widget_->setObjectName(qs(option_.key));
    widget_->setToolTip(qs(option_.help));
}

QWidget* OptionEditor::create(QWidget* parent) const
{
    const QString def = qs(option_.defaultValue);
    switch (option_.type) {
    case OptionType::Int: {
        auto* box = new QSpinBox(parent);
        box->setRange(clampToInt(option_.min), clampToInt(option_.max));
        box->setValue(def.toInt());
        return box;
    }
    case OptionType::Real: {
        auto* box = new QDoubleSpinBox(parent);
        box->setDecimals(decimalsFor(def.toDouble())); // before the value: the box rounds to its decimals
        box->setRange(option_.min, option_.max);
        box->setValue(def.toDouble());
        return box;
    }
    case OptionType::Bool: {
        auto* box = new QCheckBox(parent);
        box->setChecked(option_.defaultValue == "true");
        return box;
    }
    case OptionType::Choice: break;
    }
    auto* box = new QComboBox(parent);
    for (const std::string& c : option_.choices)
        box->addItem(qs(c));
    box->setCurrentText(def);
    return box;
}

std::string OptionEditor::text() const
{
    if (auto* i = qobject_cast<QSpinBox*>(widget_))
        return std::to_string(i->value());
    if (auto* r = qobject_cast<QDoubleSpinBox*>(widget_))
        return QString::number(r->value(), 'g', 12).toStdString();
    if (auto* b = qobject_cast<QCheckBox*>(widget_))
        return b->isChecked() ? "true" : "false";
    return qobject_cast<QComboBox*>(widget_)->currentText().toStdString();
}

void OptionEditor::setValue(const std::string& text)
{
    std::string v;
    try {
        v = option_.check(text);
    } catch (const std::exception&) {
        return;
    }
    if (auto* i = qobject_cast<QSpinBox*>(widget_))
        i->setValue(qs(v).toInt());
    else if (auto* r = qobject_cast<QDoubleSpinBox*>(widget_))
        r->setValue(qs(v).toDouble());
    else if (auto* b = qobject_cast<QCheckBox*>(widget_))
        b->setChecked(v == "true");
    else if (auto* c = qobject_cast<QComboBox*>(widget_))
        c->setCurrentText(qs(v));
}

// The editors only offer valid values, so check() only canonicalises here (e.g. a real's digits).
std::string OptionEditor::value() const { return option_.check(text()); }

} // namespace hetplan
