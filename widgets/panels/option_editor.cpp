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

OptionEditor::OptionEditor(OptionDecl option, QWidget* parent, FieldLook look)
    : option_(std::move(option)), look_(std::move(look))
{
    widget_ = create(parent);
    widget_->setObjectName(toQString(option_.key));
    widget_->setToolTip(toQString(option_.help));
    setValue(option_.defaultValue);
}

QWidget* OptionEditor::create(QWidget* parent) const
{
    const bool labelledInts = option_.type == OptionType::Int && !look_.valueLabels.empty();
    if (option_.type == OptionType::Choice || labelledInts) {
        // Items show the label and hold the canonical value.
        auto* box = new QComboBox(parent);
        const size_t n = labelledInts ? size_t(option_.max - option_.min + 1) : option_.choices.size();
        for (size_t i = 0; i < n; ++i) {
            const std::string value =
                labelledInts ? std::to_string(int(option_.min) + int(i)) : option_.choices[i];
            box->addItem(toQString(i < look_.valueLabels.size() ? look_.valueLabels[i] : value), toQString(value));
        }
        return box;
    }
    const QString suffix = toQString(look_.unit);
    switch (option_.type) {
    case OptionType::Int: {
        auto* box = new QSpinBox(parent);
        box->setRange(clampToInt(option_.min), clampToInt(option_.max));
        box->setSuffix(suffix);
        return box;
    }
    case OptionType::Real: {
        auto* box = new QDoubleSpinBox(parent);
        box->setRange(option_.min * look_.scale, option_.max * look_.scale);
        box->setSuffix(suffix);
        return box;
    }
    case OptionType::Bool:
    case OptionType::Choice: break;
    }
    return new QCheckBox(parent);
}

std::string OptionEditor::text() const
{
    if (auto* i = qobject_cast<QSpinBox*>(widget_))
        return std::to_string(i->value());
    if (auto* r = qobject_cast<QDoubleSpinBox*>(widget_))
        return QString::number(r->value() / look_.scale, 'g', 12).toStdString();
    if (auto* b = qobject_cast<QCheckBox*>(widget_))
        return b->isChecked() ? "true" : "false";
    return qobject_cast<QComboBox*>(widget_)->currentData().toString().toStdString();
}

void OptionEditor::setValue(const std::string& text)
{
    std::string v;
    try {
        v = option_.check(text);
    } catch (const std::exception&) {
        return;
    }
    if (auto* i = qobject_cast<QSpinBox*>(widget_)) {
        i->setValue(toQString(v).toInt());
    } else if (auto* r = qobject_cast<QDoubleSpinBox*>(widget_)) {
        // Twelve significant digits: 0.07 shown as 7 %, not 7.000000000000001 %.
        const double shown = QString::number(toQString(v).toDouble() * look_.scale, 'g', 12).toDouble();
        r->setDecimals(std::max(r->decimals(), decimalsFor(shown))); // before the value: the box rounds
        r->setValue(shown);
    } else if (auto* b = qobject_cast<QCheckBox*>(widget_)) {
        b->setChecked(v == "true");
    } else if (auto* c = qobject_cast<QComboBox*>(widget_)) {
        c->setCurrentIndex(c->findData(toQString(v)));
    }
}

void OptionEditor::onChanged(const std::function<void()>& f) const
{
    if (auto* i = qobject_cast<QSpinBox*>(widget_))
        QObject::connect(i, &QSpinBox::valueChanged, i, f);
    else if (auto* r = qobject_cast<QDoubleSpinBox*>(widget_))
        QObject::connect(r, &QDoubleSpinBox::valueChanged, r, f);
    else if (auto* b = qobject_cast<QCheckBox*>(widget_))
        QObject::connect(b, &QCheckBox::toggled, b, f);
    else if (auto* c = qobject_cast<QComboBox*>(widget_))
        QObject::connect(c, &QComboBox::currentIndexChanged, c, f);
}

// The editors only offer valid values, so check() only canonicalises here (e.g. a real's digits).
std::string OptionEditor::value() const { return option_.check(text()); }

} // namespace hetplan
