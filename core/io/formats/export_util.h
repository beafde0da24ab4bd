#pragma once
// Checks shared by the plan exporters (internal to core/io). A plan a target cannot express is refused
// with InputError("plan", field, reason) rather than written as something that would run another plan.
#include "core/model/plan.h"

#include <QJsonObject>
#include <string>
#include <vector>

namespace hetplan::exportutil {

[[noreturn]] void refuse(const std::string& field, const std::string& reason);

// Refuses a plan the framework ("megatron" or "deepspeed") cannot run, with every reason the framework
// check (core/model/frameworks.h) gives: InputError("plan", "frameworks.<name>", reasons).
void requireFramework(const Plan& plan, const std::string& framework);

// The shape of a pipeline plan that passed requireFramework(): every pipeline has the same stages (they are
// then just more data-parallel replicas) and every stage the same tensor- and data-parallel degree.
struct UniformPipeline {
    int stages = 1, tp = 1, dp = 1; // dp: data parallelism inside a stage (splits the micro-batch)
    int cp = 1, ep = 1;             // context- and expert-parallel sizes (cp of the dp ranks share samples)
    int replicas = 0;               // over all pipelines
    int microBatchSize = 1;         // per pipeline replica
    int microBatches = 1;
    std::vector<int> bounds; // first layer of each stage, then the layer count
    // The frameworks' data-parallel size: ranks that hold different samples (context-parallel ranks do not).
    int dataParallelSize() const { return replicas * dp / cp; }
    int microBatchPerGpu() const { return microBatchSize * cp / dp; }
};
UniformPipeline uniformPipeline(const Plan& plan);

// A ZeRO plan that passed requireFramework(): every GPU runs the same batches.
struct UniformZero {
    int stage = 0, gpus = 0, microBatchSize = 0, accumulationSteps = 0;
};
UniformZero uniformZero(const Plan& plan);

// DeepSpeed's view of a plan that passed requireFramework("deepspeed"): its topology (pipe, data, model
// axes) and the three batch numbers of its config, which must multiply out (train = micro × gas × dp).
// For per-GPU ZeRO batches gas is the most micro-steps of any rank and micro the global batch over gas × dp
// when that divides; otherwise micro is rounded up and train exceeds the real global batch (nominal).
struct DeepSpeedShape {
    int pp = 1, tp = 1, dp = 1;
    int micro = 1, gas = 1, zeroStage = 0;
    int globalBatch = 0;   // the plan's samples per iteration
    bool perRank = false;  // ranks run different batches (the rank→batch file drives the data loaders)
    std::vector<int> bounds; // pipelines: first layer of each stage, then the layer count
    int train() const { return micro * gas * dp; }
};
DeepSpeedShape deepSpeedShape(const Plan& plan);

// Launchers (DeepSpeed's hostfile, torchrun under Megatron) number ranks host by host and, on each host,
// give local rank k to GPU k. The plan's rank order must be exactly that, or the launched job would put
// stages on other GPUs than planned.
void refuseScatteredRanks(const Plan& plan);

// Refuses a plan whose planner or node names are not plain names (core/base/names.h): they are written
// unquoted into hostfiles and CSV rank tables, and into launch scripts. The readers refuse such names
// already; this guards plans built in memory.
void requirePlainNames(const Plan& plan);

std::string indentedJson(const QJsonObject& o);

// A Python string literal of ASCII only: quote and backslash escaped, every other character outside printable
// ASCII as \xNN, \uNNNN or \UNNNNNNNN (invalid UTF-8 becomes U+FFFD). Nothing in it can end the literal.
std::string pythonString(const std::string& s);

} // namespace hetplan::exportutil
