#include "frameworks.h"

#include "core/base/errors.h"
#include "framework_options.h"
#include "megatron_model.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace hetplan {

namespace {

void fail(FrameworkVerdict& v, std::string reason)
{
    v.ok = false;
    if (std::find(v.reasons.begin(), v.reasons.end(), reason) == v.reasons.end())
        v.reasons.push_back(std::move(reason));
}

std::string str(int v) { return std::to_string(v); }

// A plan a framework can run at all: pipelines or uniform-shaped data parallelism, not an SPMD program.
bool checkKind(const Plan& plan, const std::string& framework, FrameworkVerdict& v)
{
    if (!plan.pipelines.empty() || plan.zero)
        return true;
    fail(v, plan.spmd ? framework + " cannot run an SPMD program with per-GPU sharding ratios"
                      : "the plan has neither pipelines nor ZeRO batches");
    return false;
}

// One pipeline shape, replicated, with one tp and one dp degree for every stage.
void checkUniformPipelines(const Plan& plan, const std::string& framework, FrameworkVerdict& v)
{
    const Pipeline& p0 = plan.pipelines.front();
    if (p0.stages.empty())
        return;
    const int tp = p0.stages[0].tensorParallel, dp = p0.stages[0].dataParallel;
    for (const Pipeline& p : plan.pipelines) {
        bool same = p.stages.size() == p0.stages.size() && p.microBatchSize == p0.microBatchSize &&
                    p.microBatches == p0.microBatches && p.virtualStages == p0.virtualStages &&
                    p.contextParallel == p0.contextParallel && p.expertParallel == p0.expertParallel;
        for (size_t s = 0; same && s < p.stages.size(); ++s)
            same = p.stages[s].firstLayer == p0.stages[s].firstLayer && p.stages[s].endLayer == p0.stages[s].endLayer;
        if (!same)
            fail(v, framework + " runs one pipeline shape replicated; this plan has pipelines with different stages "
                                "or batches");
        for (const Stage& st : p.stages) {
            if (st.tensorParallel != tp)
                fail(v, framework + " uses one tensor-parallel degree for all stages; this plan mixes " + str(tp) +
                            " and " + str(st.tensorParallel));
            if (st.dataParallel != dp)
                fail(v, framework + " uses one data-parallel degree for all stages; this plan mixes " + str(dp) +
                            " and " + str(st.dataParallel));
        }
        // Context-parallel ranks share their samples: the micro-batch splits over the groups of them.
        const int sampleGroups = p.stages.empty() ? 1 : std::max(1, p.stages[0].dataParallel / p.contextParallel);
        if (!p.stages.empty() && p.microBatchSize % sampleGroups != 0)
            fail(v, "micro-batch " + str(p.microBatchSize) + " does not split evenly over " + str(sampleGroups) +
                        " data-parallel ranks of a stage");
    }
}

// Stage counts and tensor-parallel groups: shapes divisible, groups inside a node.
void checkStagesAndTensorGroups(const Plan& plan, const FrameworkRules& rules, FrameworkVerdict& v)
{
    std::set<int> degrees;
    for (const Pipeline& p : plan.pipelines) {
        if (int(p.stages.size()) > plan.model.layerCount())
            fail(v, "the pipeline has more stages (" + str(int(p.stages.size())) + ") than the model has layers (" +
                        str(plan.model.layerCount()) + ")");
        for (const Stage& st : p.stages) {
            if (st.layerCount() < 1)
                fail(v, "a pipeline stage holds no layers");
            degrees.insert(st.tensorParallel);
            if (rules.crossNodeTensorParallel || st.tensorParallel < 2)
                continue;
            // Stage GPUs are listed replica-major, then data-parallel rank, then tp rank: groups are chunks.
            for (size_t g = 0; g + st.tensorParallel <= st.gpus.size(); g += st.tensorParallel)
                for (int t = 1; t < st.tensorParallel; ++t)
                    if (!plan.cluster.sameNode(st.gpus[g], st.gpus[g + t]))
                        fail(v, "a tensor-parallel group spans nodes (" + plan.cluster.gpuName(st.gpus[g]) + " and " +
                                    plan.cluster.gpuName(st.gpus[g + t]) + "); frameworks keep tp inside a node");
        }
    }
    for (int tp : degrees)
        if (std::string why = tensorParallelProblem(plan.model, tp); !why.empty())
            fail(v, why);
}

bool isBlock(LayerKind k) { return k == LayerKind::Transformer || k == LayerKind::MoE; }

// Megatron builds embedding → blocks → head, with the embedding first and the head last.
void checkMegatronModel(const Plan& plan, FrameworkVerdict& v)
{
    const ModelSpec& m = plan.model;
    for (const LayerSpec& l : m.layers)
        if (!isBlock(l.kind) && l.kind != LayerKind::Embedding && l.kind != LayerKind::Head)
            fail(v, "Megatron-LM builds transformer models; layer '" + l.name +
                        "' is not an embedding, transformer block or head");
    if (m.blockCount() == 0)
        fail(v, "Megatron-LM needs at least one transformer block");
    for (const Pipeline& p : plan.pipelines)
        for (size_t s = 0; s < p.stages.size(); ++s)
            for (int l = p.stages[s].firstLayer; l < p.stages[s].endLayer && l < m.layerCount(); ++l) {
                if (m.layers[l].kind == LayerKind::Embedding && s != 0)
                    fail(v, "Megatron-LM keeps the embedding in the first stage; this plan puts it in stage " +
                                str(int(s)));
                if (m.layers[l].kind == LayerKind::Head && s + 1 != p.stages.size())
                    fail(v, "Megatron-LM keeps the head in the last stage; this plan puts it in stage " + str(int(s)));
            }
}

// One micro-batch and accumulation count for every GPU (what a standard config can say).
void checkUniformZero(const ZeroPlan& z, const std::string& framework, FrameworkVerdict& v)
{
    for (const ZeroGpu& g : z.gpus)
        if (g.microBatchSize != z.gpus.front().microBatchSize ||
            g.accumulationSteps != z.gpus.front().accumulationSteps || g.lastMicroBatchSize != g.microBatchSize) {
            fail(v, framework + " needs the same micro-batch and accumulation steps on every GPU; this plan gives "
                                "GPUs different batches");
            return;
        }
}

// DeepSpeed with per-rank batches (the exporter's rank→batch file feeds each rank's data loader): any
// micro-batch per rank, but from ZeRO-2 on gradients are reduced inside every backward (and ZeRO-3 gathers
// weights around every forward and backward), so every rank must run the same number of micro-steps.
void checkDeepSpeedZero(const ZeroPlan& z, FrameworkVerdict& v)
{
    if (z.stage < 2)
        return;
    for (const ZeroGpu& g : z.gpus)
        if (g.accumulationSteps != z.gpus.front().accumulationSteps) {
            fail(v, "DeepSpeed ZeRO-" + str(z.stage) +
                        " reduces gradients in every micro-step, so every rank needs the same number of "
                        "accumulation steps; this plan gives ranks different counts");
            return;
        }
}

// Megatron builds the plan's model parameter for parameter (vocabulary padding and BERT's binary head aside,
// which the launch script states), or says why not.
void checkMegatronBuildsModel(const Plan& plan, FrameworkVerdict& v)
{
    const std::string prefix = "Megatron-LM cannot build the plan's model: ";
    const std::vector<std::string> problems = megatronModelProblems(plan.model);
    for (const std::string& p : problems)
        fail(v, prefix + p);
    const bool layersFit = std::all_of(plan.model.layers.begin(), plan.model.layers.end(), [](const LayerSpec& l) {
        return isBlock(l.kind) || l.kind == LayerKind::Embedding || l.kind == LayerKind::Head;
    });
    if (!problems.empty() || !layersFit || plan.model.blockCount() == 0)
        return; // checkMegatronModel already says why
    try {
        const MegatronModelMatch m = matchMegatronModel(plan.model, plan.job.sequenceLength, 1);
        if (!m.mismatch.empty())
            fail(v, prefix + m.mismatch);
    } catch (const InputError& e) {
        fail(v, prefix + e.field() + ": " + e.reason());
    }
}

void checkOneVendor(const Plan& plan, const std::string& framework, FrameworkVerdict& v)
{
    if (std::string why = mixedVendorProblem(plan, framework); !why.empty())
        fail(v, std::move(why));
}

} // namespace

