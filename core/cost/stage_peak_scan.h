#pragma once
// CostModel::stagePeak for one first layer and every end in turn, each step O(1): the layer DP's memory
// mask asks for O(k·L²) ranges, and stagePeak is O(end − first). The running sums add the same terms in
// the same order as modelStateMemory and stageActivations (core/cost/memory.cpp), so every peak is the
// very double stagePeak returns (tests/core/tst_memory_model.cpp checks them bit for bit).
#include "core/cost/costmodel.h"

#include <string>
#include <vector>

namespace hetplan {

class StagePeakScan {
public:
    StagePeakScan(const CostModel& costs, const std::string& device, int tp, int dpShards, double microBatch);

    void start(int first); // the empty range [first, first)
    void extend();         // end += 1 (end must stay ≤ the model's layer count)
    int end() const { return end_; }
    // stagePeak(first, end, device, tp, dpShards, microBatch, inFlight) of the current range.
    double peak(int inFlight) const;

private:
    const ModelSpec& model_;
    const Job& job_;
    int tp_ = 1;
    int shards_ = 1;
    double microBatch_ = 0;
    std::vector<double> params_;    // per layer: its params on one tp rank
    std::vector<double> full_;      // per layer: full activation bytes of one micro-batch
    std::vector<double> inFlight_;  // per layer: what one micro-batch in flight keeps
    int first_ = 0, end_ = 0;
    double paramSum_ = 0, perMicroBatch_ = 0, largest_ = 0;
    bool head_ = false, embedding_ = false;
};

} // namespace hetplan
