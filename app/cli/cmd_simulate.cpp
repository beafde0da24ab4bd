#include "cli.h"

#include "core/io/exporters.h"
#include "core/io/json_io.h"
#include "core/model/errors.h"
#include "core/sim/simulator.h"

#include <algorithm>
#include <iomanip>
#include <ostream>

namespace hetplan::cli {

// Re-scores a plan file with the shared simulator, from the inputs the plan carries.
int cmdSimulate(const std::vector<std::string>& argv, std::ostream& out)
{
    Args a(argv, {"plan", "trace", "out"});
    const std::string path = a.get("plan");
    Plan plan = readPlan(path);
    const CostModel costs(plan.model, plan.job, plan.profile);
    SimResult r = simulate(plan, costs, SimOptions{a.has("trace")});
    plan.estimate.iterationSeconds = r.iterationSeconds;
    plan.estimate.tokensPerSecond = r.tokensPerSecond;
    plan.estimate.peakMemoryBytes = r.peakMemoryBytes;
    plan.estimate.feasible = r.feasible;
    if (a.has("trace"))
        writeJsonFile(a.get("trace"), chromeTrace(plan, r));
    if (a.has("out"))
        writeJsonFile(a.get("out"), toJson(plan));
    printPlan(plan, out);
    double busiest = 0;
    for (const auto& [g, s] : r.busySeconds)
        busiest = std::max(busiest, s);
    out << std::fixed << std::setprecision(1) << "busiest GPU computes " << 100 * busiest / r.iterationSeconds
        << " % of the iteration\n";
    return Ok;
}

int cmdExport(const std::vector<std::string>& argv, std::ostream& out)
{
    Args a(argv, {"plan", "format", "out"});
    const Plan plan = readPlan(a.get("plan"));
    std::string format = a.get("format");
    if (format == "ranks")
        format = "rank-table"; // DESIGN.md's short name
    const std::string text = exportPlan(plan, format);
    if (a.has("out"))
        writeTextFile(a.get("out"), text);
    else
        out << text;
    return Ok;
}

} // namespace hetplan::cli
