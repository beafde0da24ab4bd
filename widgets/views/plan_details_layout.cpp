#include "plan_details_layout.h"

#include "plan_details_format.h"
#include "plan_details_sections.h"
#include "details/planner_display.h"

#include "core/base/qstrings.h"
#include "core/planners/planner.h"

#include <QJsonArray>
#include <QObject>

namespace hetplan {

namespace {
DetailsSection genericSection(const std::string& name, const QJsonObject& object)
{
    DetailsSection s{toQString(name), toQString(name), {}};
    DetailsBlock b;
    b.kind = DetailsBlock::Kind::Tree;
    b.heading = QObject::tr("Values the planner wrote");
    b.tree = jsonTree(object);
    s.blocks.push_back(std::move(b));
    return s;
}

DetailsSection sectionFor(const std::string& name, const QJsonObject& object, const Plan& plan)
{
    if (const PlannerDisplay* display = plannerDisplay(name); display && display->details)
        return display->details(object, plan);
    return genericSection(name, object);
}

DetailsTreeNode treeNode(const QString& key, const QJsonValue& v)
{
    DetailsTreeNode n{key, details::scalar(v), {}};
    if (v.isObject()) {
        n.children = jsonTree(v.toObject());
    } else if (v.isArray()) {
        const QJsonArray a = v.toArray();
        // Short arrays of numbers or strings read best on one line.
        bool flat = a.size() <= 12;
        for (const QJsonValue& e : a)
            flat = flat && !e.isObject() && !e.isArray();
        if (flat)
            n.value = QStringLiteral("[") + details::joined(a) + QStringLiteral("]");
        else
            for (int i = 0; i < int(a.size()); ++i)
                n.children.push_back(treeNode(QStringLiteral("[%1]").arg(i), a[i]));
    } else if (v.isNull()) {
        n.value = QStringLiteral("null");
    }
    return n;
}

void appendTree(QStringList& lines, const std::vector<DetailsTreeNode>& nodes, int depth)
{
    for (const DetailsTreeNode& n : nodes) {
        const QString indent(2 * depth, QLatin1Char(' '));
        lines << (n.value.isEmpty() ? indent + n.key : indent + n.key + QStringLiteral(": ") + n.value);
        appendTree(lines, n.children, depth + 1);
    }
}
} // namespace

std::vector<DetailsTreeNode> jsonTree(const QJsonObject& object)
{
    std::vector<DetailsTreeNode> out;
    for (auto it = object.begin(); it != object.end(); ++it)
        out.push_back(treeNode(it.key(), it.value()));
    return out;
}

QStringList plannerOptionItems(const std::string& planner, const std::map<std::string, std::string>& options)
{
    const auto declared = PlannerRegistry::instance().create(planner);
    std::map<std::string, std::string> rest = options;
    QStringList out;
    for (const PlannerOption& o : declared ? declared->options() : std::vector<PlannerOption>{}) {
        const auto it = rest.find(o.key);
        if (it == rest.end())
            continue;
        const QString value = o.type != OptionType::Bool ? toQString(it->second)
                              : it->second == "true"     ? QObject::tr("yes")
                                                         : QObject::tr("no");
        out << toQString(o.label) + QLatin1Char(' ') + value;
        rest.erase(it);
    }
    for (const auto& [key, value] : rest)
        out << toQString(key) + QLatin1Char(' ') + toQString(value);
    return out;
}

PlanDetailsLayout layoutPlanDetails(const Plan& plan)
{
    PlanDetailsLayout layout;
    const QString planner = plan.planner.empty() ? QObject::tr("plan") : toQString(plan.planner);
    layout.summary = plan.cluster.name.empty()
                         ? planner
                         : QObject::tr("%1 on %2 · %3").arg(planner, toQString(plan.cluster.name), toQString(plan.model.name));
    if (const QStringList items = plannerOptionItems(plan.planner, plan.options); !items.isEmpty())
        layout.options = QObject::tr("Options: %1").arg(items.join(QStringLiteral(" · ")));
    if (plan.spmd && !plan.spmd->program.empty())
        layout.sections.push_back(details::spmdSection(plan));
    if (const auto own = plan.details.find(plan.planner); own != plan.details.end())
        layout.sections.push_back(sectionFor(own->first, own->second, plan));
    for (const auto& [name, object] : plan.details) // std::map: by name
        if (name != plan.planner)
            layout.sections.push_back(sectionFor(name, object, plan));
    return layout;
}

QString detailsSectionText(const DetailsSection& section)
{
    QStringList lines{section.title};
    for (const DetailsBlock& b : section.blocks) {
        lines << QString() << b.heading;
        if (!b.note.isEmpty())
            lines << b.note;
        switch (b.kind) {
        case DetailsBlock::Kind::Table:
            lines << b.columns.join(QLatin1Char('\t'));
            for (const QStringList& r : b.rows)
                lines << r.join(QLatin1Char('\t'));
            break;
        case DetailsBlock::Kind::Text: lines << b.text.chopped(b.text.endsWith('\n') ? 1 : 0); break;
        case DetailsBlock::Kind::Tree: appendTree(lines, b.tree, 0); break;
        }
    }
    return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

} // namespace hetplan
