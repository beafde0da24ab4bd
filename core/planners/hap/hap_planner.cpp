#include "hap_planner.h"

#include "graph_builders.h"
#include "load_balance.h"
#include "program.h"

#include "core/base/errors.h"
#include "core/cost/collectives.h"
#include "core/cost/memory.h"
#include "core/cost/spmd_costs.h"
#include "core/sim/simulator.h"

#include <QJsonArray>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

namespace hetplan {

using namespace hap;

namespace hap {
namespace {

struct Devices {
    std::vector<DeviceClass> classes;
    std::vector<int> classOf; // per GPU
};

Devices deviceClasses(const Cluster& cluster, const CostModel& costs, Precision precision)
{
    Devices d;
    std::map<std::string, int> index;
    for (const GpuRef& ref : cluster.gpuRefs()) {
        const std::string& type = cluster.nodes[ref.node].deviceType;
        auto [it, added] = index.try_emplace(type, int(d.classes.size()));
        if (added) {
            const DeviceType& dev = costs.device(type);
            d.classes.push_back({type, 0, spmdFlopsRate(dev, precision)});
        }
        ++d.classes[it->second].gpus;
        d.classOf.push_back(it->second);
    }
    return d;
}

SynthesisContext makeContext(const TensorGraph& g, const PlanRequest& req, const Devices& d, bool perLayer)
{
    const Cluster& cluster = req.cluster;
    SynthesisContext ctx;
    ctx.graph = &g;
    ctx.valueBytes = req.job.bytesPerValue();
    ctx.classes = d.classes;
    ctx.ranks = cluster.gpuCount();
    std::vector<int> all(ctx.ranks);
    for (int i = 0; i < ctx.ranks; ++i)
        all[i] = i;
    ctx.link = groupLink(cluster, all);
    for (int s = 0; s < int(g.segments.size()); ++s)
        ctx.ratioSegmentOf.push_back(perLayer ? s : 0);
    ctx.ratios.assign(perLayer ? g.segments.size() : 1, proportionalRatios(d.classes));
    return ctx;
}

// Per-GPU ratios with the batch rounded to whole samples (section 5.1), per segment.
std::vector<std::vector<double>> gpuRatios(const std::vector<std::vector<double>>& perClass, const Devices& d,
                                           long long batch)
{
    std::vector<std::vector<double>> out;
    for (const auto& row : perClass) {
        std::vector<double> exact;
        for (int c : d.classOf)
            exact.push_back(row[c]);
        std::vector<double> r;
        for (long long s : roundShards(exact, batch))
            r.push_back(double(s) / double(batch));
        out.push_back(r);
    }
    return out;
}

bool scales(const Op& op, char label)
{
    return label != kReplicated && label != kLinear && op.noScale.find(label) == std::string::npos;
}

SpmdInstruction toPlan(const SynthesisContext& ctx, const Instruction& ins)
{
    const TensorGraph& g = *ctx.graph;
    SpmdInstruction out;
    out.segment = ins.segment;
    out.backward = ins.backward;
    const int producer = g.tensors[ins.tensor].producer;
    out.group = g.segments[g.ops[producer].segment];
    out.bytes = g.tensors[ins.tensor].elements() * ctx.valueBytes;
    if (ins.kind == Instruction::Kind::Collective) {
        out.kind = SpmdInstruction::Kind::Collective;
        out.collective = toString(ins.collective);
        out.fromSegment = ins.fromSegment;
    } else if (ins.kind == Instruction::Kind::Load) {
        out.kind = SpmdInstruction::Kind::Load;
        out.sharded = ins.out.isSharded();
        out.parameter = g.ops[ins.op].kind == OpKind::Parameter;
        out.bytes = g.ops[ins.op].kind == OpKind::Grad ? 0 : out.bytes; // the loss seed is a scalar
    } else {
        const Op& op = g.ops[ins.op];
        out.kind = SpmdInstruction::Kind::Compute;
        const bool paramSum = op.forwardOp >= 0 && g.ops[op.forwardOp].isLeaf();
        out.flops = paramSum ? 0 : op.flops; // parameter-gradient sums belong to the optimizer step
        out.sharded = scales(op, ins.label);
    }
    return out;
}

// Marks the backward collectives that reduce a parameter's gradient (the simulator buckets them as the
// frameworks do). A tied parameter's later contributions are summed into its gradient before the one
// reduction, so their collectives carry no bytes.
void markGradientReductions(const TensorGraph& g, const std::vector<Instruction>& prog,
                            std::vector<SpmdInstruction>& out)
{
    std::set<int> reduced;
    for (size_t k = 0; k < prog.size(); ++k) {
        const Instruction& ins = prog[k];
        if (ins.kind != Instruction::Kind::Collective || !ins.backward || ins.rebalance)
            continue;
        const int of = g.tensors[ins.tensor].gradOf;
        if (of < 0 || g.tensors[of].producer < 0 || g.ops[g.tensors[of].producer].kind != OpKind::Parameter)
            continue;
        out[k].parameter = true;
        if (!reduced.insert(of).second)
            out[k].bytes = 0;
    }
}

// What each GPU of a class has for states and activations: its memory less the runtime overhead
// (the smallest over the class's GPUs, as a node may override the overhead).
MemoryLimit memoryLimit(const PlanRequest& req, const CostModel& costs, const Devices& d)
{
    MemoryLimit m;
    m.job = req.job;
    m.roundingSlack = 1.0 / double(std::max<long long>(1, req.job.globalBatchSize));
    m.capacity.assign(d.classes.size(), std::numeric_limits<double>::infinity());
    const std::vector<int> nodeOfGpu = req.cluster.gpuNodes();
    for (int g = 0; g < int(d.classOf.size()); ++g) {
        const Node& node = req.cluster.nodes[size_t(nodeOfGpu[size_t(g)])];
        const DeviceType& dev = costs.device(node.deviceType);
        double& cap = m.capacity[d.classOf[g]];
        cap = std::min(cap, usableMemory(node, dev, req.job));
    }
    m.terms = [](const SynthesisContext& ctx, const Program& p) {
        std::vector<SpmdInstruction> ins;
        for (const Instruction& i : lower(ctx, p))
            ins.push_back(toPlan(ctx, i));
        return spmdMemoryTerms(ins, ctx.ratioSegments());
    };
    return m;
}

// DP-CP's shares: proportional to compute, but no GPU above what its memory holds (a DDP user lowers the
// batch of a GPU that runs out of memory and gives the rest to the others, in proportion to their speed).
// The data-parallel program's memory is affine in the one batch ratio r: peak(r) = a + b·r, so a class's
// largest share is (capacity − a) / b less the rounding headroom. Water-filling: clamp the classes over
// their cap, spread what is left over the others by speed, repeat. Empty when even the caps cannot hold
// the whole batch.
std::vector<double> cappedProportional(const SynthesisContext& ctx, const Program& p, const MemoryLimit& m)
{
    const SpmdMemoryTerms t = m.terms(ctx, p);
    const double a = t.peakBytes({0.0}, m.job), b = t.peakBytes({1.0}, m.job) - a;
    const std::vector<DeviceClass>& cls = ctx.classes;
    std::vector<double> cap(cls.size()), r(cls.size(), 0);
    for (size_t c = 0; c < cls.size(); ++c) {
        cap[c] = b > 0 ? (m.capacity[c] - a) / b - m.roundingSlack : 1.0;
        if (cap[c] < 0)
            return {}; // the replicated model states alone overflow this GPU
    }
    std::vector<bool> clamped(cls.size(), false);
    for (size_t round = 0; round <= cls.size(); ++round) {
        double left = 1, speed = 0;
        for (size_t c = 0; c < cls.size(); ++c)
            clamped[c] ? left -= cls[c].gpus * cap[c] : speed += cls[c].gpus * cls[c].flopsRate;
        if (speed <= 0)
            return {};
        bool changed = false;
        for (size_t c = 0; c < cls.size(); ++c) {
            r[c] = clamped[c] ? cap[c] : left * cls[c].flopsRate / speed;
            if (!clamped[c] && r[c] > cap[c])
                clamped[c] = changed = true;
        }
        if (!changed)
            return left >= -1e-12 ? r : std::vector<double>{};
    }
    return {};
}

QJsonObject details(const BalancedProgram& b, const SynthesisContext& ctx, const SynthesisStats& st)
{
    QJsonArray trace, classes, ratios;
    for (double t : b.trace)
        trace.append(t);
    for (const DeviceClass& c : ctx.classes)
        classes.append(QJsonObject{
            {"device", QString::fromStdString(c.deviceType)}, {"gpus", c.gpus}, {"flops_per_second", c.flopsRate}});
    for (const auto& row : b.ratios.perGpu) {
        QJsonArray r;
        for (double v : row)
            r.append(v);
        ratios.append(r);
    }
    QJsonObject o;
    o["rounds"] = b.rounds;
    o["stopped_by"] = QString::fromStdString(b.stoppedBy);
    o["cost_trace"] = trace;
    o["device_classes"] = classes;
    o["class_ratios"] = ratios;
    o["expanded"] = double(st.expanded);
    o["generated"] = double(st.generated);
    o["pruned"] = double(st.pruned);
    return o;
}

} // namespace
} // namespace hap

std::string HapPlanner::name() const
{
    return mode_ == Mode::Hap ? "hap" : mode_ == Mode::DpEven ? "dp-even" : "dp-proportional";
}

std::string HapPlanner::description() const
{
    switch (mode_) {
    case Mode::Hap: return "HAP: SPMD program synthesis (A*) with LP sharding ratios for heterogeneous GPUs";
    case Mode::DpEven: return "Baseline: data parallelism with even batch shares (DDP, HAP's DP-EV)";
    case Mode::DpProportional: return "Baseline: data parallelism with batch shares proportional to GPU speed (DP-CP)";
    }
    return "";
}

namespace {
// Partial programs the A* keeps by default: a few hundred MB at most (a state holds its properties and
// open compute per device class).
constexpr int kDefaultMaxStates = 1000000;
} // namespace

std::vector<PlannerOption> HapPlanner::options() const
{
    if (mode_ != Mode::Hap)
        return {};
    return {PlannerOption::choice("segments", "Ratio segments", "layer", {"layer", "single"},
                                  "sharding ratios per model layer (section 5.2) or one set for the whole model"),
            PlannerOption::integer("rounds", "Rounds", 6, 1, 50, "most synthesize/balance rounds (section 3.1)"),
            PlannerOption::choice("dominance", "Dominance", "paper", {"paper", "exact"},
                                  "pruning of equal-property programs: as published (fast) or exact (optimal)"),
            PlannerOption::integer("max_states", "State limit", kDefaultMaxStates, 1000, 1000000000,
                                   "most partial programs the A* search keeps before it stops")};
}

namespace {

// The data-parallel program (every op sharded on the batch) at fixed ratios: even shares (DP-EV) or shares
// proportional to compute, capped by memory (DP-CP). Empty program: stopped, or no ratios fit (proportional).
// `onlyCancel`: stop for a cancel but not for the time limit (HAP's own fallback, built even when its
// search ran out of time; a program sharded on the batch only is quick to find).
BalancedProgram dataParallelProgram(SynthesisContext ctx, bool proportional, const PlanRequest& req,
                                    const CostModel& costs, const Devices& d, Progress& progress, SynthesisStats& st,
                                    bool onlyCancel = false)
{
    BalancedProgram b;
    ctx.allowedLabels = "b";
    if (!proportional)
        ctx.ratios.assign(1, std::vector<double>(d.classes.size(), 1.0 / ctx.ranks));
    const auto stop = [&progress, onlyCancel] {
        return onlyCancel ? progress.stopReason() == StopReason::Cancelled : progress.cancelled();
    };
    b.program = synthesize(ctx, &st, stop);
    if (proportional && !b.program.steps.empty()) {
        const std::vector<double> capped = cappedProportional(ctx, b.program, memoryLimit(req, costs, d));
        if (capped.empty())
            return {};
        if (capped != ctx.ratios.front()) {
            ctx.ratios.assign(1, capped);
            b.program = synthesize(ctx, &st, stop);
        }
    }
    b.ratios = {ctx.ratios, b.program.cost};
    b.rounds = 1;
    b.stoppedBy = "fixed ratios";
    return b;
}

// The plan of a balanced program: its lowered instructions and per-GPU sharding ratios.
Plan assemble(const TensorGraph& g, SynthesisContext ctx, const Devices& d, long long batch, const BalancedProgram& b,
              const SynthesisStats& st)
{
    ctx.ratios = b.ratios.perGpu;
    const std::vector<Instruction> prog = lower(ctx, b.program);
    if (const CheckResult c = checkProgram(g, prog); !c.ok)
        throw std::logic_error("hap: synthesized program fails the checker: " + c.error);
    Plan plan;
    SpmdPlan sp;
    sp.shardingRatios = gpuRatios(b.ratios.perGpu, d, batch);
    for (const Instruction& ins : prog) {
        sp.program.push_back(describe(g, ins));
        sp.instructions.push_back(toPlan(ctx, ins));
    }
    markGradientReductions(g, prog, sp.instructions);
    sp.segments = ctx.ratioSegments() == 1 ? std::vector<std::string>{"model"} : g.segments;
    plan.spmd = sp;
    plan.plannerEstimate = b.ratios.seconds;
    plan.search.candidates = st.generated;
    plan.search.extra = {{"expanded", double(st.expanded)}, {"pruned", double(st.pruned)}, {"rounds", b.rounds}};
    plan.details["hap"] = details(b, ctx, st);
    return plan;
}

// The simulated iteration time of `plan` on the request's inputs, or infinity when it does not fit memory.
double simulatedSeconds(Plan plan, const PlanRequest& req, const CostModel& costs)
{
    plan.cluster = req.cluster;
    plan.model = req.model;
    plan.job = req.job;
    const SimResult r = simulate(plan, costs);
    return r.feasible ? r.iterationSeconds : std::numeric_limits<double>::infinity();
}

} // namespace

Plan HapPlanner::plan(const PlanRequest& req, const CostModel& costs, Progress& progress) const
{
    const long long batch = req.job.globalBatchSize;
    const TensorGraph g = buildTensorProgram(req.model, batch);
    const Devices d = deviceClasses(req.cluster, costs, req.job.precision);
    if (d.classes.size() > 8)
        throw InfeasibleError("hap: at most 8 GPU types per cluster");
    const bool hap = mode_ == Mode::Hap;
    SynthesisContext ctx = makeContext(g, req, d, hap && req.option("segments") == "layer");
    ctx.maxStates = hap ? req.intOption("max_states") : kDefaultMaxStates;
    SynthesisStats st;
    if (!hap) {
        progress.report(0.05, "hap: data-parallel program");
        const BalancedProgram b =
            dataParallelProgram(ctx, mode_ == Mode::DpProportional, req, costs, d, progress, st);
        if (mode_ == Mode::DpProportional && b.program.steps.empty() && !progress.cancelled())
            throw InfeasibleError("dp-proportional: the GPUs' memory cannot hold the global batch");
        if (b.program.steps.empty())
            throw CancelledError("hap: stopped before a program was found");
        return assemble(g, ctx, d, batch, b, st);
    }
    ctx.exactDominance = req.option("dominance") == "exact";
    progress.report(0.05, "hap: synthesizing");
    const MemoryLimit memory = memoryLimit(req, costs, d);
    const int rounds = req.intOption("rounds");
    const BalancedProgram b = optimize(
        ctx, rounds, [&] { return progress.cancelled(); }, &st, &memory,
        [&](int round) { progress.report(0.05 + 0.85 * round / rounds, "hap: round " + std::to_string(round + 1)); });
    const bool stopped = b.stoppedBy == "stopped";
    // Data parallelism is inside HAP's space (every op sharded on the batch), so HAP never does worse than
    // it: the two data-parallel programs are built too and the fastest simulated plan that fits is kept.
    // This also rescues the case where the A*, pricing time only, picks a program whose replicated
    // activations fit no ratios.
    progress.report(0.92, "hap: data-parallel programs");
    struct Option {
        const char* name;
        std::optional<Plan> plan;
        double seconds = std::numeric_limits<double>::infinity();
    };
    std::vector<Option> options;
    if (!b.program.steps.empty() && std::isfinite(b.ratios.seconds))
        options.push_back({"synthesized", assemble(g, ctx, d, batch, b, st)});
    SynthesisContext dpCtx = makeContext(g, req, d, false); // one set of ratios for the whole model
    dpCtx.maxStates = kDefaultMaxStates;
    for (bool proportional : {true, false}) {
        SynthesisStats dpStats;
        if (progress.stopReason() == StopReason::Cancelled)
            break;
        const BalancedProgram dp = dataParallelProgram(dpCtx, proportional, req, costs, d, progress, dpStats, true);
        if (!dp.program.steps.empty())
            options.push_back({proportional ? "data-parallel, proportional" : "data-parallel, even",
                               assemble(g, dpCtx, d, batch, dp, dpStats)});
    }
    QJsonObject compared;
    Option* best = nullptr;
    for (Option& o : options) {
        o.seconds = simulatedSeconds(*o.plan, req, costs);
        compared[o.name] = std::isfinite(o.seconds) ? QJsonValue(o.seconds) : QJsonValue("does not fit");
        if (!best || o.seconds < best->seconds)
            best = &o;
    }
    if (!best || !std::isfinite(best->seconds)) {
        if (stopped) // later rounds might have found ratios that fit: not proven infeasible
            throw CancelledError("hap: stopped (" + toString(progress.stopReason()) +
                                 ") before a program whose sharding ratios fit GPU memory");
        throw InfeasibleError("hap: no sharding ratios fit GPU memory for the synthesized programs");
    }
    Plan plan = std::move(*best->plan);
    QJsonObject section = plan.details["hap"];
    section["candidates_simulated"] = compared;
    section["chosen"] = best->name;
    plan.details["hap"] = section;
    plan.search.candidates = st.generated;
    if (stopped)
        plan.search.stopped = toString(progress.stopReason());
    return plan;
}

} // namespace hetplan
