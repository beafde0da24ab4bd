#pragma once
// Pipeline templates of the template planners (oobleck, exhaustive, ditto): stages of contiguous layers,
// each on g GPUs of one device type, and how a template becomes a Pipeline on real GPUs.
#include "core/model/plan.h"
#include "core/planners/common/stage_costs.h"
#include "core/planners/planner.h"

#include <QJsonArray>

#include <string>
#include <vector>

namespace hetplan {

// The `mbs` option the template planners share: 0 = the largest node's GPU count (a whole node can split
// one micro-batch data-parallel), else the value; it must divide the global batch.
PlannerOption templateMicroBatchOption();
// "max_states": the most DP states a template search may allocate. A search that would need more is
// refused before it allocates (InputError naming the count), not left to run out of memory.
PlannerOption maxStatesOption();
// Throws InputError("cluster", "nodes", ...) when `states` exceeds the request's max_states; `what` says
// what the states are made of.
void checkStateCount(const PlanRequest& request, const std::string& planner, double states, const std::string& what);
int templateMicroBatchSize(const PlanRequest& request);

// The cluster's GPUs grouped by device type, in order of first appearance.
struct TypeGroup {
    std::string type;
    std::vector<int> nodes; // node indices
    int gpus = 0;           // all GPUs of the type
    int maxNodeGpus = 0;    // the largest node: the most GPUs one stage may take
};
std::vector<TypeGroup> typeGroups(const Cluster& cluster);
std::vector<std::string> groupTypes(const std::vector<TypeGroup>& groups);
std::vector<int> groupNodeSizes(const std::vector<TypeGroup>& groups);

struct TemplateStage {
    int first = 0, end = 0; // layers [first, end)
    int type = 0;           // index into the device groups / StageCosts types
    int gpus = 1;
    StageShape shape;
    double time = 0; // F + B per micro-batch
    bool operator==(const TemplateStage&) const = default;
};

std::vector<double> stageTimes(const std::vector<TemplateStage>& stages);

// Re-derives each stage's shape and time from `costs` for its position (1F1B in-flight count); false if
// a stage no longer fits.
bool refreshStages(std::vector<TemplateStage>& stages, const StageCosts& costs, const Job& job);

// Places the stages on the groups' GPUs: each stage inside one node where a node has room (largest
// stages first, best fit), otherwise in tensor-parallel-sized chunks over several nodes. Throws
// InfeasibleError if a type runs out of GPUs.
Pipeline placeTemplate(const std::vector<TemplateStage>& stages, const Cluster& cluster,
                       const std::vector<TypeGroup>& groups, int microBatchSize, int microBatches);

// [{"layers": [a, b), "device": type, "gpus": g, "tp": .., "dp": .., "seconds": t}, ...]
QJsonArray templateJson(const std::vector<TemplateStage>& stages, const std::vector<TypeGroup>& groups);
// The objective's parts as {"T": .., "T1": .., "T2": .., "T3": .., "slowest_stage": k*}.
QJsonObject objectiveJson(const TemplateObjective& o);

} // namespace hetplan
