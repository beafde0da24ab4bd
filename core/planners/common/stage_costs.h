#pragma once
// Stage costs for the pipeline-template planners (oobleck, exhaustive, ditto): the time one micro-batch
// spends in a stage of contiguous layers on g GPUs of one device type, and whether the stage fits memory
// with a given number of micro-batches in flight. A stage's g GPUs run tensor parallel (tp) and/or data
// parallel (dp, splitting each micro-batch) inside the stage, as Oobleck's stages do; the fastest shape
// that fits is taken. Range times are prefix sums, so a lookup is O(1).
//
// The template objective (Ditto eq. 1-3, Oobleck 4.1.2) with t_s = F_s + B_s of stage s, N_b micro-batches
// and k* the slowest stage (1-based):
//   T1 = sum_s t_s                       one micro-batch through every stage (warm-up and drain)
//   T2 = (N_b - S + k* - 1) t_k*         the slowest stage's steady state
//   T3 = (S - k*) t_k*                   the slowest stage's extra in-flight work
// so T = sum_s t_s + (N_b - 1) max_s t_s. Decision: the paper's eq. 3 charges the S - k* slots behind the
// bottleneck at the later stages' own times; under 1F1B the bottleneck stage runs its S - k* extra warm-up
// forwards and cool-down backwards at its own pace, so we charge them at t_k*. The literal reading
// undercounts whenever the bottleneck is early (two stages 1.0, 0.5 with N_b = 4: 4.0 instead of the 4.5 a
// 1F1B run takes). With this reading T depends on (sum, max) only, which the exact search relies on.
#include "core/cost/costmodel.h"

#include <limits>
#include <string>
#include <vector>

namespace hetplan {

class Progress;

constexpr double kNoStage = std::numeric_limits<double>::infinity();

struct StageShape {
    int tp = 1, dp = 1;
    bool operator==(const StageShape&) const = default;
};

struct StageChoice {
    double time = kNoStage; // F + B seconds per micro-batch; kNoStage = no shape fits
    StageShape shape;
    bool ok() const { return time < kNoStage; }
};

struct TemplateObjective {
    double t1 = 0, t2 = 0, t3 = 0;
    int slowest = 0; // k* - 1
    double total() const { return t1 + t2 + t3; }
};
// T for stage times `t` (in pipeline order) and `microBatches` micro-batches; ties pick the last slowest.
TemplateObjective templateObjective(const std::vector<double>& t, int microBatches);
inline double objectiveOf(double sum, double max, int microBatches) { return sum + (microBatches - 1) * max; }

// Micro-batches of activations stage `s` of `stages` keeps: 1F1B min(S - s, N_b), GPipe N_b.
int stageInFlight(const Job& job, int s, int stages, int microBatches);

class StageCosts {
public:
    // `types`: device type names; `maxGpus[i]`: the most GPUs one stage may take of type i (a node's
    // GPUs). Shapes: tp from the model's allowed degrees dividing g and ≤ maxGpus, dp = g / tp dividing
    // the micro-batch.
    // `nodes[i]` is the node a stage of type i must fit on and talk through (groupTightestNodes); empty: a
    // node with the type's catalog runtime overhead, and no communication in the stage times. With
    // `cluster` (its latencies and intra-node links), a stage's time also holds its communication:
    //  - the pipeline send of its last layer's output per micro-batch, forward and the gradient back,
    //    over the node's NIC (the next stage may be anywhere; the NIC is the conservative path);
    //  - the gradient all-reduce over its data-parallel ranks (inside the node), which runs once per
    //    iteration, spread over the micro-batches (divided by N_b) so T keeps its (sum, max) form and the
    //    template searches stay exact for it (an approximation of max_s of the syncs after the flush);
    //  - likewise the optimizer step of its layers.
    //
    // The memory table (the most micro-batches in flight that fit, per layer range and shape) holds
    // memoryEntries() entries and takes O(entries · log N_b) to fill. With `memory` = Defer the constructor
    // builds only the times (cheap: modelTime, fastest), so a caller can check what the table and its own
    // search would cost before paying for them, then calls fitMemory(); best() needs the table.
    enum class Memory { Fit, Defer };
    StageCosts(const CostModel& costs, const Job& job, std::vector<std::string> types, std::vector<int> maxGpus,
               int microBatchSize, int microBatches, std::vector<Node> nodes = {}, const Cluster* cluster = nullptr,
               Memory memory = Memory::Fit);
    double memoryEntries() const;
    // Fills the memory table; `progress` (may be null) is polled per first layer, a stop throws
    // CancelledError.
    void fitMemory(const CostModel& costs, const Progress* progress);

