#pragma once
// The one place planners and the simulator get layer times from: measured profile entries win, the analytic
// generator fills the rest. Thread-safe for concurrent readers. How a measured entry is used at another
// tp, with recomputation, at another sequence length or precision: docs/architecture.md, "Measured profiles".
#include "analytic.h"
#include "memory.h"
#include "collectives.h"
#include "core/model/cluster.h"
#include "core/model/device.h"
#include "core/model/job.h"
#include "core/model/model.h"
#include "core/model/profile.h"

#include <string>
#include <vector>

namespace hetplan {

class CostModel {
public:
    CostModel(const ModelSpec& model, const Job& job, const Profile& measured,
              const DeviceCatalog& catalog = DeviceCatalog::builtin());

    const ModelSpec& model() const { return model_; }
    const Job& job() const { return job_; }
    const Profile& measured() const { return measured_; }
    const DeviceCatalog& catalog() const { return catalog_; }
    const DeviceType& device(const std::string& name) const; // throws InputError if unknown

    // Timing of one layer for one micro-batch on `device` with tensor-parallel degree tp.
    LayerTiming layer(int layer, const std::string& device, int tp, double microBatch) const;
    // Sums over layers [first, end).
    LayerTiming range(int first, int end, const std::string& device, int tp, double microBatch) const;
    // All layers at once (planners precompute these).
    std::vector<LayerTiming> layers(const std::string& device, int tp, double microBatch) const;
    bool isMeasured(const std::string& device, int tp) const { return measured_.has(device, tp); }

    // The stage's part of one GPU's memory (core/cost/memory.h: model states, `inFlight` micro-batches of
    // activations, the gradient buffer, the allocator reserve), the profile's measured activations where it
    // has them; communicators and context are the GPU's (addGpuTerms).
    GpuMemory stageMemory(int first, int end, const std::string& device, int tp, int dpShards, double microBatch,
                          int inFlight) const;
    // The activations of layers [first, end) per micro-batch (stageMemory's activation terms, before they are
    // multiplied by the micro-batches in flight), the profile's measured ones where it has them.
    StageActivations stageActivations(int first, int end, const std::string& device, int tp, double microBatch) const;
    // stageMemory(...).stagePart(): what fitsMemory takes.
    double stagePeak(int first, int end, const std::string& device, int tp, int dpShards, double microBatch,
                     int inFlight) const;
    // Per layer, the profile's measured full activation bytes of one micro-batch that stagePeak uses, −1
    // where it uses the model's (core/cost/stage_peak_scan.h).
    std::vector<double> measuredActivations(const std::string& device, int tp, double microBatch) const;
    // What the profile's recorded sequence length / precision mean for this job (empty when they match).
    const std::vector<std::string>& warnings() const { return warnings_; }

    // Tensor-parallel all-reduces in analytic layer times assume the device's usual intra-node link. When a
    // tp group really talks over `link` (the cluster's own intra-node bandwidth, or a NIC when the group
    // spans nodes), forward and backward each change by this many seconds. A measured tp > 1 time already
    // contains its all-reduces, so it gets none (0).
    double tpLinkDelta(int first, int end, const std::string& device, int tp, double microBatch,
                       const LinkParams& link) const;
    // range() with the tp all-reduces over `link`.
    LayerTiming range(int first, int end, const std::string& device, int tp, double microBatch,
                      const LinkParams& link) const;

    // Whether Megatron runs sequence parallelism at this tp for this job and model.
    bool sequenceParallel(int tp) const { return job_.runsSequenceParallel(tp, moeModel_); }
    // The share of layer `layer`'s forward its attention core takes (selective recomputation's extra work, the
    // compute context parallelism's ring transfers hide behind).
    double attentionCoreShare(int layer, const std::string& device, int tp, double microBatch) const;

private:
    AnalyticContext analyticContext() const;
    // The measured full activations of layers [first, end) at this micro-batch, −1 where not measured.
    std::vector<double> measuredFullOf(int first, int end, const std::string& device, int tp, double microBatch) const;

    ModelSpec model_;
    Job job_;
    Profile measured_;
    const DeviceCatalog& catalog_;
    std::vector<double> sequenceScale_; // per layer: measured time x this = time at the job's sequence
    bool measuredMemory_ = true;        // the profile's activation bytes apply to this job
    bool moeModel_ = false;
    std::vector<std::string> warnings_;
};

// The warnings CostModel(..., job, profile).warnings() gives, for callers that print them. Throws
// InputError when the profile's precision differs from the job's.
std::vector<std::string> profileWarnings(const Job& job, const Profile& profile);
// What the analytic profile cannot time properly in `model`: blocks and heads with FLOPs but no work list
// (a model file that gives neither the work nor the arch sizes to derive it, core/model/model.h), whose
// times then come from the uncalibrated FLOP rule; a model whose head carries its own vocabulary matrix
// while the file does not say whether the embeddings are tied (ModelArch::tiedEmbeddingsStated), or says
// tied (the copy would be counted twice). Empty for the bundled examples.
std::vector<std::string> modelWarnings(const ModelSpec& model);
// What a job file left ambiguous: the older optimizer_bytes_per_param (the mixed-precision share, read as
// optimizer states = value - 4).
std::vector<std::string> jobWarnings(const Job& job);
// Factor that turns a layer time measured at `fromSequence` tokens into one at `toSequence` tokens: the
// layer's FLOPs at both lengths, the attention scores (4·s²·h for a transformer or MoE block of hidden h)
// growing with s², everything else with s.
double sequenceTimeScale(const ModelSpec& model, int layer, double fromSequence, double toSequence);

} // namespace hetplan
