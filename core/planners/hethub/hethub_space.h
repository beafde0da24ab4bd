#pragma once
// HetHub's strategy space (sec. 3.3): data parallelism and intra-node tensor parallelism inside
// homogeneous nodes, a non-uniform pipeline across device types. The search tree's first level splits the
// decoder layers between device types (non-uniform pipeline), the second and third apply one data-parallel
// and one tensor-parallel degree to every stage (uniform DP, uniform TP).
//
// Decisions where the paper is silent:
// - dp and tp are the same for every stage ("uniform"), so the pipeline is a Megatron pipeline replicated dp
//   times (Pipeline::replicas = dp); a type with G GPUs holds G / (dp·tp) stages, and every GPU is used.
// - tp divides every node's GPU count and the model's shapes (allowedTensorDegrees), so tp groups stay
//   inside a node; a type's stage takes dp·tp consecutive GPUs of that type (node-major order).
// - The micro-batch size is searched too (divisors of the per-replica batch up to `max_micro_batch`); the
//   paper fixes it at 1.
// - Leading embedding layers and trailing head layers are not split: they ride with the first and last
//   stage, as in Megatron. Everything between them is a "decoder layer" of the split.
#include "core/cost/collectives.h"
#include "core/model/cluster.h"
#include "core/model/model.h"

#include <string>
#include <vector>

namespace hetplan::hethub {

// The GPUs of one device type, in dense (node-major) order.
struct TypeGroup {
    std::string device;
    std::vector<int> gpus;
};

// Device types in the order their first node appears.
std::vector<TypeGroup> typeGroups(const Cluster& cluster);

// The decoder layers [first, end): what is left after the leading embeddings and trailing heads.
struct DecoderRange {
    int first = 0, end = 0;
    int count() const { return end - first; }
};
DecoderRange decoderRange(const ModelSpec& model);

// One point of the second and third levels of the tree: uniform dp and tp, the micro-batch, and what they
// imply per device type.
struct SpaceConfig {
    int dp = 1, tp = 1, microBatchSize = 1, microBatches = 1;
    std::vector<int> stagesPerType; // G_i / (dp·tp)
    int stageCount() const;
};

// Every (tp, dp, mbs) that uses all GPUs, keeps tp inside nodes, gives each replica the same number of
// samples and leaves at least one decoder layer per stage. Ordered by tp, dp, mbs.
std::vector<SpaceConfig> enumerateConfigs(const Cluster& cluster, const ModelSpec& model,
                                          const std::vector<TypeGroup>& groups, int globalBatch, int maxMicroBatch);

// Every replica takes the same share of the batch (a Pipeline has one micro-batch size and count, and
// Megatron and DeepSpeed need equal shares), so dp must divide the global batch. When the GPU counts allow
// some dp > 1 but none of those divides the batch, the search runs without data parallelism; this says so
// ("" otherwise).
std::string dataParallelWarning(const Cluster& cluster, const ModelSpec& model, const std::vector<TypeGroup>& groups,
                                int globalBatch);

// The GPUs of type group `g`'s k-th stage (chunk k of dp·tp GPUs).
std::vector<int> stageChunk(const TypeGroup& g, const SpaceConfig& c, int k);

// The slowest link of the type's tensor-parallel groups (consecutive runs of tp GPUs).
LinkParams tensorLink(const Cluster& cluster, const TypeGroup& g, int tp);

} // namespace hetplan::hethub
