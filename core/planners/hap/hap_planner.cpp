#include "hap_planner.h"

#include "graph_builders.h"
#include "load_balance.h"
#include "program.h"

#include "core/base/errors.h"
#include "core/cost/collectives.h"
#include "core/cost/gradient_reduction.h"
#include "core/cost/memory.h"
#include "core/cost/spmd_costs.h"
#include "core/cost/zero_comm.h"
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

Devices deviceClasses(const Cluster& cluster, const CostModel& costs, const Job& job)
{
    Devices d;
    std::map<std::string, int> index;
    for (const GpuRef& ref : cluster.gpuRefs()) {
        const std::string& type = cluster.nodes[ref.node].deviceType;
        auto [it, added] = index.try_emplace(type, int(d.classes.size()));
        if (added) {
            const DeviceType& dev = costs.device(type);
            d.classes.push_back({type, 0, spmdFlopsRate(dev, job)});
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

// What the search prices like the simulator: compute at the layer-level cost model's seconds per FLOP (per
// layer, pass and class, at the class's compute-proportional samples), the gradient reduction in
// DeepSpeed's buckets after the backward, and the layer-level model's activation bytes.
void calibrate(SynthesisContext& ctx, const TensorGraph& g, const PlanRequest& req, const CostModel& costs,
               const Devices& d)
{
    const size_t S = g.segments.size();
    std::vector<double> fwd(S, 0), bwd(S, 0), kept(S, 0);
    for (int i = 0; i < int(g.ops.size()); ++i) {
        const Op& op = g.ops[size_t(i)];
        const size_t seg = size_t(op.segment);
        const double bytes = g.tensors[size_t(op.output)].elements() * ctx.valueBytes;
        if (i < g.forwardOps) {
            if (op.kind == OpKind::Placeholder || !op.isLeaf())
                kept[seg] += bytes; // the instructions spmdMemoryTerms counts: inputs and forward outputs
            if (!op.isLeaf())
                fwd[seg] += op.flops;
        } else if (op.kind == OpKind::Grad && !(op.forwardOp >= 0 && g.ops[size_t(op.forwardOp)].isLeaf())) {
            bwd[seg] += op.flops;
        }
    }
    const std::vector<double> share = proportionalRatios(d.classes);
    const double batch = double(std::max<long long>(1, req.job.globalBatchSize));
    ctx.forwardSpf.assign(S, std::vector<double>(d.classes.size()));
    ctx.backwardSpf = ctx.forwardSpf;
    ctx.activationScale.assign(S, 1.0);
    for (size_t s = 0; s < S; ++s) {
        const int layer = spmdLayerOf(req.model, g.segments[s]);
        for (size_t k = 0; k < d.classes.size(); ++k) {
            const double samples = std::round(share[k] * batch);
            ctx.forwardSpf[s][k] = spmdSecondsPerFlop(costs, layer, d.classes[k].deviceType, samples, false, fwd[s]);
            ctx.backwardSpf[s][k] = spmdSecondsPerFlop(costs, layer, d.classes[k].deviceType, samples, true, bwd[s]);
        }
        ctx.activationScale[s] = spmdActivationScale(req.model, req.job, g.segments[s], kept[s]);
    }
    ctx.gradientBytesPerValueByte = gradientReduceBytesPerParam(req.job) / req.job.bytesPerValue();
    ctx.bucketBytes = reduceBucketBytes(gradientReduceBytesPerParam(req.job));
    ctx.stateBytesPerValueByte = spmdStateBytesPerValueByte(req.job);
}

// The smallest usable memory of any GPU (memory.h's rule): what bytes every GPU holds must fit.
double smallestUsableMemory(const PlanRequest& req, const CostModel& costs)
{
    // Every GPU is in the one data-parallel communicator of all GPUs.
    const RankGroups all = RankGroups::dataParallel(req.cluster.gpuCount());
    double least = std::numeric_limits<double>::infinity();
    for (const Node& node : req.cluster.nodes)
        if (node.gpus > 0)
            least = std::min(least, usableMemory(node, costs.device(node.deviceType), req.job, all));
    return least;
}

// Per-GPU ratios of each segment (the classes' shares, one entry per GPU).
std::vector<double> perGpu(const std::vector<double>& row, const Devices& d)
{
    std::vector<double> exact;
    for (int c : d.classOf)
        exact.push_back(row[c]);
    return exact;
}

// Per-GPU ratios with the batch rounded to whole samples (section 5.1), per segment.
std::vector<std::vector<double>> gpuRatios(const std::vector<std::vector<double>>& perClass, const Devices& d,
                                           long long batch)
{
    std::vector<std::vector<double>> out;
    for (const auto& row : perClass) {
        std::vector<double> r;
        for (long long s : roundShards(perGpu(row, d), batch))
            r.push_back(double(s) / double(batch));
        out.push_back(r);
    }
    return out;
}

// Section 5.1 for every sharded dimension, not just the batch: each instruction sharded on a dimension of
// `size` units gets that dimension rounded to whole units per GPU (roundShards: largest remainder, sum
// exact) from its segment's per-GPU ratios. One entry per (segment, size): two dimensions of one size in a
// segment round alike. The batch dimension rounds to the plan's sharding ratios themselves.
class DimensionTable {
public:
    DimensionTable(const std::vector<std::vector<double>>& classRatios, const Devices& d) : ratios_(classRatios), d_(d)
    {}
    int of(int segment, long long size, char label)
    {
        if (size <= 0)
            return -1;
        auto [it, added] = index_.try_emplace({segment, size}, int(dims_.size()));
        if (added) {
            SpmdDimension dim;
            dim.label = label == kLinear || label == kReplicated ? "" : std::string(1, label);
            dim.size = size;
            dim.segment = segment;
            dim.shards = roundShards(perGpu(ratios_[size_t(segment)], d_), size);
            dims_.push_back(std::move(dim));
        }
        return it->second;
    }
    std::vector<SpmdDimension> take() { return std::move(dims_); }

private:
    const std::vector<std::vector<double>>& ratios_;
    const Devices& d_;
    std::map<std::pair<int, long long>, int> index_;
    std::vector<SpmdDimension> dims_;
};

// The dimension a lowered instruction is sharded on, -1 if none: a compute's rule label, a sharded load's
// or collective's tensor dimension.
int dimensionOf(const TensorGraph& g, const Instruction& ins, DimensionTable& table)
{
    const Tensor& t = g.tensors[size_t(ins.tensor)];
    if (ins.kind == Instruction::Kind::Compute) {
        const Op& op = g.ops[size_t(ins.op)];
        if (ins.label == kReplicated || ins.label == kLinear)
            return -1;
        return table.of(ins.segment, op.labelSize(ins.label, g.tensors), ins.label);
    }
    Form f = ins.out;
    if (ins.kind == Instruction::Kind::Collective && !f.isSharded())
        f = ins.from;
    if (!f.isSharded() || ins.rebalance || f.dim() >= int(t.shape.size()))
        return -1;
    char label = kReplicated;
    for (int c : t.consumers) { // the label its consumers give that dimension, for the listing
        const Op& op = g.ops[size_t(c)];
        for (size_t q = 0; q < op.inputs.size(); ++q)
            if (op.inputs[q] == ins.tensor && f.dim() < int(op.inLabels[q].size()))
                label = op.inLabels[q][size_t(f.dim())];
        if (label != kReplicated)
            break;
    }
    return table.of(ins.segment, t.shape[size_t(f.dim())], label);
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
        cap = std::min(cap, usableMemory(node, dev, req.job, RankGroups::dataParallel(int(d.classOf.size()))));
    }
    m.terms = [&model = req.model, job = req.job](const SynthesisContext& ctx, const Program& p) {
        std::vector<SpmdInstruction> ins;
        for (const Instruction& i : lower(ctx, p))
            ins.push_back(toPlan(ctx, i));
        return spmdMemoryTerms(ins, ctx.ratioSegments(), model, job);
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
    o["stopped_by"] = QString::fromStdString(toString(b.stoppedBy));
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
BalancedProgram dataParallelProgram(SynthesisContext ctx, bool proportional, const PlanRequest& req,
                                    const CostModel& costs, const Devices& d, Progress& progress, SynthesisStats& st)
{
    BalancedProgram b;
    ctx.allowedLabels = "b";
    if (!proportional)
        ctx.ratios.assign(1, std::vector<double>(d.classes.size(), 1.0 / ctx.ranks));
    const auto stop = [&progress] { return progress.cancelled(); };
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
    b.stoppedBy = LoopEnd::FixedRatios;
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
    DimensionTable dims(b.ratios.perGpu, d);
    sp.program.reserve(prog.size());
    sp.instructions.reserve(prog.size());
    for (const Instruction& ins : prog) {
        sp.program.push_back(describe(g, ins));
        sp.instructions.push_back(toPlan(ctx, ins));
        if (sp.instructions.back().sharded || ins.kind == Instruction::Kind::Collective)
            sp.instructions.back().dimension = dimensionOf(g, ins, dims);
    }
    sp.dimensions = dims.take();
    markGradientReductions(g, prog, sp.instructions);
    sp.segments = ctx.ratioSegments() == 1 ? std::vector<std::string>{"model"} : g.segments;
    plan.spmd = std::move(sp);
    plan.plannerEstimate = b.ratios.seconds;
    plan.search.candidates = st.generated;
    plan.search.extra = {{"expanded", double(st.expanded)}, {"pruned", double(st.pruned)}, {"rounds", b.rounds}};
    plan.details["hap"] = details(b, ctx, st);
    return plan;
}

// What whole-unit rounding did that a user should know: GPUs left without samples (a global batch smaller
// than the GPU count) and dimensions with fewer units than GPUs (8 experts on 64 GPUs: 56 GPUs hold none).
std::vector<std::string> roundingWarnings(const PlanRequest& req, const SpmdPlan& sp)
{
    std::vector<std::string> out;
    const int gpus = req.cluster.gpuCount();
    const long long batch = req.job.globalBatchSize;
    if (batch < gpus)
        out.push_back("the global batch " + std::to_string(batch) + " is smaller than the " + std::to_string(gpus) +
                      " GPUs: at least " + std::to_string(gpus - batch) +
                      " GPUs get no sample of every batch-sharded op");
    std::set<std::pair<std::string, long long>> told;
    for (const SpmdDimension& dim : sp.dimensions) {
        if (dim.size >= gpus || dim.size == batch || !told.insert({dim.label, dim.size}).second)
            continue;
        const std::string seg =
            dim.segment < int(sp.segments.size()) ? sp.segments[size_t(dim.segment)] : std::to_string(dim.segment);
        out.push_back("dimension '" + dim.label + "' of " + std::to_string(dim.size) + " units (first in segment " +
                      seg + ") is sharded over " + std::to_string(gpus) + " GPUs: " + std::to_string(gpus - dim.size) +
                      " or more GPUs hold none of it and skip its ops (whole units per GPU)");
    }
    return out;
}

// The simulated iteration time of `plan` on the request's inputs (set on it here: a copy would copy the
// whole program), or infinity when it does not fit memory.
double simulatedSeconds(Plan& plan, const PlanRequest& req, const CostModel& costs)
{
    plan.cluster = req.cluster;
    plan.model = req.model;
    plan.job = req.job;
    const SimResult r = simulate(plan, costs, SimOptions{false}); // timings only: no timeline (100,000 GPUs)
    return r.feasible ? r.iterationSeconds : std::numeric_limits<double>::infinity();
}

} // namespace

Plan HapPlanner::plan(const PlanRequest& req, const CostModel& costs, Progress& progress) const
{
    const long long batch = req.job.globalBatchSize;
    const TensorGraph g = buildTensorProgram(req.model, batch, [&progress] { return progress.cancelled(); });
    const Devices d = deviceClasses(req.cluster, costs, req.job);
    if (d.classes.size() > 8)
        throw InfeasibleError("hap: at most 8 GPU types per cluster");
    const bool hap = mode_ == Mode::Hap;
    const int gpus = req.cluster.gpuCount();
    if (!hap && batch < gpus) // data parallelism gives every GPU at least one sample
        throw InfeasibleError(name() + ": the global batch " + std::to_string(batch) + " is smaller than the " +
                              std::to_string(gpus) + " GPUs; data parallelism would leave " +
                              std::to_string(gpus - batch) + " GPUs without a sample (raise --gbs to at least " +
                              std::to_string(gpus) + ")");
    SynthesisContext ctx = makeContext(g, req, d, hap && req.option("segments") == "layer");
    calibrate(ctx, g, req, costs, d);
    ctx.maxStates = hap ? req.intOption("max_states") : kDefaultMaxStates;
    SynthesisStats st;
    if (!hap) {
        progress.report(0.05, "hap: data-parallel program");
        const BalancedProgram b = dataParallelProgram(ctx, mode_ == Mode::DpProportional, req, costs, d, progress, st);
        if (mode_ == Mode::DpProportional && b.program.steps.empty() && !progress.cancelled())
            throw InfeasibleError("dp-proportional: the GPUs' memory cannot hold the global batch");
        if (b.program.steps.empty())
            throw CancelledError("hap: stopped before a program was found");
        return assemble(g, ctx, d, batch, b, st);
    }
    ctx.exactDominance = req.option("dominance") == "exact";
    ctx.replicatedCapBytes = smallestUsableMemory(req, costs);
    SynthesisContext dpCtx = makeContext(g, req, d, false); // one set of ratios for the whole model
    calibrate(dpCtx, g, req, costs, d);
    dpCtx.maxStates = kDefaultMaxStates;
    // The Q/B loop starts from data parallelism at memory-capped compute-proportional ratios (DP-CP), a
    // point of HAP's space: its first pair is that program, so the loop only keeps what improves on it.
    progress.report(0.03, "hap: data-parallel starting point");
    SynthesisStats startStats;
    // Within the time limit like the search: on a model of thousands of layers it takes seconds.
    const BalancedProgram start = progress.cancelled()
                                      ? BalancedProgram{}
                                      : dataParallelProgram(dpCtx, true, req, costs, d, progress, startStats);
    progress.report(0.05, "hap: synthesizing");
    const MemoryLimit memory = memoryLimit(req, costs, d);
    const int rounds = req.intOption("rounds");
    BalancedProgram b;
    try {
        b = optimize(
            ctx, rounds, [&] { return progress.cancelled(); }, &st, &memory,
            [&](int round) {
                progress.report(0.05 + 0.85 * round / rounds, "hap: round " + std::to_string(round + 1));
            },
            start.program.steps.empty() ? nullptr : &start);
    } catch (const InfeasibleError&) {
        // Every program the A* could reach holds more replicated bytes than the smallest GPU: none fits.
        b = {};
        b.ratios.seconds = std::numeric_limits<double>::infinity();
    }
    bool stopped = b.stoppedBy == LoopEnd::Stopped;
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
    // The proportional one is the loop's starting point, already built. The even one is built only within
    // the time limit: on a model of thousands of layers it takes seconds.
    if (!start.program.steps.empty())
        options.push_back({"data-parallel, proportional", assemble(g, dpCtx, d, batch, start, startStats)});
    SynthesisStats dpStats;
    const BalancedProgram even =
        progress.cancelled() ? BalancedProgram{} : dataParallelProgram(dpCtx, false, req, costs, d, progress, dpStats);
    if (!even.program.steps.empty())
        options.push_back({"data-parallel, even", assemble(g, dpCtx, d, batch, even, dpStats)});
    else
        stopped = stopped || progress.cancelled(); // not every candidate was compared
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
    QJsonArray warnings;
    for (const std::string& w : roundingWarnings(req, *plan.spmd))
        warnings.append(QString::fromStdString(w));
    if (!warnings.isEmpty())
        section["warnings"] = warnings;
    plan.details["hap"] = section;
    plan.search.candidates = st.generated;
    if (stopped)
        plan.search.stopped = progress.stopReason();
    return plan;
}

} // namespace hetplan
