#pragma once
// HetHub's evaluation metrics (sec. 4.2), written to the plan JSON under "hethub":
// - tokens_per_gpu_second, eq. 2: sequence · global batch / (GPUs · iteration seconds);
// - mfu, eq. 4: achieved model FLOP/s per GPU over the mean peak of the GPUs used at the job's precision
//   (model FLOPs = (1 + backward factor) · forward FLOPs; recomputation is not counted, as MFU defines);
// - additive_upper_bound_tokens_per_gpu_second, eq. 3: each device type trained on its own GPUs with the
//   best plan of the same search (one type: the uniform Megatron space), scored by the shared simulator,
//   combined as Σ T_i · N_i / Σ N_i; absent when some type cannot hold the model alone;
// - uniform_split_tokens_per_gpu_second and gain_over_uniform_split: the chosen degrees and stage order with
//   the decoder layers split evenly over the stages (the paper's "uniform slicing"), so the gain of the
//   non-uniform split shows; only when that twin fits memory (else uniform_split says it does not).
#include "hethub_search.h"

#include <QJsonObject>

namespace hetplan::hethub {

double tokensPerGpuSecond(const Plan& plan);
double modelFlopsUtilization(const Plan& plan, const CostModel& costs);

// The nodes of one device type (and the links among them) as a cluster of their own.
Cluster typeSubCluster(const Cluster& cluster, const std::string& device);

// The uniform-split twin of the chosen pipeline, simulated.
Plan uniformSplitPlan(const SearchResult& result, const PlanRequest& req, const CostModel& costs);

// The "hethub" details section: the chosen layout, the metrics above and each type's homogeneous result.
// The homogeneous searches use the same `settings`.
QJsonObject hethubDetails(const SearchResult& result, const PlanRequest& req, const CostModel& costs,
                          const Progress& progress, const SearchSettings& settings);

} // namespace hetplan::hethub