    int layers() const { return layers_; }
    int typeCount() const { return int(types_.size()); }
    const std::string& type(int i) const { return types_[i]; }
    int maxGpus(int i) const { return maxGpus_[i]; }
    int microBatches() const { return microBatches_; }
    const Job& job() const { return job_; }
    int microBatchSize() const { return microBatchSize_; }
    bool hasShape(int type, int g) const { return !tables_[type][g].empty(); }

    // Fastest shape for layers [u, v) on g GPUs of `type` that fits with `inFlight` micro-batches.
    StageChoice best(int type, int g, int u, int v, int inFlight) const;
    // Fastest shape ignoring memory (a lower bound on best()).
    double fastest(int type, int g, int u, int v) const;
    // The same without communication: a lower bound for any split of [u, v) into stages (PrefixBound).
    double fastestCompute(int type, int g, int u, int v) const;
    // Whole model on one GPU of the type, F + B per micro-batch (node folding's c_i).
    double modelTime(int type) const { return fastest(type, 1, 0, layers_); }

private:
    struct Shape {
        StageShape shape;
        std::vector<double> prefix;   // F + B of layers [0, l)
        std::vector<int> maxInFlight; // [u * (L + 1) + v]: most micro-batches in flight that fit; 0 = none
        std::vector<double> send;     // [v]: the pipeline send after layer v - 1 (0 at v = L, no comm)
        std::vector<double> gradPrefix; // gradient bytes per rank of layers [0, l)
        double syncFixed = 0, syncPerByte = 0; // the data-parallel all-reduce, affine in bytes, per micro-batch
        std::vector<double> updatePrefix; // the optimizer step of layers [0, l), per micro-batch
        double time(int u, int v) const
        {
            const double sync = gradPrefix.empty() ? 0 : syncFixed + syncPerByte * (gradPrefix[v] - gradPrefix[u]);
            const double update = updatePrefix.empty() ? 0 : updatePrefix[v] - updatePrefix[u];
            return prefix[v] - prefix[u] + (send.empty() ? 0 : send[v]) + sync + update;
        }
    };
    void addShape(const CostModel& costs, const Job& job, int type, int g, StageShape shape);
    void addCommunication(Shape& s, const CostModel& costs, const Job& job, const Node& node) const;
    Node nodeOf(int type) const;
    void fitShape(const CostModel& costs, int type, Shape& s, const Progress* progress) const;

    std::vector<Node> nodes_; // per type: the node its stages must fit on (may be empty)
    const Cluster* cluster_ = nullptr; // with it, stage times include communication
    Job job_;
    std::vector<std::string> types_;
    std::vector<int> maxGpus_;
    int layers_ = 0, microBatchSize_ = 1, microBatches_ = 1;
    std::vector<std::vector<std::vector<Shape>>> tables_; // [type][g] → shapes
};

// A lower bound on what layers [0, u) still add to T, used to prune (exhaustive) and rank (ditto's DP
// beam) partial pipelines built from the back. In reference work W (one GPU of type 0): a stage of g GPUs of
// type i needs at least W_stage · rho_ig / g seconds, rho_ig = min over layers of g · t_ig(l) / t_ref(l).
// So the prefix's max ≥ W / sum_i(rem_i · sigma_i) with sigma_i = max_g 1 / rho_ig, and its sum ≥
// W / max_ig(g / rho_ig).
class PrefixBound {
public:
    explicit PrefixBound(const StageCosts& costs);
    double capacity(int type, int gpus) const { return gpus * sigma_[type]; }
    // T lower bound of a suffix label (sum, max) whose layers [0, u) still need GPUs of `capacity`.
    double objective(double sum, double max, int u, double capacity) const;

private:
    std::vector<double> work_, sigma_;
    double gamma_ = 0;
    int microBatches_ = 1;
};

} // namespace hetplan
