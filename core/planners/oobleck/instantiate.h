#pragma once
// Oobleck's instantiation: the cluster's N nodes as pipelines of templates, the batch split across them.
#include "core/planners/common/oobleck_templates.h"

#include <map>
#include <vector>

namespace hetplan {

struct PipelineInstance {
    int nodes = 0;
    const PipelineTemplate* tmpl = nullptr;
    int microBatches = 0;
    double seconds = 0; // T with its own micro-batches
};

struct Instantiation {
    std::vector<PipelineInstance> pipelines;
    double seconds = kNoStage; // the slowest pipeline's T
};

// Gives each pipeline one micro-batch, then each further one to the pipeline that would finish earliest
// with it; this minimises the slowest pipeline's T = sum + (b - 1) max (each T grows with b). Needs
// B ≥ pipelines.
std::vector<int> splitMicroBatches(const std::vector<const PipelineTemplate*>& pipelines, int microBatches);

// The best instantiation of `nodes` nodes: p = 1 .. nodes / n_min pipelines of ⌊N/p⌋ or ⌈N/p⌉ nodes.
// `bestByNodes`: node count → its best template. Empty pipelines if nothing fits.
Instantiation instantiate(const std::map<int, const PipelineTemplate*>& bestByNodes, int nodes, int microBatches);

// The instances on real GPUs: pipelines take `nodeIds` in order, stages fill each pipeline's nodes in
// order; identical instances (same template and micro-batches) become replicas of one Pipeline.
std::vector<Pipeline> placeInstances(const Instantiation& inst, const Cluster& cluster, const std::vector<int>& nodeIds,
                                     int microBatchSize);

} // namespace hetplan
