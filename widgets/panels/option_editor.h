#pragma once
// The editor of one typed option (a planner's in the Run tab, a profile format's in the import dialog): a
// QSpinBox (Int, within its range), a QDoubleSpinBox (Real), a QCheckBox (Bool) or a QComboBox (Choice),
// starting at the option's default, with its help as tooltip. A FieldLook (a struct field's table row) adds a
// unit suffix, a display scale (a fraction shown as a percentage) and labelled drop-down values.
#include "core/base/fields.h"

#include <functional>
#include <string>

class QWidget;

namespace hetplan {

class OptionEditor {
public:
    OptionEditor(OptionDecl option, QWidget* parent, FieldLook look = {});

    const OptionDecl& option() const { return option_; }
    QWidget* widget() const { return widget_; }
    // What the editor shows, as the option's canonical text (PlannerOption::check).
    std::string value() const;
    bool isDefault() const { return value() == option_.defaultValue; }
    // Shows `text` (a value check() accepts; anything else is ignored).
    void setValue(const std::string& text);
    // Calls `f` whenever the user (or setValue) changes the value.
    void onChanged(const std::function<void()>& f) const;

private:
    QWidget* create(QWidget* parent) const;
    std::string text() const;

    OptionDecl option_;
    FieldLook look_;
    QWidget* widget_;
};

// Decimals a QDoubleSpinBox needs to show `value` exactly (2 at least, 10 at most).
int decimalsFor(double value);

} // namespace hetplan
