#include "cli.h"

#include "core/model/pricing.h"
#include "core/base/errors.h"
#include "core/base/quote.h"
#include "core/io/exporters.h"
#include "core/io/json_io.h"
#include "core/model/frameworks.h"
#include "core/sim/simulator.h"
#include "core/sim/summary.h"

#include <QJsonDocument>
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <set>
#include <ostream>

namespace hetplan::cli {

namespace {
int simulatePlan(const CommandLine& cl, const std::string& path, Plan& plan, std::ostream& out, std::ostream& err);
} // namespace

// Re-scores a plan file with the shared simulator, from the inputs the plan carries.
int cmdSimulate(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err)
{
    CommandLine cl = commandLine("simulate");
    cl.addOption("plan", "FILE", "The plan file (written by plan --out); it carries its own inputs.");
    cl.addOption("trace", "FILE",
                 "Write a Chrome trace (chrome://tracing, Perfetto) of the iteration here. At most " +
                     std::to_string(kMaxTimelineEvents) +
                     " events: a plan with more (millions of micro-batches) is refused (exit 2).");
    cl.addOption("out", "FILE", "Write the re-scored plan JSON here.");
    addJobOptions(cl, kFrameworkJobKeys); // score the same plan under another framework's sends
    if (!cl.parse(argv, out))
        return Ok;
    const std::string path = cl.get("plan");
    Plan plan = readPlan(path);
    checkOutputs(cl, {"out", "trace"});
    applyJobOptions(cl, plan.job, kFrameworkJobKeys);
    plan.job.validate(path);
    // The simulator and the summary name the plan "plan"; here it is the plan file.
    return withPlanFile(path, [&] { return simulatePlan(cl, path, plan, out, err); });
}

namespace {
// A tensor-parallel degree the model's shapes cannot be split by is simulated (as an even split) but no
// framework would run it: say so, once per degree.
void warnUnsplittableStages(const std::string& path, const Plan& plan, std::ostream& err)
{
    std::set<int> warned;
    for (size_t p = 0; p < plan.pipelines.size(); ++p)
        for (size_t s = 0; s < plan.pipelines[p].stages.size(); ++s) {
            const int tp = plan.pipelines[p].stages[s].tensorParallel;
            const std::string why = tensorParallelProblem(plan.model, tp);
            if (why.empty() || !warned.insert(tp).second)
                continue;
            err << "warning: " << path << ": pipelines[" << p << "].stages[" << s << "].tensor_parallel: " << why
                << "; simulated as an even split, which Megatron-LM and DeepSpeed would refuse\n";
        }
}

int simulatePlan(const CommandLine& cl, const std::string& path, Plan& plan, std::ostream& out, std::ostream& err)
{
    const CostModel costs(plan.model, plan.job, plan.profile);
    for (const std::string& w : costs.warnings())
        err << "warning: " << escapeControls(w) << "\n";
    for (const std::string& w : modelWarnings(plan.model))
        err << "warning: " << escapeControls(w) << "\n";
    for (const std::string& w : jobWarnings(plan.job))
        err << "warning: " << escapeControls(w) << "\n";
    warnUnsplittableStages(path, plan, err);
    warnIdleSequenceParallel(plan, err);
    SimResult r = simulate(plan, costs, SimOptions{cl.has("trace")});
    plan.estimate.iterationSeconds = r.iterationSeconds;
    plan.estimate.tokensPerSecond = r.tokensPerSecond;
    plan.estimate.peakMemoryBytes = r.peakMemoryBytes;
    plan.estimate.memory = r.memory;
    plan.estimate.feasible = r.feasible;
    plan.estimate.frameworks = checkFrameworks(plan); // the job's framework may have changed (--framework)
    priceEstimate(plan, [&](const std::string& type) { return &costs.device(type); });
    if (!std::isfinite(r.iterationSeconds) || !(r.iterationSeconds > 0))
        throw InputError(path, "estimate.iteration_seconds",
                         "the simulated iteration time is not a positive finite number: check the plan's inputs");
    plan.summary = cl.has("trace") ? summarize(plan, costs, r) : summarize(plan, costs);
    std::vector<std::pair<std::string, std::string>> outputs;
    auto json = [](const QJsonObject& o) { return QJsonDocument(o).toJson(QJsonDocument::Indented).toStdString(); };
    if (cl.has("trace")) // compact, as the chrome-trace exporter writes it: traces are read by tools
        outputs.emplace_back(cl.get("trace"),
                             QJsonDocument(chromeTrace(plan, r)).toJson(QJsonDocument::Compact).toStdString());
    if (cl.has("out"))
        outputs.emplace_back(cl.get("out"), json(toJson(plan)));
    writeTextFiles(outputs);
    printPlan(plan, out);
    double busiest = 0;
    for (const auto& [g, s] : r.busySeconds)
        busiest = std::max(busiest, s);
    out << std::fixed << std::setprecision(1) << "busiest GPU computes " << 100 * busiest / r.iterationSeconds
        << " % of the iteration\n";
    return Ok;
}
} // namespace

} // namespace hetplan::cli
