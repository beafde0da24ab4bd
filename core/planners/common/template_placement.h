#pragma once
// Pipeline templates of the template planners (oobleck, exhaustive, ditto): stages of contiguous layers,
// each on g GPUs of one device type, and how a template becomes a Pipeline on real GPUs.
#include "core/model/plan.h"
#include "core/planners/common/stage_costs.h"
#include "core/planners/planner.h"

#include <QJsonArray>
#include <QJsonObject>

#include <string>
#include <vector>

namespace hetplan {

// The `mbs` option the template planners share: 0 = the largest node's GPU count (a whole node can split
// one micro-batch data-parallel), else the value; it must divide the global batch.
PlannerOption templateMicroBatchOption();
// The "mbs" option of the planners that search it (ditto, exhaustive): 0 = search.
PlannerOption searchedMicroBatchOption();
// The micro-batch sizes to try: the option's value when set, else 1, 2, 4, ... up to the largest node's GPU
// count (and that count), those dividing the global batch, largest first (the fixed default of old).
std::vector<int> templateMicroBatchCandidates(const PlanRequest& request);
// A fingerprint of what templates depend on: the model's layers, the job and the measured profile. Stored
// templates (--reuse, re-planning after a node failure) are used only when it matches: templates made for
// another model or job would be silently wrong.
std::string templateInputsKey(const PlanRequest& request);
// Throws InputError("--reuse", "<planner>.inputs", reason) when a stored section's "inputs" key differs
// from this request's; a section without one (written before the key existed) is accepted.
void checkReusedInputs(const PlanRequest& request, const QJsonObject& stored, const std::string& planner);
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
// Per group, its node with the least usable memory (a node's runtime_overhead may be larger than the
// catalog's): every stage placed on the type must fit there.
std::vector<Node> groupTightestNodes(const std::vector<TypeGroup>& groups, const Cluster& cluster,
                                     const CostModel& costs);

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

// One pipeline of `replicas` identical copies of the template (Pipeline::replicas), the copies sharing
// nodes: each stage inside one node where one has room, else in tensor-parallel chunks, taken copy by copy
// (a copy's stages close together) or stage by stage (a stage's copies close together). Throws
// InfeasibleError when a type runs out of GPUs.
enum class CopyOrder { ByCopy, ByStage };
Pipeline placeReplicated(const std::vector<TemplateStage>& stages, const Cluster& cluster,
                         const std::vector<TypeGroup>& groups, int replicas, int microBatchSize, int microBatches,
                         CopyOrder order = CopyOrder::ByCopy);

// Multi-pipeline instantiation: k identical pipelines, each on its own k-th of every type's nodes, each
// running 1/k of the global batch (Oobleck instantiates several pipelines; on a heterogeneous cluster the
// same template is placed on each share). The replica counts k ≥ 2 (at most 8) that split every type's
// nodes evenly; a type whose nodes differ in size is not split.
std::vector<int> replicaCounts(const std::vector<TypeGroup>& groups, const Cluster& cluster);
// "pipelines": 0 = try one pipeline and every replica count above; n = exactly n (1 = the papers' single
// pipeline).
PlannerOption pipelinesOption();
// The replica counts to try for `request` (pipelinesOption); n that does not split the nodes evenly is
// InputError("options", "pipelines", reason).
std::vector<int> replicaCandidates(const PlanRequest& request, const std::vector<TypeGroup>& groups);
// Share r (0 ≤ r < k): the r-th k-th of each type's nodes.
std::vector<TypeGroup> replicaShare(const std::vector<TypeGroup>& groups, const Cluster& cluster, int k, int r);
// What k replicas add to T: the gradient all-reduce of each stage across them, through the nodes' NICs
// (the slowest stage's), once per iteration.
double replicaSyncSeconds(const std::vector<TemplateStage>& stages, const ModelSpec& model, const Job& job,
                          const Cluster& cluster, const std::vector<TypeGroup>& groups, int k);
// The k pipelines of `stages`, one per share.
std::vector<Pipeline> placeReplicas(const std::vector<TemplateStage>& stages, const Cluster& cluster,
                                    const std::vector<TypeGroup>& groups, int k, int microBatchSize, int microBatches);
// The objective's parts as {"T": .., "T1": .., "T2": .., "T3": .., "slowest_stage": k*}.
QJsonObject objectiveJson(const TemplateObjective& o);

} // namespace hetplan
