#pragma once
// Oobleck's pipeline-template generation (SOSP'23 section 4.1.2) on a homogeneous cluster: for every node
// count n and stage count S, the pipeline of S stages on exactly n nodes of M GPUs of one type, where each
// node's GPUs are split among consecutive stages (a stage never spans nodes), minimising the template
// objective T (stage_costs.h) with every stage fitting memory. Shared by `oobleck` (real nodes) and `ditto`
// (the virtual homogeneous cluster of node folding, single-GPU stages).
//
// Oobleck's divide and conquer recurses over (stages, layer range, nodes); we solve the same problem as a
// dynamic program over suffixes: state (u, G, k) = layers [u, L) on the last G GPUs in k stages, each
// state keeping the Pareto set of (sum, max) of its stage times. T is non-decreasing in (sum, max) and a
// stage's cost and fit depend only on its layers, GPU count and k, so dropping dominated labels keeps every
// optimum (the exactness argument of common/exact_pipeline.h with the GPU vector reduced to one count).
// A stage of g GPUs at suffix offset G must lie inside one node block: G / M == (G + g - 1) / M.
#include "core/planners/common/template_placement.h"

#include <map>
#include <vector>

namespace hetplan {

struct PipelineTemplate {
    int gpus = 0; // n · M
    std::vector<TemplateStage> stages;
    double sum = 0, max = 0;
    double objective(int microBatches) const { return objectiveOf(sum, max, microBatches); }
};

struct TemplateGenOptions {
    int type = 0;                 // the StageCosts type the cluster is made of
    int gpusPerNode = 1;          // M
    int maxGpus = 1;              // largest template: n_max · M (or any count with singleGpuStages)
    bool singleGpuStages = false; // only stages of one GPU (Ditto's n·M-stage virtual templates)
    bool ignoreMemory = false;    // virtual devices: no memory limit
};

class TemplateTable {
public:
    // Best template of exactly `gpus` GPUs and `stages` stages, or nullptr if none fits.
    const PipelineTemplate* at(int gpus, int stages) const;
    // Best template of exactly `gpus` GPUs over all stage counts (T with `microBatches`), or nullptr.
    const PipelineTemplate* best(int gpus, int microBatches) const;
    std::vector<int> gpuCounts() const;                      // counts that have a template, ascending
    std::map<std::pair<int, int>, PipelineTemplate> entries; // (gpus, stages) → template
    long long labels = 0;
};

// The DP states generateTemplates allocates for `layers` layers and templates of up to `maxGpus` GPUs:
// (layers + 1) · (maxGpus + 1) · (min(layers, maxGpus) + 1). Callers check it (checkStateCount) first.
double templateStateCount(int layers, int maxGpus);

// Generates the table; `progress` may be null (polled per state; a stop throws CancelledError).
TemplateTable generateTemplates(const StageCosts& costs, const TemplateGenOptions& options, const Progress* progress);

} // namespace hetplan
