// The "selection" section of a plan as text: which GPUs were left out and why, and every subset tried
// with its cost and speed, the cost-throughput frontier marked.
#include "cli.h"

#include "core/base/quote.h"
#include "core/planners/selection.h"

#include <QJsonArray>
#include <QJsonObject>

#include <algorithm>
#include <iomanip>
#include <ostream>

namespace hetplan::cli {

namespace {
std::string text(const QJsonValue& v) { return escapeControls(v.toString().toStdString()); }
} // namespace

void printSelection(const Plan& p, std::ostream& out)
{
    auto it = p.details.find("selection");
    if (it == p.details.end())
        return;
    const QJsonObject& s = it->second;
    out << "GPU selection (" << text(s.value("objective")) << "): " << text(s.value("subset")) << " — "
        << text(s.value("why")) << "\n";
    for (const QJsonValue& v : s.value("left_out").toArray()) {
        const QJsonObject n = v.toObject();
        out << "  left out " << text(n.value("node")) << " (" << n.value("gpus").toInt() << " × "
            << text(n.value("device")) << ")\n";
    }
    const QJsonArray idle = s.value("idle_in_plan").toArray();
    if (!idle.isEmpty())
        out << "  idle: " << idle.size() << " GPU(s) of the chosen nodes the plan does not use, first "
            << text(idle.first()) << "\n";
    std::vector<FrontierPoint> points = selectionPoints(p);
    const std::vector<FrontierPoint> frontier = costFrontier(points);
    out << "  subsets tried (* = on the cost-throughput frontier):\n"
        << "    GPUs   iteration s    tokens/s      $/h   $/M tokens  subset\n";
    for (const QJsonValue& v : s.value("tried").toArray()) {
        const QJsonObject r = v.toObject();
        if (r.contains("error")) {
            out << "    " << std::setw(4) << "-" << "  no plan: " << text(r.value("error")) << "  ("
                << text(r.value("subset")) << ")\n";
            continue;
        }
        const bool onFrontier = std::any_of(frontier.begin(), frontier.end(), [&](const FrontierPoint& f) {
            return f.dollarsPerHour == r.value("dollars_per_hour").toDouble() &&
                   f.tokensPerSecond == r.value("tokens_per_second").toDouble();
        });
        out << "  " << (onFrontier && r.contains("dollars_per_hour") ? "* " : "  ") << std::setw(4)
            << r.value("gpus").toInt() << std::fixed << std::setprecision(3) << std::setw(14)
            << r.value("iteration_seconds").toDouble() << std::setprecision(0) << std::setw(12)
            << r.value("tokens_per_second").toDouble();
        if (r.contains("dollars_per_hour"))
            out << std::setprecision(2) << std::setw(9) << r.value("dollars_per_hour").toDouble() << std::setprecision(3)
                << std::setw(13) << r.value("dollars_per_million_tokens").toDouble();
        else
            out << std::setw(9) << "-" << std::setw(13) << "-";
        out << "  " << text(r.value("subset"));
        if (r.contains("miss"))
            out << " (" << text(r.value("miss")) << ")";
        out << "\n";
    }
}

} // namespace hetplan::cli
