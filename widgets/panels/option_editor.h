#pragma once
// The editor of one typed option (a planner's in the Run tab, a profile format's in the import dialog): a
// QSpinBox (Int, within its range), a QDoubleSpinBox (Real), a QCheckBox (Bool) or a QComboBox (Choice),
// starting at the option's default, with its help as tooltip.
#include "core/base/options.h"

#include <string>

class QWidget;

namespace hetplan {

class OptionEditor {
public:
    OptionEditor(OptionDecl option, QWidget* parent);

    const OptionDecl& option() const { return option_; }
    QWidget* widget() const { return widget_; }
    // What the editor shows, as the option's canonical text (PlannerOption::check).
    std::string value() const;
    bool isDefault() const { return value() == option_.defaultValue; }
    // Shows `text` (a value check() accepts; anything else is ignored).
    void setValue(const std::string& text);

private:
    QWidget* create(QWidget* parent) const;
    std::string text() const;

    OptionDecl option_;
    QWidget* widget_;
};

// Decimals a QDoubleSpinBox needs to show `value` exactly (2 at least, 10 at most).
int decimalsFor(double value);

} // namespace hetplan
