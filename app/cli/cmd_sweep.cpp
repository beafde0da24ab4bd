// `hetplan-cli sweep`: the planning request of plan/compare, varied along --vary axes, every combination
// planned by every --planners entry on a pool of threads; one hetplan.sweep/1 row per combination × planner.
#include "cli.h"

#include "core/base/errors.h"
#include "core/base/quote.h"
#include "core/io/examples.h"
#include "core/io/json_io.h"
#include "core/planners/sweep.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <iomanip>
#include <map>
#include <ostream>

namespace hetplan::cli {

namespace {

// Escaped: the values come from the command line, and a node name must not start a line of its own.
std::string pointText(const SweepPoint& point)
{
    std::string s;
    for (const auto& [axis, v] : point)
        s += (s.empty() ? "" : " ") + axis + "=" + v;
    return escapeControls(s);
}

// Builds one combination's request. Every value of every axis is applied and checked once here, before any
// planning starts, so a bad value exits 2 at once instead of after minutes of planning; the combinations
// themselves are built only when their turn comes (a 20,000-value grid never holds 20,000 requests).
class SweepRequests {
public:
    SweepRequests(const CommandLine& cl, const std::vector<SweepAxis>& axes, const PlanRequest& base) : base_(base)
    {
        const bool variesSeq =
            std::any_of(axes.begin(), axes.end(), [](const SweepAxis& a) { return a.name == "seq"; });
        if (variesSeq && cl.has("profile"))
            throw InputError("--vary", "seq",
                             "a measured profile holds one sequence length: drop --profile to sweep seq");
        for (const SweepAxis& axis : axes)
            for (const std::string& v : axis.values) {
                if (axis.name == "seq")
                    models_[std::stoi(v)] = modelFor(cl, std::stoi(v));
                (*this)({{axis.name, v}}).job.validate("--vary");
            }
    }

    PlanRequest operator()(const SweepPoint& point) const
    {
        const SequenceSetter setSequence = [this](PlanRequest& r, int seq) {
            r.model = models_.at(seq);
            r.job.sequenceLength = seq;
        };
        PlanRequest r = applySweepPoint(base_, point, setSequence);
        r.job.validate("--vary");
        return r;
    }

private:
    static ModelSpec modelFor(const CommandLine& cl, int seq)
    {
        ModelSpec m = loadModel(cl.get("model"), seq);
        if (m.arch.sequence > 0 && m.arch.sequence != seq)
            throw InputError("--vary", "seq",
                             "model '" + m.name + "' is built for sequence length " + std::to_string(m.arch.sequence));
        return m;
    }