const char* const kHapNotLaunchable =
    "not launchable from hetplan: no export writes a program for HAP's runtime; the synthesized program and its "
    "sharding ratios are in the plan (JSON \"spmd\", and the text of hetplan-cli plan/simulate)";

// One NCCL job needs one GPU vendor: a PyTorch build is CUDA (NCCL) or ROCm (RCCL), and the two libraries
// cannot join one communicator.
std::string mixedVendorProblem(const Plan& plan, const std::string& framework)
{
    std::map<std::string, std::set<std::string>> byVendor;
    for (int node : plan.cluster.nodesOf(plan.usedGpus())) {
        const std::string& type = plan.cluster.nodes[node].deviceType;
        if (const DeviceType* d = DeviceCatalog::builtin().find(type))
            byVendor[d->vendor].insert(type);
    }
    if (byVendor.size() < 2)
        return {};
    std::string list;
    for (const auto& [vendor, types] : byVendor) {
        list += (list.empty() ? "" : "; ") + vendor + ":";
        for (const std::string& t : types)
            list += " " + t;
    }
    return "the plan's GPUs come from " + str(int(byVendor.size())) + " vendors (" + list +
           "); a PyTorch build runs CUDA with NCCL or ROCm with RCCL, and the two cannot join one communicator, so "
           "one " + framework + " job cannot span them";
}

std::string tensorParallelProblem(const ModelSpec& model, int tp)
{
    if (tp < 1)
        return "tensor-parallel degree " + str(tp) + " is not positive";
    const ModelArch& a = model.arch;
    const std::pair<int, const char*> shapes[] = {{a.heads, "attention heads"},
                                                  {a.keyValueHeads(), "key/value heads"},
                                                  {a.hidden, "hidden size"},
                                                  {a.ffn, "FFN size"}};
    for (const auto& [size, what] : shapes)
        if (size > 0 && size % tp != 0)
            return "tensor-parallel degree " + str(tp) + " does not divide the " + what + " (" + str(size) + ")";
    return {};
}

