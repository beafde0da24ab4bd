#pragma once
// What each framework a job can name (Job::framework) runs, option by option: the one table that the
// framework verdicts (frameworks.h), the planners' search spaces (core/planners/megatron_space.h), the job's
// own validation and the exporters follow. A plan that uses an option its job's framework lacks is refused
// by every verdict (the job says where it will run), and so is one whose export target lacks it: the
// megatron-launch script runs Megatron-core, the deepspeed exports run DeepSpeed's pipeline engine.
//
//   option                 megatron-core  megatron-legacy  deepspeed-pipe
//   context parallelism    yes            no               no
//   expert parallelism     yes            no               no
//   interleaved 1F1B       yes            yes              no
//   sequence parallelism   yes            yes              no
//   distributed optimizer  yes            yes              yes (ZeRO-1)
//   ZeRO-2 / ZeRO-3        no             no               no (with pipelines)
//   selective recompute    yes            yes              no
//   full recompute         yes            yes              yes
//   MoE capacity factor    yes            no               no
//
// The reasons, with their sources, are in framework_options.cpp. ZeRO plans (poplar, whale, deepspeed-zero)
// run on DeepSpeed's plain engine whatever the job's framework; only their ZeRO stage is an option here.
#include "core/model/job.h"
#include "core/model/plan.h"

#include <string>
#include <vector>

namespace hetplan {

enum class FrameworkOption {
    ContextParallel,      // Pipeline::contextParallel > 1: ring attention over the sequence
    ExpertParallel,       // Pipeline::expertParallel > 1: experts spread, tokens sent by all-to-all
    Interleaving,         // Pipeline::virtualStages > 1: interleaved 1F1B
    SequenceParallel,     // Job::runsSequenceParallel at the plan's tp
    DistributedOptimizer, // zero_stage 1 (Megatron's --use-distributed-optimizer, DeepSpeed's ZeRO-1)
    ZeroGradients,        // zero_stage 2
    ZeroParameters,       // zero_stage 3
    SelectiveRecompute,   // --recompute-granularity selective
    FullRecompute,        // every layer's activations recomputed
    MoeCapacityFactor,    // Job::moeCapacityFactor > 0 on an MoE model
};

inline constexpr FrameworkOption kFrameworkOptions[] = {
    FrameworkOption::ContextParallel,  FrameworkOption::ExpertParallel,       FrameworkOption::Interleaving,
    FrameworkOption::SequenceParallel, FrameworkOption::DistributedOptimizer, FrameworkOption::ZeroGradients,
    FrameworkOption::ZeroParameters,   FrameworkOption::SelectiveRecompute,   FrameworkOption::FullRecompute,
    FrameworkOption::MoeCapacityFactor};
inline constexpr Framework kFrameworks[] = {Framework::MegatronCore, Framework::MegatronLegacy,
                                            Framework::DeepSpeedPipe};

// "context parallelism", "ZeRO-2", ...
std::string toString(FrameworkOption option);

// Empty when `framework` runs `option`, else why not, naming the framework.
std::string unsupportedReason(Framework framework, FrameworkOption option);
inline bool frameworkRuns(Framework framework, FrameworkOption option)
{
    return unsupportedReason(framework, option).empty();
}

// The options `plan` uses: of a pipeline plan every row above that applies; of a ZeRO plan its ZeRO stage
// (1: the distributed optimizer); of an SPMD plan none.
std::vector<FrameworkOption> optionsUsed(const Plan& plan);

} // namespace hetplan