    PlanRequest base_;
    std::map<int, ModelSpec> models_; // one model per varied sequence length
};

void printRow(const SweepRow& r, std::ostream& out)
{
    out << std::left << std::setw(28) << pointText(r.point) << std::setw(14) << escapeControls(r.planner) << std::right;
    if (r.status == RunStatus::Ok || r.iterationSeconds > 0) {
        out << std::fixed << std::setprecision(4) << std::setw(12) << r.iterationSeconds << std::setprecision(0)
            << std::setw(12) << r.tokensPerSecond << std::setw(12);
        if (r.cost)
            out << std::setprecision(4) << r.cost->dollarsPerMillionTokens;
        else
            out << "-";
    } else
        out << std::setw(12) << "-" << std::setw(12) << "-" << std::setw(12) << "-";
    // The reason may quote a cluster's or model's name: one line per row whatever it holds.
    out << "  " << toString(r.status) << (r.error.empty() ? "" : ": " + escapeControls(r.error));
    for (size_t i = 0; !r.cost && i < r.unpricedDeviceTypes.size(); ++i)
        out << (i ? ", " : " (no price for ") << escapeControls(r.unpricedDeviceTypes[i])
            << (i + 1 == r.unpricedDeviceTypes.size() ? ")" : "");
    out << "\n";
}

// The exit status: 4 when the time limit cancelled runs (the sweep is incomplete, whatever the others gave),
// else 0 when some run gave a plan that fits, else 3.
int sweepExitCode(const std::vector<SweepRow>& rows, std::ostream& err)
{
    auto count = [&](RunStatus s) {
        return std::count_if(rows.begin(), rows.end(), [s](const SweepRow& r) { return r.status == s; });
    };
    const long long cancelled = count(RunStatus::Cancelled), ok = count(RunStatus::Ok);
    if (cancelled > 0) {
        err << "error: the time limit stopped the sweep: " << cancelled << " of " << rows.size()
            << " runs (combination x planner) were cancelled before they gave a plan";
        if (ok > 0)
            err << "; the " << ok << " that gave a plan are listed";
        err << "\n";
        return Cancelled;
    }
    if (ok > 0)
        return Ok;
    err << "error: no feasible plan: no combination gave a plan that fits\n";
    return Infeasible;
}

} // namespace

int cmdSweep(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err)
{
    CommandLine cl = commandLine("sweep");
    addRequestOptions(cl);
    cl.addOption("planners", "a,b,...|all", "The planners to run at every combination.", "amp");
    cl.addOption("vary", "NAME=V1,V2,...",
                 "A parameter to vary (repeatable): gbs=16,32,64, seq=512,1024, zero=0,1,2,3, without=NODE[,NODE] "
                 "(each value leaves one node out; 'none' keeps all). Every combination is planned.");
    cl.addOption("jobs", "N", "Plan this many combinations at once; 0 = one per CPU core.", "0");
    cl.addOption("out", "FILE", "Write the sweep (hetplan.sweep/1) here.");
    cl.setEpilogue("--time-limit bounds the whole sweep: a search under way gets the time that is left, and "
                   "combinations not started by then are reported as cancelled. A sweep makes at most " +
                   std::to_string(kMaxSweepPlans) +
                   " plans (combinations x planners). --option keys apply to the planners that have them; a key no "
                   "listed planner has, or a value one of them refuses, exits 2.\n\n"
                   "Exit status: 0 every combination was planned and at least one run gave a plan that fits; "
                   "2 bad input (checked before anything is planned, --out included); 3 every combination was planned "
                   "and none gave a plan that fits; 4 the time limit stopped the sweep before every run gave a plan "
                   "(the table and --out still list every run, the stopped ones as cancelled).\n");
    if (!cl.parse(argv, out))
        return Ok;
    std::vector<SweepAxis> axes;
    for (const std::string& spec : cl.all("vary"))
        addSweepAxis(axes, parseSweepAxis(spec));
    if (axes.empty())
        throw InputError("--vary", "argument", "required: at least one parameter to vary (e.g. --vary gbs=16,32)");
    const int jobs = cl.integer("jobs");
    if (jobs < 0 || jobs > 256)
        throw InputError("--jobs", "argument", "must be between 0 and 256");
    const std::vector<std::string> planners = plannerList(cl.get("planners"));
    checkSweepSize(axes, planners.size());
    PlanRequest base = requestFromArgs(cl);
    checkOutputs(cl, {"out"}); // before minutes of planning, not after
    noteFailedNodes(base, err);
    // --time-limit bounds the whole sweep, not each combination.
    const double timeLimit = base.timeLimitSeconds;
    base.timeLimitSeconds = 0;
    const PlannerOptions options = perPlannerOptions(planners, base.options);
    base.options.clear();
    const SweepRequests requests(cl, axes, base);

    const auto start = std::chrono::steady_clock::now();
    auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
    const std::vector<SweepRow> rows = runSweep(
        axes, std::cref(requests), planners, jobs, timeLimit,
        [&](int finished, int total, const SweepRow& r) {
            err << "sweep: " << finished << "/" << total << " " << pointText(r.point) << " " << r.planner << ": "
                << toString(r.status) << " (" << std::fixed << std::setprecision(1) << elapsed() << " s)\n"
                << std::flush;
        },
        {}, options);
    const double wall = elapsed();

    out << std::left << std::setw(28) << "combination" << std::setw(14) << "planner" << std::right << std::setw(12)
        << "iter (s)" << std::setw(12) << "tokens/s" << std::setw(12) << "$/M tok"
        << "  status\n";
    for (const SweepRow& r : rows)
        printRow(r, out);
    out << rows.size() << " rows in " << std::fixed << std::setprecision(2) << wall << " s\n";
    if (cl.has("out")) {
        QJsonObject doc = sweepToJson(axes, planners, rows, base.cluster.name, base.model.name);
        doc["wall_seconds"] = wall;
        writeJsonFile(cl.get("out"), doc);
    }
    return sweepExitCode(rows, err);
}

} // namespace hetplan::cli
