#include "gui_errors.h"

#include "core/base/errors.h"
#include "core/base/qstrings.h"
#include "core/model/job_fields.h"
#include "core/planners/planner.h"

#include <QCoreApplication>
#include <QRegularExpression>

#include <utility>

namespace hetplan {

namespace {
QString tr(const char* text) { return QCoreApplication::translate("GuiErrors", text); }

std::string withoutDashes(const std::string& name)
{
    size_t i = 0;
    while (i < name.size() && name[i] == '-')
        ++i;
    return name.substr(i);
}

// Where an input lives in the GUI, by the "file" an InputError names (a JSON document or a CLI flag).
QString placeOf(const std::string& file)
{
    if (file == "job")
        return tr("Job panel");
    if (file == "cluster")
        return tr("Cluster");
    if (file == "model")
        return tr("Model");
    if (file == "--reuse")
        return tr("Stored pipeline templates");
    if (file == "--planner")
        return tr("Planner");
    if (file == "--format")
        return tr("Export format");
    return {};
}
} // namespace

QString jobFieldLabel(const std::string& field)
{
    std::string name = withoutDashes(field);
    if (name == kLegacyOptimizerKey)
        name = "optimizer_state_bytes_per_param";
    const FieldSpec<Job>* f = findField(jobFields(), name);
    return f ? toQString(f->decl.label) : QString();
}

QString plannerOptionLabel(const std::string& planner, const std::string& key)
{
    if (const auto p = PlannerRegistry::instance().create(planner))
        for (const PlannerOption& o : p->options())
            if (o.key == key)
                return toQString(o.label);
    return toQString(key);
}

QString withoutCliFlags(const QString& text)
{
    // "--option key=value" first (it holds a second word), then single flags.
    QString out = text;
    out.replace(QRegularExpression(QStringLiteral("--option\\s+\\S+")), tr("the planner's options on the Run tab"));
    static const std::pair<const char*, const char*> kFlags[] = {
        {"--time-limit", QT_TRANSLATE_NOOP("GuiErrors", "the time limit")},
        {"--planner", QT_TRANSLATE_NOOP("GuiErrors", "the planner")},
        {"--reuse", QT_TRANSLATE_NOOP("GuiErrors", "the stored pipeline templates")},
        {"--without", QT_TRANSLATE_NOOP("GuiErrors", "the nodes marked failed")},
    };
    for (const auto& [flag, words] : kFlags)
        out.replace(QRegularExpression(QStringLiteral("%1\\b").arg(QRegularExpression::escape(flag))), tr(words));
    // Job flags become the Job panel's labels.
    // Not static: run results are formatted on the worker thread, errors elsewhere on the GUI thread.
    const QRegularExpression jobFlag(QStringLiteral("--([a-z][a-z-]*)"));
    QString result;
    qsizetype last = 0;
    for (auto it = jobFlag.globalMatch(out); it.hasNext();) {
        const auto m = it.next();
        const QString label = jobFieldLabel(m.captured(1).toStdString());
        result += out.mid(last, m.capturedStart() - last) + (label.isEmpty() ? m.captured(0) : label);
        last = m.capturedEnd();
    }
    return result + out.mid(last);
}

QString guiErrorText(const InputError& e, const std::string& planner)
{
    const QString reason = withoutCliFlags(toQString(e.reason()));
    if (const QString label = jobFieldLabel(e.field());
        !label.isEmpty() && (e.file() == "job" || e.file().rfind("--", 0) == 0))
        return tr("%1 (Job panel): %2").arg(label, reason);
    if (e.file() == "options") {
        const QString option = plannerOptionLabel(planner, e.field());
        return planner.empty() ? tr("Option “%1”: %2").arg(option, reason)
                               : tr("Option “%1” of %2 (Run tab): %3").arg(option, toQString(planner), reason);
    }
    if (const QString place = placeOf(e.file()); !place.isEmpty())
        return e.field().empty() || e.field() == withoutDashes(e.file())
                   ? tr("%1: %2").arg(place, reason)
                   : tr("%1, %2: %3").arg(place, toQString(e.field()), reason);
    return withoutCliFlags(toQString(e.what()));
}

QString guiErrorText(const std::exception& e, const std::string& planner)
{
    if (const auto* input = dynamic_cast<const InputError*>(&e))
        return guiErrorText(*input, planner);
    return withoutCliFlags(QString::fromUtf8(e.what()));
}

} // namespace hetplan
