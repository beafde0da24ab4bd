#include "cli.h"

#include "core/base/errors.h"
#include "core/base/quote.h"
#include "core/io/json_io.h"

#include <QJsonArray>
#include <algorithm>
#include <iomanip>
#include <ostream>
#include <sstream>

namespace hetplan::cli {

std::vector<std::string> plannerList(const std::string& spec)
{
    const std::vector<std::string> known = PlannerRegistry::instance().names();
    if (spec == "all")
        return known;
    std::vector<std::string> out;
    std::stringstream s(spec);
    for (std::string name; std::getline(s, name, ',');) {
        if (name.empty())
            continue;
        if (std::find(known.begin(), known.end(), name) == known.end())
            throw InputError("--planners", name, "unknown planner (see: hetplan-cli list planners)");
        out.push_back(name);
    }
    if (out.empty())
        throw InputError("--planners", "argument", "no planner named");
    return out;
}

PlannerOptions perPlannerOptions(const std::vector<std::string>& planners,
                                 const std::map<std::string, std::string>& given)
{
    PlannerOptions out;
    for (const auto& [key, value] : given) {
        bool declared = false;
        for (const std::string& name : planners) {
            const auto planner = PlannerRegistry::instance().create(name);
            const auto options = planner->options();
            if (std::none_of(options.begin(), options.end(), [&](const PlannerOption& o) { return o.key == key; }))
                continue;
            declared = true;
            try {
                out[name][key] = resolveOptions(*planner, {{key, value}}).at(key);
            } catch (const InputError& e) {
                throw InputError("--option", e.field(), e.reason());
            }
        }
        if (!declared)
            throw InputError("--option", fieldKey(key),
                             "no planner among " + joinNames(planners, ", ") +
                                 " has this option (see: hetplan-cli plan --help)");
    }
    return out;
}

int cmdCompare(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err)
{
    CommandLine cl = commandLine("compare");
    addRequestOptions(cl);
    cl.addOption("planners", "a,b,...|all", "The planners to compare (see: hetplan-cli list planners).", "all");
    cl.addOption("out", "FILE", "Write the report JSON (hetplan.compare/1) here.");
    if (!cl.parse(argv, out))
        return Ok;
    const std::vector<std::string> planners = plannerList(cl.get("planners"));
    PlanRequest req = requestFromArgs(cl);
    checkOutputs(cl, {"out"}); // before every planner runs, not after
    noteFailedNodes(req, err);
    const PlannerOptions options = perPlannerOptions(planners, req.options);
    req.options.clear();

    QJsonArray plans, failures;
    std::vector<Plan> done;
    out << std::left << std::setw(15) << "planner" << std::right << std::setw(12) << "iter (s)" << std::setw(12)
        << "own (s)" << std::setw(14) << "tokens/s" << std::setw(12) << "search ms"
        << "  status\n";
    for (const std::string& name : planners) {
        Progress progress({}, req.timeLimitSeconds);
        std::string status;
        try {
            Plan p = runPlanner(name, requestForPlanner(req, name, options), progress);
            out << std::left << std::setw(15) << name << std::right << std::fixed << std::setprecision(4)
                << std::setw(12) << p.estimate.iterationSeconds << std::setw(12);
            if (p.plannerEstimate)
                out << *p.plannerEstimate;
            else
                out << "-";
            out << std::setprecision(0) << std::setw(14) << p.estimate.tokensPerSecond << std::setprecision(2)
                << std::setw(12) << p.search.seconds * 1e3 << "  " << (p.estimate.feasible ? "ok" : "over memory")
                << (p.search.stopped == StopReason::None ? "" : ", stopped (" + toString(p.search.stopped) + "): best so far") << "\n";
            plans.append(toJson(p));
            done.push_back(std::move(p));
            continue;
        } catch (const InfeasibleError& e) {
            status = std::string("infeasible: ") + e.what();
        } catch (const CancelledError& e) {
            status = std::string("cancelled: ") + e.what();
        } catch (const InputError& e) {
            // Options that do not apply to this planner/cluster: report, keep comparing the others.
            status = std::string("not applicable: ") + withJobSource(e, cl).what();
        }
        // The reason may quote the cluster's or model's name: one line per planner whatever it holds.
        out << std::left << std::setw(15) << name << std::right << std::setw(12) << "-" << std::setw(12) << "-"
            << std::setw(14) << "-" << std::setw(12) << "-"
            << "  " << escapeControls(status) << "\n";
        failures.append(
            QJsonObject{{"planner", QString::fromStdString(name)}, {"status", QString::fromStdString(status)}});
    }
    if (done.empty()) {
        err << "error: no feasible plan: no planner produced a plan\n";
        return Infeasible;
    }
    if (cl.has("out")) {
        QJsonObject report{{"schema", "hetplan.compare/1"}, {"plans", plans}};
        if (!failures.isEmpty())
            report["failures"] = failures;
        writeJsonFile(cl.get("out"), report);
    }
    return Ok;
}

} // namespace hetplan::cli
