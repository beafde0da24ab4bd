#include "stage_peak_scan.h"

#include "core/cost/memory.h"

#include <algorithm>

namespace hetplan {

StagePeakScan::StagePeakScan(const CostModel& costs, const std::string& device, int tp, int dpShards,
                             double microBatch)
    : model_(costs.model()), job_(costs.job()), tp_(std::max(1, tp)), shards_(std::max(1, dpShards)),
      microBatch_(microBatch)
{
    // The per-layer terms of modelStateMemory and stageActivations, written as they compute them.
    const std::vector<double> measured = costs.measuredActivations(device, tp, microBatch);
    const bool sp = job_.runsSequenceParallel(tp_, model_.hasMoeLayers());
    const int L = model_.layerCount();
    params_.resize(L);
    full_.resize(L);
    inFlight_.resize(L);
    for (int l = 0; l < L; ++l) {
        const LayerSpec& s = model_.layers[l];
        params_[l] = s.tensorParallel ? s.params / tp_ : s.params;
        const LayerActivation a = layerActivation(s, tp_, microBatch, job_, sp, measured[l]);
        full_[l] = a.full;
        inFlight_[l] = a.kept;
    }
}

void StagePeakScan::start(int first)
{
    first_ = end_ = first;
    paramSum_ = perMicroBatch_ = largest_ = 0;
    head_ = embedding_ = false;
}

void StagePeakScan::extend()
{
    const int l = end_++;
    paramSum_ += params_[l];
    perMicroBatch_ += inFlight_[l];
    largest_ = std::max(largest_, full_[l]);
    head_ |= model_.layers[l].kind == LayerKind::Head;
    embedding_ |= model_.layers[l].kind == LayerKind::Embedding;
}

double StagePeakScan::peak(int inFlight) const
{
    // modelStateMemory: a stage holding the head but not the embedding keeps a tied copy.
    const double tied = model_.arch.tiedEmbeddings && first_ >= 0 && end_ <= model_.layerCount() && head_ &&
                                !embedding_
                            ? model_.arch.wordEmbeddingParams()
                            : 0;
    StageActivations a;
    a.perMicroBatch = perMicroBatch_;
    a.oncePerStage = job_.recompute ? largest_ : 0;
    a.largestLayer = largest_;
    return stageParts(paramSum_ + tied / tp_, shards_, a, inFlight, microBatch_, job_).stagePart();
}

} // namespace hetplan