namespace {

// Pipelines whose boundary sends depend on the framework: more than one stage and tensor parallelism.
bool boundarySendsSplit(const Plan& plan)
{
    if (plan.pipelines.empty())
        return false;
    const Pipeline& p = plan.pipelines.front();
    return p.stages.size() > 1 && p.stages.front().tensorParallel > 1;
}

// The megatron-launch script runs Megatron-core, whose pipeline sends are whole tensors per tp rank (or
// sequence-split ones with --sequence-parallel); it has no scatter/gather of pipeline tensors.
void checkMegatronBoundarySends(const Plan& plan, FrameworkVerdict& v)
{
    const Job& job = plan.job;
    if (!boundarySendsSplit(plan) || job.framework == Framework::MegatronCore)
        return;
    if (job.runsSequenceParallel(plan.pipelines.front().stages.front().tensorParallel, plan.model.hasMoeLayers()))
        return; // sequence-split sends: the same traffic in Megatron-core
    fail(v, "the job's framework is " + toString(job.framework) +
                ", whose pipeline sends are split across the tensor-parallel group and all-gathered by the "
                "receiver; Megatron-core (what the megatron-launch script runs) sends whole tensors per rank, so "
                "set the job's framework to megatron-core (or turn on sequence_parallel)");
}

// The options the plan uses (framework_options.h) that `target`, what the verdict's export runs, lacks; and,
// for pipeline plans, those the job's framework lacks: the job says where the plan will run.
void checkOptions(const Plan& plan, Framework target, FrameworkVerdict& v)
{
    for (FrameworkOption o : optionsUsed(plan)) {
        if (std::string why = unsupportedReason(target, o); !why.empty())
            fail(v, std::move(why));
        else if (!plan.pipelines.empty() && !(why = unsupportedReason(plan.job.framework, o)).empty())
            fail(v, "the job's framework is " + toString(plan.job.framework) + ", and " + why);
    }
}

} // namespace

FrameworkVerdict checkMegatron(const Plan& plan, const FrameworkRules& rules)
{
    FrameworkVerdict v;
    if (!checkKind(plan, "Megatron-LM", v))
        return v;
    checkMegatronModel(plan, v);
    if (!plan.pipelines.empty()) {
        checkUniformPipelines(plan, "Megatron-LM", v);
        checkStagesAndTensorGroups(plan, rules, v);
    } else {
        checkUniformZero(*plan.zero, "Megatron-LM", v);
    }
    checkOptions(plan, Framework::MegatronCore, v); // the megatron-launch script runs Megatron-core
    checkMegatronBoundarySends(plan, v);
    checkOneVendor(plan, "Megatron-LM", v);
    checkMegatronBuildsModel(plan, v);
    return v;
}

FrameworkVerdict checkDeepSpeed(const Plan& plan, const FrameworkRules& rules)
{
    FrameworkVerdict v;
    if (!checkKind(plan, "DeepSpeed", v))
        return v;
    if (!plan.pipelines.empty()) {
        checkUniformPipelines(plan, "DeepSpeed", v);
        checkStagesAndTensorGroups(plan, rules, v);
        checkOptions(plan, Framework::DeepSpeedPipe, v); // ZeRO plans run on the plain engine instead
    } else {
        checkDeepSpeedZero(*plan.zero, v);
    }
    checkOneVendor(plan, "DeepSpeed", v);
    return v;
}

FrameworkVerdict checkHapRuntime(const Plan& plan)
{
    FrameworkVerdict v;
    if (!plan.spmd || !plan.pipelines.empty() || plan.zero) {
        fail(v, "the HAP runtime runs SPMD programs only");
        return v;
    }
    if (plan.spmd->instructions.empty())
        fail(v, "the SPMD program has no instructions");
    for (const auto& row : plan.spmd->shardingRatios) {
        double sum = 0;
        for (double r : row)
            sum += r;
        if (int(row.size()) != plan.cluster.gpuCount() || std::abs(sum - 1) > 1e-6)
            fail(v, "every segment needs one ratio per GPU, summing to 1");
    }
    checkOneVendor(plan, "HAP", v);
    fail(v, kHapNotLaunchable);
    return v;
}

std::map<std::string, FrameworkVerdict> checkFrameworks(const Plan& plan, const FrameworkRules& rules)
{
    std::map<std::string, FrameworkVerdict> out = {{"megatron", checkMegatron(plan, rules)},
                                                   {"deepspeed", checkDeepSpeed(plan, rules)}};
    if (plan.spmd)
        out["hap"] = checkHapRuntime(plan);
    return out;
}

std::string nativeFramework(const Plan& plan)
{
    switch (plan.kind()) {
    case PlanKind::Pipelines: return "megatron";
    case PlanKind::Zero: return "deepspeed";
    case PlanKind::Spmd: return "hap";
    case PlanKind::Empty: return "";
    }
    return "";
}

} // namespace hetplan
