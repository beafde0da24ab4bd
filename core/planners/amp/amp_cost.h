#pragma once
// AMP's cost model (sec. 3.4, eq. 3-5) for a 3D-parallel strategy (degrees, placement, micro-batch,
// layer split), shared by the amp, megatron, random and annealing planners.
//
//   T = max_r T_pp(r) + max_d T_sync(d)                                                       (eq. 4)
//   T_pp(r) = (gas − 1)·max_s t_{s,r} + Σ_s e_{s,r} + Σ_s t_{s,r}                              (eq. 5)
//   T_sync(d) = ring all-reduce of d's gradients over its data-parallel group at the group's lowest
//               bandwidth: 2(n−1)M/(nB')                                                       (eq. 3)
//
// Readings where the paper leaves room (written down here):
// - t_{s,r} = forward + backward seconds of the stage's layers for one micro-batch on replica r's tensor
//   group, from CostModel (measured profile first, analytic otherwise). The profile's tp timings assume
//   an intra-node group; a tp group that spans nodes (only possible with the domino or random
//   placements) additionally pays the difference between its layers' tp all-reduces (forward and
//   backward) at the group's bottleneck link and at the node's own link.
// - e_{s,r}: one p2p of outputBytes(last layer of s)·mbs over the slowest of the tp rank pairs between the
//   two stages. Eq. 5 counts each stage boundary once (Σ_{i<pp} e_i), as the paper writes it; the
//   gradient's way back is not added (the shared simulator models both directions).
// - All replicas share one layer split. The layer-assignment DP therefore uses, per stage, the slowest
//   replica's stage time and cut time (an upper bound of max_r T_pp(r) that is exact when the replicas
//   run on the same device types and links); eq. 4 is then evaluated exactly per replica.
// - Memory: AMP has none. fitsMemory() applies core/cost/memory.h (weights, grads, optimizer, 1F1B or
//   GPipe activations in flight) against each stage's GPUs so planners can drop or keep misfits. With
//   repairMemory, a split that does not fit is re-solved by the same DP with the stages that would not fit
//   forbidden (PipelineProblem::allowed), so degrees that can fit are not lost to a memory-blind split.
#include "core/cost/costmodel.h"
#include "core/planners/amp/layer_dp.h"
#include "core/planners/common/strategy.h"

#include <map>
#include <memory>
#include <mutex>

namespace hetplan {

// Forward+backward seconds per layer as prefix sums (size L+1), one vector per (device, tp, mbs), computed
// once and shared by every candidate. Thread-safe.
class LayerTimeTable {
public:
    explicit LayerTimeTable(const CostModel& costs) : costs_(costs) {}
    std::shared_ptr<const std::vector<double>> prefix(const std::string& device, int tp, int mbs) const;

private:
    const CostModel& costs_;
    mutable std::mutex mutex_;
    mutable std::map<ProfileKey, std::shared_ptr<const std::vector<double>>> cache_;
};

enum class LayerDpMethod { Fast, Paper };

struct AmpEstimate {
    std::vector<int> bounds;    // pp+1 layer boundaries
    double seconds = 0;         // eq. 4
    double pipelineSeconds = 0; // max_r T_pp(r)
    double syncSeconds = 0;     // max_d T_sync(d)
    bool fitsMemory = true;
    bool repaired = false; // the split was re-solved under the memory constraint
    long long dpSteps = 0; // inner-loop steps of the layer DP
    bool stopped = false;  // `stop` came before the memory limits were known: nothing was evaluated
};

class AmpCostModel {
public:
    AmpCostModel(const Cluster& cluster, const CostModel& costs);

    const Cluster& cluster() const { return cluster_; }
    const CostModel& costs() const { return costs_; }

    // The layer-assignment problem of this placement (for the DP).
    PipelineProblem problem(const Placement& p, int mbs, int gas) const;
    // Optimal layer split by the DP, then eq. 4 and the memory check (and the memory repair, if asked).
    // `stop` (optional) cuts the layer DP's walk short with its best split so far and skips the repair.
    AmpEstimate evaluate(const Placement& p, int mbs, int gas, LayerDpMethod method = LayerDpMethod::Fast,
                         bool repairMemory = false, const std::function<bool()>& stop = {}) const;
    // allowed[] mask for PipelineProblem: stage s may hold [a, b) iff its peak memory fits all its GPUs.
    std::vector<char> memoryMask(const Placement& p, int mbs, int gas) const;
    // The same as limits: lastEnd[s][a] is the largest b for which stage s may hold [a, b) (≤ a: none).
    // `stop` (optional) is polled per stage; when it returns true the limits are empty.
    std::vector<std::vector<int>> memoryLimits(const Placement& p, int mbs, int gas,
                                               const std::function<bool()>& stop = {}) const;
    // Eq. 4 and the memory check for a given split.
    AmpEstimate estimate(const Placement& p, int mbs, int gas, const std::vector<int>& bounds) const;

    double pipelineSeconds(const Placement& p, int mbs, int gas, const std::vector<int>& bounds) const;
    double syncSeconds(const Placement& p, const std::vector<int>& bounds) const;
    // The communicators a GPU of stage s of `p` belongs to (core/cost/memory.h).
    RankGroups rankGroups(const Placement& p, int s) const;
    bool fitsMemory(const Placement& p, int mbs, int gas, const std::vector<int>& bounds) const;

private:
    struct Layout;
    Layout layout(const Placement& p, int mbs, int gas) const;
    double pipelineSeconds(const Layout& lay, const std::vector<int>& bounds) const;
    bool stageFits(const Placement& p, int s, int first, int end, int mbs, int gas) const;
    // One node per distinct (device type, runtime overhead) among stage s's nodes: whether a stage fits
    // depends on nothing else of a node, and a stage may span hundreds of nodes of a few kinds.
    std::vector<const Node*> stageKinds(const Placement& p, int s) const;
    int inFlight(const Placement& p, int s, int gas) const;
    // evaluate()'s fast layer DP with the memory repair (the limits admit some split).
    LayerSplit fastSplitWithRepair(const Placement& p, int mbs, int gas, PipelineProblem& problem,
                                   const std::vector<std::vector<int>>& limits, AmpEstimate& e) const;
    int zeroShards(const Placement& p) const;

    const Cluster& cluster_;
    const CostModel& costs_;
    LayerTimeTable times_;
    std::vector<double> outputBytes_;      // per layer, per sample
    std::vector<double> tpParamsPrefix_;   // prefix sums of tensor-parallel layers' params
    std::vector<double> fullParamsPrefix_; // prefix sums of the other layers' params
    std::vector<int> gpuNode_;             // node of each dense GPU
};

} // namespace hetplan
