#pragma once
// HAP's single-device tensor program: a small graph IR of ops with shapes, FLOP and byte counts, and the
// backward pass generated from the forward graph.
//
// Why it lives in core/planners/hap/ and not in a core/graph/ layer: only HAP plans at the tensor level.
// The simulator (core/sim) does not read this IR; an SPMD plan carries its program already flattened to
// instructions with FLOP and byte counts (SpmdInstruction in core/model/plan.h), so the plan stays
// self-contained and core/sim needs no graph code. Move it down when a second planner needs it.
//
// Every op is described einsum-style: one label (a character) per dimension of each input and of the
// output. A label names one loop of the op's iteration space; the same label on two tensors means the same
// loop. This one description gives the FLOP count (flopsPerPoint × product of the label sizes), the
// sharding rules of theory.h (shard one label: tensors holding it are split on that dimension, a label
// missing from the output is a reduction whose shards are partial sums) and the backward ops (the gradient
// of input q reuses the op's labels with dy in place of the output).
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace hetplan::hap {

enum class OpKind {
    Placeholder,
    Parameter,
    MatMul, // incl. batched products and the MoE dispatch/combine einsums
    Add,
    Activation, // element-wise non-linearity (GeLU, ReLU, tanh)
    Softmax,
    LayerNorm,
    Embedding,
    Conv2d,
    Pool,
    Transpose,
    Reshape,
    SumLoss,
    CrossEntropy,
    MoEGate,    // top-k routing: logits → dispatch/combine mask
    MoEExperts, // per-expert products (batched over the expert dimension)
    Grad,       // a backward op; forwardOp says which forward op it differentiates
};
std::string toString(OpKind k);

struct Tensor {
    std::string name;
    std::vector<long long> shape;
    int producer = -1;          // op index; -1 never (leaves are produced by Placeholder/Parameter ops)
    std::vector<int> consumers; // op indices
    int gradOf = -1;            // a gradient tensor: the tensor it is the gradient of
    double elements() const;
    double bytes() const { return 2.0 * elements(); } // 16-bit values
};

struct Op {
    OpKind kind = OpKind::Placeholder;
    std::string name;
    int segment = 0; // model segment (layer of the layer-level ModelSpec) it belongs to
    std::vector<int> inputs;
    int output = -1;
    std::vector<std::string> inLabels; // one string per input, one character per dimension
    std::string outLabels;
    std::string fixed;   // labels that may not be sharded (softmax axis, conv kernel, gathered dims)
    std::string noScale; // labels whose sharding does not divide the FLOPs (lookups over a vocabulary)
    bool linear = false; // partial-sum inputs give a partial-sum output (Add)
    double flops = 0;
    int forwardOp = -1; // Grad: the forward op; -1 for forward ops
    int gradInput = -1; // Grad: which input of the forward op this is the gradient of (-1: accumulation)
    bool isLeaf() const { return kind == OpKind::Placeholder || kind == OpKind::Parameter; }
    // Every label of the op, each once, in order of first appearance.
    std::string labels() const;
    // The size of a label (from the first tensor that holds it), 0 if absent.
    long long labelSize(char label, const std::vector<Tensor>& tensors) const;
};

class TensorGraph {
public:
    std::vector<Tensor> tensors;
    std::vector<Op> ops;
    std::vector<std::string> segments; // names, index = Op::segment
    int loss = -1;                     // the scalar output
    int forwardOps = 0;                // ops[0, forwardOps) are the forward program in topological order
    std::map<int, int> paramGrad;      // parameter tensor → its gradient tensor (after generateBackward)

    // Builders; each returns the output tensor index. `segment` is the current segment (beginSegment).
    int beginSegment(const std::string& name);
    int placeholder(const std::string& name, std::vector<long long> shape);
    int parameter(const std::string& name, std::vector<long long> shape);
    struct OpArgs {
        OpKind kind;
        std::string name;
        std::vector<int> inputs;
        std::vector<std::string> inLabels;
        std::string outLabels;
        double flopsPerPoint = 1; // × product of all label sizes
        std::string fixed = "";
        std::string noScale = "";
        bool linear = false;
        std::vector<long long> shape = {}; // explicit output shape (reshapes, pools); else from the labels
        double flopsOverride = -1;         // exact FLOP count instead of flopsPerPoint × iteration space
    };
    int add(const OpArgs& a);

    // Appends the backward ops: the loss seed, one Grad op per (forward op, differentiable input) in reverse
    // order, accumulation Adds where a tensor has several consumers. Fills paramGrad. Call once. Throws
    // CancelledError when `stopped` (polled every 1024 forward ops) says so.
    void generateBackward(const std::function<bool()>& stopped = {});

    std::vector<int> parameters() const; // tensor indices in creation order
    double parameterCount() const;       // elements of all parameters
    double forwardFlops() const;         // sum over forward ops
    double backwardFlops() const;        // sum over backward ops
    // The backward ops of forward op f (its Grad ops and the accumulations that feed them). O(answer) once
    // generateBackward has indexed them (lowering asks for every op: a scan each was quadratic).
    std::vector<int> gradOpsOf(int forwardOp) const;
    // Throws std::logic_error if labels and shapes disagree (a builder bug).
    void check() const;

private:
    int current_ = 0;
    int newTensor(const std::string& name, std::vector<long long> shape);
    int gradFlopsFactor(const Op& f) const;
    int addGradOp(int f, int q, int dy);
    void indexGradOps();
    std::vector<std::vector<int>> gradOps_; // by forward op; valid while gradOpsIndexed_ == ops.size()
    size_t gradOpsIndexed_ = 0;
};

// Forward tensors that depend on a parameter: only those need gradients (the backward pass and the
// synthesizer's bookkeeping both ask).
std::vector<bool> requiresGrad(const TensorGraph& g);

} // namespace hetplan::hap
