#include "cli.h"

#include <QJsonArray>

#include "core/base/errors.h"
#include "core/base/quote.h"
#include "core/cost/costmodel.h"
#include "core/io/json_io.h"
#include "core/model/frameworks.h"

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <map>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

namespace hetplan::cli {

namespace {
// "a/0-3" style compaction of a GPU list for the table.
std::string gpuList(const Cluster& c, const std::vector<int>& gpus)
{
    std::ostringstream s;
    for (size_t i = 0; i < gpus.size();) {
        size_t j = i;
        while (j + 1 < gpus.size() && gpus[j + 1] == gpus[j] + 1 && c.sameNode(gpus[j + 1], gpus[i]))
            ++j;
        if (i)
            s << ",";
        s << escapeControls(c.gpuName(gpus[i]));
        if (j > i)
            s << "-" << c.gpu(gpus[j]).local;
        i = j + 1;
    }
    return s.str();
}
// The stage's device type, or "A+B" when a placement mixes types in one stage.
std::string stageDevices(const Cluster& c, const std::vector<int>& gpus)
{
    std::vector<std::string> types;
    for (int g : gpus)
        if (std::find(types.begin(), types.end(), c.nodeOf(g).deviceType) == types.end())
            types.push_back(c.nodeOf(g).deviceType);
    std::string s;
    for (const std::string& t : types)
        s += (s.empty() ? "" : "+") + t;
    return escapeControls(s);
}

// HAP's program: how many instructions of each kind (collectives by name), its first lines, and the
// sharding ratios (the share of each segment's work per GPU, in percent).
void printSpmd(const Plan& p, std::ostream& out)
{
    const SpmdPlan& s = *p.spmd;
    std::map<std::string, int> kinds;
    for (const SpmdInstruction& i : s.instructions)
        ++kinds[escapeControls(i.kind == SpmdInstruction::Kind::Collective ? i.collective : toString(i.kind))];
    out << "SPMD program: " << s.program.size() << " instructions";
    std::string counts;
    for (const auto& [kind, n] : kinds)
        counts += (counts.empty() ? "" : ", ") + std::to_string(n) + " " + kind;
    out << (counts.empty() ? "" : " (" + counts + ")") << "\n";
    constexpr size_t kShown = 12;
    for (size_t i = 0; i < s.program.size() && i < kShown; ++i)
        out << "  " << escapeControls(s.program[i]) << "\n";
    if (s.program.size() > kShown)
        out << "  ... " << s.program.size() - kShown << " more (plan JSON \"spmd\".\"program\")\n";
    // A terminal shows a few dozen columns; the plan JSON has every GPU's ratio.
    constexpr size_t kGpusShown = 64;
    const std::vector<GpuRef> refs = p.cluster.gpuRefs();
    const size_t shown = std::min(refs.size(), kGpusShown);
    out << "sharding ratios (% of each segment per GPU";
    if (refs.size() > shown)
        out << ", the first " << shown << " of " << refs.size()
            << " GPUs; all in plan JSON \"spmd\".\"sharding_ratios\"";
    out << "):\n  segment           ";
    for (size_t g = 0; g < shown; ++g)
        out << " " << std::setw(8)
            << escapeControls(p.cluster.nodes[size_t(refs[g].node)].name + "/" + std::to_string(refs[g].local));
    out << "\n" << std::setprecision(1);
    for (size_t r = 0; r < s.shardingRatios.size(); ++r) {
        const std::string name = escapeControls(r < s.segments.size() ? s.segments[r] : "segment " + std::to_string(r));
        out << "  " << std::left << std::setw(18) << name << std::right;
        for (size_t g = 0; g < shown && g < s.shardingRatios[r].size(); ++g)
            out << " " << std::setw(8) << s.shardingRatios[r][g] * 100;
        out << "\n";
    }
}
} // namespace

namespace {
void printMemoryBreakdown(const Plan& p, std::ostream& out)
{
    if (!p.summary || p.summary->deviceTypes.empty())
        return;
    // Per GPU type, its highest peak term by term (core/cost/memory.h; GiB = 2^30 bytes).
    out << "memory per GPU at its peak (GiB; the type's highest peak, what nvidia-smi would show):\n";
    out << "  device          weights  grads  optim  activ  gradbuf  reserve  nccl  context   total  of\n";
    auto gib = [](double b) { return b / 1073741824.0; };
    out << std::setprecision(2);
    for (const DeviceTypeSummary& d : p.summary->deviceTypes) {
        const GpuMemory& m = d.peakMemory;
        out << "  " << std::left << std::setw(14) << escapeControls(d.deviceType) << std::right << std::setw(9)
            << gib(m.weights) << std::setw(7) << gib(m.gradients) << std::setw(7) << gib(m.optimizer) << std::setw(7)
            << gib(m.activations) << std::setw(9) << gib(m.gradientBuffer) << std::setw(9) << gib(m.allocatorReserve)
            << std::setw(6) << gib(m.communicators) << std::setw(9) << gib(m.context) << std::setw(8) << gib(m.total())
            << std::setw(6) << gib(d.memoryCapacityBytes) << "\n";
    }
}

// A pipeline plan's Megatron settings when any is on, and whether they were searched:
// "Megatron options (searched): sequence parallel, distributed optimizer, selective recompute".
void printMegatronSettings(const Plan& p, std::ostream& out)
{
    if (p.pipelines.empty())
        return;
    std::vector<std::string> on;
    if (p.pipelines.front().virtualStages > 1)
        on.push_back("interleaved 1F1B");
    if (p.job.sequenceParallel)
        on.push_back("sequence parallel");
    if (const int cp = p.pipelines.front().contextParallel; cp > 1)
        on.push_back("context parallel " + std::to_string(cp));
    if (const int ep = p.pipelines.front().expertParallel; ep > 1)
        on.push_back("expert parallel " + std::to_string(ep));
    if (p.job.zeroStage == 1)
        on.push_back("distributed optimizer");
    if (p.job.recompute)
        on.push_back("full recompute");
    if (p.job.selectiveRecompute)
        on.push_back("selective recompute");
    const bool searched = p.details.count("megatron_space") > 0;
    if (on.empty() && !searched)
        return;
    out << "Megatron options" << (searched ? " (searched)" : "") << ": ";
    for (size_t i = 0; i < on.size(); ++i)
        out << (i ? ", " : "") << on[i];
    out << (on.empty() ? "none\n" : "\n");
}

// When the framework the plan is made for (Megatron-LM for pipelines, DeepSpeed for ZeRO) would not run it
// as simulated (estimate.frameworks), why: the export to it is refused with the same reasons.
void printFrameworkVerdict(const Plan& p, std::ostream& out)
{
    const std::string native = nativeFramework(p);
    const auto it = p.estimate.frameworks.find(native);
    if ((native != "megatron" && native != "deepspeed") || it == p.estimate.frameworks.end() || it->second.ok)
        return;
    std::string reasons;
    for (const std::string& r : it->second.reasons)
        reasons += (reasons.empty() ? "" : "; ") + r;
    out << (native == "megatron" ? "Megatron-LM" : "DeepSpeed")
        << " cannot run this plan as simulated: " << escapeControls(reasons) << "\n";
}

} // namespace

void printPlan(const Plan& p, std::ostream& out)
{
    out << std::fixed;
    // Names come from input files: escaped, so a name holding a newline cannot print a line of its own.
    out << "planner " << escapeControls(p.planner) << " | cluster " << escapeControls(p.cluster.name) << " ("
        << p.cluster.gpuCount() << " GPUs) | model " << escapeControls(p.model.name) << " | gbs "
        << p.job.globalBatchSize << ", seq " << p.job.sequenceLength << "\n";
    out << std::setprecision(4) << "iteration " << p.estimate.iterationSeconds << " s (simulated)";
    if (p.plannerEstimate)
        out << ", planner estimate " << *p.plannerEstimate << " s";
    out << std::setprecision(0) << ", " << p.estimate.tokensPerSecond << " tokens/s"
        << (p.estimate.feasible ? "" : ", DOES NOT FIT MEMORY") << "\n";
    if (p.estimate.cost)
        out << std::setprecision(2) << "cost $" << p.estimate.cost->dollarsPerHour << "/h, $" << std::setprecision(3)
            << p.estimate.cost->dollarsPerMillionTokens << " per million tokens\n";
    out << std::setprecision(3) << "search " << p.search.seconds * 1e3 << " ms, " << p.search.candidates
        << " candidates\n";
    printMegatronSettings(p, out);
    for (size_t i = 0; i < p.pipelines.size(); ++i) {
        const Pipeline& pl = p.pipelines[i];
        out << "pipeline " << i << ": " << pl.replicas << " replica(s), micro-batch " << pl.microBatchSize << " x "
            << pl.microBatches;
        if (pl.virtualStages > 1)
            out << ", " << pl.virtualStages << " chunks per stage (interleaved 1F1B)";
        if (pl.contextParallel > 1)
            out << ", context parallel " << pl.contextParallel << " (of each stage's dp ranks)";
        if (pl.expertParallel > 1)
            out << ", experts over " << pl.expertParallel << " ranks";
        out << "\n";
        std::vector<std::string> ranges; // "[4,7) + [16,19)" when interleaved
        size_t width = 12;
        for (size_t s = 0; s < pl.stages.size(); ++s) {
            ranges.push_back(pl.stageLayersText(p.model, int(s)));
            width = std::max(width, ranges.back().size() + 2);
        }
        out << "  stage  " << std::left << std::setw(int(width)) << "layers" << std::right
            << "tp  dp  device        GPUs\n";
        for (size_t s = 0; s < pl.stages.size(); ++s) {
            const Stage& st = pl.stages[s];
            out << "  " << std::left << std::setw(7) << s << std::setw(int(width)) << ranges[s] << std::right
                << std::setw(2) << st.tensorParallel << std::setw(4) << st.dataParallel << "  " << std::left
                << std::setw(14) << stageDevices(p.cluster, st.gpus) << " " << gpuList(p.cluster, st.gpus) << std::right
                << "\n";
        }
    }
    if (p.zero) {
        out << "ZeRO-" << p.zero->stage << ":\n  GPU            micro  steps  last\n";
        for (const ZeroGpu& g : p.zero->gpus)
            out << "  " << std::left << std::setw(15) << p.cluster.gpuName(g.gpu) << std::right << std::setw(5)
                << g.microBatchSize << std::setw(7) << g.accumulationSteps << std::setw(6) << g.lastMicroBatchSize
                << "\n";
    }
    if (p.spmd)
        printSpmd(p, out);
    if (!p.estimate.peakMemoryBytes.empty()) {
        auto peak = std::max_element(p.estimate.peakMemoryBytes.begin(), p.estimate.peakMemoryBytes.end(),
                                     [](auto& a, auto& b) { return a.second < b.second; });
        out << std::setprecision(2) << "peak memory " << peak->second / 1073741824.0 << " GiB on "
            << escapeControls(p.cluster.gpuName(peak->first)) << "\n";
    }
    printMemoryBreakdown(p, out);
    printSelection(p, out);
    printFrameworkVerdict(p, out);
}

namespace {
// Every registered planner with its options, so `plan --help` documents --planner and --option.
std::string plannerHelp()
{
    std::string text = "Planners (--planner NAME) and their options (--option key=value):\n";
    for (const std::string& name : PlannerRegistry::instance().names()) {
        const auto planner = PlannerRegistry::instance().create(name);
        text += table({{name, planner->description()}});
        std::vector<std::pair<std::string, std::string>> rows;
        for (const PlannerOption& o : planner->options())
            rows.emplace_back("  " + o.key + "=<" + o.typeName() + ">", o.help + " (default: " + o.defaultValue + ")");
        text += table(rows);
    }
    return text;
}
} // namespace

int cmdPlan(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err)
{
    const auto started = std::chrono::steady_clock::now(); // reading the inputs counts against --time-limit
    CommandLine cl = commandLine("plan");
    addRequestOptions(cl);
    cl.addOption("planner", "NAME", "The planner to run (below).");
    cl.addOption("out", "FILE", "Write the plan JSON (hetplan.plan/1) here.");
    cl.addFlag("quiet", "Do not print the plan.");
    cl.setEpilogue(plannerHelp());
    if (!cl.parse(argv, out))
        return Ok;
    const std::string planner = cl.get("planner");
    PlanRequest req = requestFromArgs(cl);
    checkOutputs(cl, {"out"}); // before the search, not after it
    noteFailedNodes(req, err);
    for (const std::string& w : profileWarnings(req.job, req.profile))
        err << "warning: " << escapeControls(w) << "\n";
    for (const std::string& w : modelWarnings(req.model))
        err << "warning: " << escapeControls(w) << "\n";
    for (const std::string& w : jobWarnings(req.job))
        err << "warning: " << escapeControls(w) << "\n";
    // The limit is the command's: what reading and checking the inputs took (a 100,000-node cluster, a
    // 4,000-layer model: half a second) comes off it, and a limit spent already stops the search at once.
    double limit = req.timeLimitSeconds;
    if (limit > 0)
        limit =
            std::max(1e-9, limit - std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    Progress progress({}, limit);
    Plan plan = [&] {
        try {
            return runPlanner(planner, req, progress);
        } catch (const InputError& e) {
            throw withJobSource(e, cl);
        }
    }();
    warnIdleSequenceParallel(plan, err);
    for (const auto& [section, details] : plan.details) // a planner's own warnings (details.<planner>.warnings)
        for (const QJsonValue& w : details.value("warnings").toArray())
            err << "warning: " << section << ": " << escapeControls(w.toString().toStdString()) << "\n";
    if (plan.search.stopped != StopReason::None)
        err << "note: " << planner << " stopped early ("
            << (plan.search.stopped == StopReason::Cancelled ? "cancelled" : "time limit")
            << "): this is the best plan it found so far\n";
    if (cl.has("out"))
        writeJsonFile(cl.get("out"), toJson(plan));
    if (!cl.flag("quiet"))
        printPlan(plan, out);
    return Ok;
}

} // namespace hetplan::cli
