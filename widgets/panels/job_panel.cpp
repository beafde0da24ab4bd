#include "job_panel.h"

#include "core/base/qstrings.h"
#include "core/model/job_fields.h"
#include "option_editor.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>

namespace hetplan {

JobPanel::JobPanel(QWidget* parent) : QWidget(parent)
{
    auto* form = new QFormLayout(this);
    form->setRowWrapPolicy(QFormLayout::WrapLongRows); // a narrow dock puts labels above their fields
    for (const FieldSpec<Job>& f : jobFields()) {
        // The labels are the ones error messages use (gui_errors.h), so an error names the field seen here.
        editors_.emplace_back(f.decl, this, f.look);
        QWidget* w = editors_.back().widget();
        // A drop-down as wide as its longest label ("3 — + parameters") would push its row onto two lines.
        if (auto* box = qobject_cast<QComboBox*>(w)) {
            box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
            box->setMinimumContentsLength(6);
        }
        // A switch carries its label, as check boxes do, which keeps a narrow dock to one line per row.
        if (auto* box = qobject_cast<QCheckBox*>(w)) {
            box->setText(toQString(f.decl.label));
            form->addRow(QString(), w);
        } else {
            form->addRow(toQString(f.decl.label), w);
        }
        editors_.back().onChanged([this, key = f.decl.key] { emitEdited(key); });
    }
    setJob(Job{});
}

JobPanel::~JobPanel() = default;

QWidget* JobPanel::editor(const std::string& key) const
{
    for (const OptionEditor& e : editors_)
        if (e.option().key == key)
            return e.widget();
    return nullptr;
}

void JobPanel::setJob(const Job& j)
{
    updating_ = true;
    const auto& fields = jobFields();
    for (size_t i = 0; i < fields.size(); ++i)
        editors_[i].setValue(fieldText(fields[i], j));
    // TF32 only changes fp32 jobs; the box keeps its value but is greyed out for 16-bit ones.
    editor("tf32")->setEnabled(j.precision == Precision::FP32);
    updating_ = false;
}

Job JobPanel::job() const
{
    Job j;
    const auto& fields = jobFields();
    for (size_t i = 0; i < fields.size(); ++i)
        setFieldText(fields[i], j, editors_[i].value(), "job");
    return j;
}

void JobPanel::emitEdited(const std::string& changed)
{
    if (updating_)
        return;
    // Full and selective recomputation exclude each other (Megatron's --recompute-granularity takes one):
    // ticking one unticks the other, as radio buttons would.
    Job j = job();
    if (j.recompute && j.selectiveRecompute) {
        const bool keepFull = changed == "recompute";
        j.recompute = keepFull;
        j.selectiveRecompute = !keepFull;
        setJob(j);
    }
    editor("tf32")->setEnabled(j.precision == Precision::FP32);
    emit jobEdited(j);
}

} // namespace hetplan
