#pragma once
// What Megatron-LM and DeepSpeed can actually run, in one place. Planners build their search spaces from
// these rules (so they never return a plan a framework cannot run), the simulator records the verdicts in
// estimate.frameworks, and the exporters refuse a plan whose target framework says no, with its reasons.
//
// Rules (each broken one adds a reason):
// - tensor parallelism splits attention heads, key/value heads (grouped-query models), the hidden size and
//   the FFN size, so the degree must divide each of them (sizes the model does not state are not checked);
// - a pipeline has at most as many stages as layers, and every stage holds at least one layer;
// - a tensor-parallel group stays inside one node (its all-reduces run every layer; frameworks place tp on
//   NVLink neighbours) unless FrameworkRules::crossNodeTensorParallel allows it;
// - both frameworks run one pipeline shape, replicated: every pipeline has the same stages and batches and
//   every stage the same tensor- and data-parallel degree; a stage's data-parallel ranks split the
//   micro-batch evenly;
// - Megatron builds transformer models: only embedding, transformer/MoE blocks and a head, the embedding in
//   the first stage and the head in the last;
// - the options a plan uses (context and expert parallelism, interleaving, sequence parallelism, the ZeRO
//   stage, recomputation, the MoE capacity factor) follow one table, framework_options.h: the verdict's
//   export target (Megatron-core for "megatron", DeepSpeed's pipeline engine for "deepspeed" pipelines) and,
//   for pipeline plans, the job's framework must run each of them;
// - DeepSpeed's ZeRO plans run on its plain engine (every stage); its config takes one
//   micro-batch and accumulation count, but with the exporter's rank→batch file each rank's data loader
//   takes its own micro-batch, accumulation steps and last micro-batch (docs/deepspeed-rank-batches.md);
//   from ZeRO-2 on every rank must still run the same number of micro-steps (gradients are reduced in
//   every backward);
// - neither runs an SPMD program with per-GPU sharding ratios; those run on HAP's runtime ("hap"), which
//   needs the program's instructions and, per segment, one ratio per GPU summing to 1; hetplan writes no
//   launch for that runtime, so the "hap" verdict is never ok (kHapNotLaunchable says why);
// - pipeline boundary sends (with more than one stage and tp > 1) follow the job's framework
//   (core/cost/pipeline_p2p.h): Megatron-core (what the megatron-launch script runs) cannot send them split
//   and all-gathered as megatron-legacy / deepspeed-pipe jobs do, unless sequence parallelism makes the
//   traffic the same;
// - every pipeline has the same virtual stages, context- and expert-parallel sizes;
// - one job runs on one GPU vendor: a PyTorch build is CUDA (NCCL) or ROCm (RCCL) and the two libraries
//   cannot form one communicator, so a plan whose GPUs span vendors (HetHub's mixed clusters) runs on none
//   of the three;
// - Megatron builds the plan's model parameter for parameter from the exported arguments
//   (megatron_model.h): models it cannot express (OPT's projected embedding and ReLU, MoE inside BERT,
//   image models) or whose counts differ beyond the vocabulary padding and BERT's binary head are refused
//   with "Megatron-LM cannot build the plan's model: ...".
#include "core/model/cluster.h"
#include "core/model/model.h"
#include "core/model/plan.h"

#include <map>
#include <string>
#include <vector>

namespace hetplan {

struct FrameworkRules {
    bool crossNodeTensorParallel = false; // allow tp groups that span nodes
};

// Empty if the model's shapes split into `tp` tensor-parallel shards, else why not.
std::string tensorParallelProblem(const ModelSpec& model, int tp);

// Empty when the GPUs the plan uses come from one vendor, else why one `framework` job cannot span them.
std::string mixedVendorProblem(const Plan& plan, const std::string& framework);

// The reason every "hap" verdict carries.
extern const char* const kHapNotLaunchable;

FrameworkVerdict checkMegatron(const Plan& plan, const FrameworkRules& rules = {});
FrameworkVerdict checkDeepSpeed(const Plan& plan, const FrameworkRules& rules = {});
// HAP's SPMD runtime (PyTorch + NCCL, one program on every GPU).
FrameworkVerdict checkHapRuntime(const Plan& plan);
// Both, keyed "megatron" and "deepspeed", and "hap" for SPMD plans.
std::map<std::string, FrameworkVerdict> checkFrameworks(const Plan& plan, const FrameworkRules& rules = {});

// The framework a plan of this kind is made for: "megatron" for pipelines, "deepspeed" for ZeRO, "hap" for SPMD.
std::string nativeFramework(const Plan& plan);

} // namespace hetplan
