#pragma once
// The editor of one typed planner option in the Run tab: a QSpinBox (Int, within its range), a
// QDoubleSpinBox (Real), a QCheckBox (Bool) or a QComboBox (Choice), starting at the option's default, with
// its help as tooltip.
#include "core/planners/planner.h"

#include <string>

class QWidget;

namespace hetplan {

class OptionEditor {
public:
    OptionEditor(PlannerOption option, QWidget* parent);

    const PlannerOption& option() const { return option_; }
    QWidget* widget() const { return widget_; }
    // What the editor shows, as the option's canonical text (PlannerOption::check).
    std::string value() const;
    bool isDefault() const { return value() == option_.defaultValue; }

private:
    QWidget* create(QWidget* parent) const;
    std::string text() const;

    PlannerOption option_;
    QWidget* widget_;
};

// Decimals a QDoubleSpinBox needs to show `value` exactly (2 at least, 10 at most).
int decimalsFor(double value);

} // namespace hetplan
