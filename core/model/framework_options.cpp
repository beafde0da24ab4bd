#include "framework_options.h"

#include <algorithm>

namespace hetplan {

namespace {

// Why `framework` lacks `option` ("" when it runs it). Sources:
// - megatron-core: Megatron-LM's megatron/core (TransformerConfig context_parallel_size and the ring in its
//   attention, MoE token dispatchers with moe_expert_capacity_factor, the interleaved schedule in
//   pipeline_parallel/schedules.py, the distributed optimizer); its training/arguments.py has no ZeRO-2/3.
// - megatron-legacy: Megatron-LM's legacy model code (megatron/legacy/model/transformer.py, what
//   --use-legacy-models runs and Megatron-LM had before Megatron-core). ParallelAttention attends over the
//   rank's whole sequence (no context-parallel group); SwitchMLP routes top-1 by Sinkhorn and, with experts
//   over several ranks, all-gathers every token over the expert group and reduce-scatters the outputs (no
//   all-to-all dispatch, no capacity). Selective recomputation (checkpoint_core_attention), sequence
//   parallelism, the interleaved schedule and the distributed optimizer are Megatron's training loop's and
//   work with it.
// - deepspeed-pipe: DeepSpeed's deepspeed/runtime/pipe (PipelineEngine asserts zero_optimization_stage() < 2,
//   "ZeRO-2 and ZeRO-3 are incompatible with pipeline parallelism"; TrainSchedule is plain 1F1B;
//   PipelineModule's activation_checkpoint_interval checkpoints whole layers). It has no Megatron sequence or
//   context parallelism (Ulysses splits attention heads instead), and the deepspeed exports write no MoE
//   setup (DeepSpeed-MoE's expert groups and capacity_factor live in the model code).
std::string megatronCoreLacks(FrameworkOption o)
{
    switch (o) {
    case FrameworkOption::ZeroGradients:
        return "Megatron-LM's distributed optimizer shards optimizer states only (ZeRO-1); ZeRO stage 2 has no "
               "Megatron equivalent";
    case FrameworkOption::ZeroParameters:
        return "Megatron-LM's distributed optimizer shards optimizer states only (ZeRO-1); ZeRO stage 3 has no "
               "Megatron equivalent";
    default: return {};
    }
}

std::string megatronLegacyLacks(FrameworkOption o)
{
    switch (o) {
    case FrameworkOption::ContextParallel:
        return "legacy Megatron-LM has no context parallelism: its attention works on each rank's whole sequence "
               "(ring attention is Megatron-core's)";
    case FrameworkOption::ExpertParallel:
        return "legacy Megatron-LM's MoE layer (SwitchMLP) all-gathers every token over the expert ranks instead "
               "of the all-to-all dispatch that was simulated (Megatron-core's token dispatcher)";
    case FrameworkOption::MoeCapacityFactor:
        return "legacy Megatron-LM's MoE layer (SwitchMLP) routes without a capacity factor (Megatron-core's "
               "--moe-expert-capacity-factor)";
    default: return megatronCoreLacks(o);
    }
}

std::string deepSpeedPipeLacks(FrameworkOption o)
{
    switch (o) {
    case FrameworkOption::ContextParallel:
        return "DeepSpeed's pipeline engine has no Megatron context parallelism (ring attention); its Ulysses "
               "sequence parallelism is a different split";
    case FrameworkOption::ExpertParallel:
        return "the deepspeed export writes no expert-parallel MoE setup (DeepSpeed-MoE's expert groups)";
    case FrameworkOption::Interleaving: return "DeepSpeed's pipeline engine has no interleaved schedule";
    case FrameworkOption::SequenceParallel: return "DeepSpeed's pipeline engine has no Megatron sequence parallelism";
    case FrameworkOption::ZeroGradients:
    case FrameworkOption::ZeroParameters: return "DeepSpeed does not support ZeRO stage ≥2 with pipeline parallelism";
    case FrameworkOption::SelectiveRecompute:
        return "DeepSpeed's pipeline engine has no selective recomputation (it checkpoints whole layers)";
    case FrameworkOption::MoeCapacityFactor:
        return "the deepspeed export writes no MoE capacity factor (DeepSpeed-MoE's capacity_factor is set in the "
               "model code)";
    default: return {};
    }
}

int tensorParallelOf(const Plan& plan)
{
    int tp = 1;
    for (const Pipeline& p : plan.pipelines)
        for (const Stage& s : p.stages)
            tp = std::max(tp, s.tensorParallel);
    return tp;
}

template <class Member>
bool anyPipeline(const Plan& plan, Member member)
{
    return std::any_of(plan.pipelines.begin(), plan.pipelines.end(), [&](const Pipeline& p) { return p.*member > 1; });
}

void addZeroStage(int stage, std::vector<FrameworkOption>& out)
{
    if (stage == 1)
        out.push_back(FrameworkOption::DistributedOptimizer);
    else if (stage == 2)
        out.push_back(FrameworkOption::ZeroGradients);
    else if (stage == 3)
        out.push_back(FrameworkOption::ZeroParameters);
}

} // namespace

std::string toString(FrameworkOption option)
{
    switch (option) {
    case FrameworkOption::ContextParallel: return "context parallelism";
    case FrameworkOption::ExpertParallel: return "expert parallelism";
    case FrameworkOption::Interleaving: return "interleaved 1F1B";
    case FrameworkOption::SequenceParallel: return "sequence parallelism";
    case FrameworkOption::DistributedOptimizer: return "distributed optimizer";
    case FrameworkOption::ZeroGradients: return "ZeRO-2";
    case FrameworkOption::ZeroParameters: return "ZeRO-3";
    case FrameworkOption::SelectiveRecompute: return "selective recomputation";
    case FrameworkOption::FullRecompute: return "full recomputation";
    case FrameworkOption::MoeCapacityFactor: return "MoE capacity factor";
    }
    return "?";
}

std::string unsupportedReason(Framework framework, FrameworkOption option)
{
    switch (framework) {
    case Framework::MegatronCore: return megatronCoreLacks(option);
    case Framework::MegatronLegacy: return megatronLegacyLacks(option);
    case Framework::DeepSpeedPipe: return deepSpeedPipeLacks(option);
    }
    return {};
}

std::vector<FrameworkOption> optionsUsed(const Plan& plan)
{
    std::vector<FrameworkOption> out;
    if (plan.zero && plan.pipelines.empty()) {
        addZeroStage(plan.zero->stage, out);
        return out;
    }
    if (plan.pipelines.empty())
        return out;
    const Job& j = plan.job;
    const bool moe = plan.model.hasMoeLayers();
    if (anyPipeline(plan, &Pipeline::contextParallel))
        out.push_back(FrameworkOption::ContextParallel);
    if (anyPipeline(plan, &Pipeline::expertParallel))
        out.push_back(FrameworkOption::ExpertParallel);
    if (anyPipeline(plan, &Pipeline::virtualStages))
        out.push_back(FrameworkOption::Interleaving);
    if (j.runsSequenceParallel(tensorParallelOf(plan), moe))
        out.push_back(FrameworkOption::SequenceParallel);
    addZeroStage(j.zeroStage, out);
    if (j.selectiveRecompute)
        out.push_back(FrameworkOption::SelectiveRecompute);
    if (j.recompute)
        out.push_back(FrameworkOption::FullRecompute);
    if (moe && j.moeCapacityFactor > 0)
        out.push_back(FrameworkOption::MoeCapacityFactor);
    return out;
}

} // namespace hetplan
