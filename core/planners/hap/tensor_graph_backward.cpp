// Backward generation: reverse-mode differentiation of the forward graph, one Grad op per differentiable
// input of each forward op, with the forward op's labels (so the backward inherits its sharding rules).
#include "tensor_graph.h"

#include "core/base/errors.h"

#include <stdexcept>

namespace hetplan::hap {

namespace {

// Ops whose gradient needs only dy (linear maps: adds, reshapes, the sum loss).
bool gradNeedsOnlyDy(OpKind k)
{
    return k == OpKind::Add || k == OpKind::Reshape || k == OpKind::Transpose || k == OpKind::SumLoss;
}

// Element-wise ops whose gradient needs the forward input itself (x of GeLU, softmax, layer norm).
bool gradNeedsOwnInput(OpKind k)
{
    return k == OpKind::Activation || k == OpKind::Softmax || k == OpKind::LayerNorm || k == OpKind::Pool ||
           k == OpKind::CrossEntropy;
}

} // namespace

int TensorGraph::gradFlopsFactor(const Op& f) const
{
    // A product's gradient with respect to one operand is a product of the same size; element-wise ops
    // cost about their forward again; reshapes are free.
    return (f.kind == OpKind::Reshape || f.kind == OpKind::Transpose) ? 0 : 1;
}

int TensorGraph::addGradOp(int f, int q, int dy)
{
    const Op fwd = ops[f];
    const Tensor& x = tensors[fwd.inputs[q]];
    OpArgs a{OpKind::Grad, "d" + x.name + "/" + fwd.name, {dy}, {fwd.outLabels}, fwd.inLabels[q]};
    for (size_t k = 0; k < fwd.inputs.size(); ++k) {
        const bool other = int(k) != q;
        if (gradNeedsOnlyDy(fwd.kind) || (!other && !gradNeedsOwnInput(fwd.kind)))
            continue;
        a.inputs.push_back(fwd.inputs[k]);
        a.inLabels.push_back(fwd.inLabels[k]);
    }
    a.fixed = fwd.fixed;
    a.noScale = fwd.noScale;
    a.linear = gradNeedsOnlyDy(fwd.kind);
    a.shape = x.shape;
    a.flopsOverride = fwd.flops * gradFlopsFactor(fwd);
    const int saved = current_;
    current_ = fwd.segment;
    const int t = add(a);
    current_ = saved;
    ops.back().forwardOp = f;
    ops.back().gradInput = q;
    tensors[t].gradOf = fwd.inputs[q];
    return t;
}

std::vector<bool> requiresGrad(const TensorGraph& g)
{
    std::vector<bool> rg(g.tensors.size(), false);
    for (int i = 0; i < g.forwardOps; ++i) {
        const Op& op = g.ops[i];
        bool any = op.kind == OpKind::Parameter;
        for (int in : op.inputs)
            any = any || rg[in];
        rg[op.output] = any;
    }
    return rg;
}

void TensorGraph::generateBackward(const std::function<bool()>& stopped)
{
    if (loss < 0 || int(ops.size()) != forwardOps)
        throw std::logic_error("generateBackward: needs a loss and must run once");
    // The backward adds about two ops per forward op: room for them at once, not by doubling and copying.
    ops.reserve(ops.size() * 3 + 16);
    tensors.reserve(tensors.size() * 3 + 16);
    const std::vector<bool> rg = requiresGrad(*this);
    std::vector<std::vector<int>> parts(tensors.size());
    // The seed dL/dL = 1, replicated on every device.
    const int saved = current_;
    current_ = ops[tensors[loss].producer].segment;
    const int seed = placeholder("d" + tensors[loss].name, {});
    current_ = saved;
    forwardOps = int(ops.size()) - 1;
    ops.back().kind = OpKind::Grad;
    ops.back().forwardOp = tensors[loss].producer;
    tensors[seed].gradOf = loss;
    parts[loss].push_back(seed);
    // Sums the gradient contributions of tensor t (one Add per extra consumer), in t's forward labels.
    auto accumulate = [&](int t) {
        std::vector<int>& p = parts[t];
        int acc = p.empty() ? -1 : p[0];
        for (size_t k = 1; k < p.size(); ++k) {
            const Op& prod = ops[tensors[t].producer];
            std::string lab(tensors[t].shape.size(), 'A'); // distinct labels, one per dimension
            for (size_t d = 0; d < lab.size(); ++d)
                lab[d] = char('A' + d);
            const int fwd = prod.segment;
            const int keep = current_;
            current_ = fwd;
            acc = add({OpKind::Add,
                       "d" + tensors[t].name + "+",
                       {acc, p[k]},
                       {lab, lab},
                       lab,
                       1,
                       "",
                       "",
                       true,
                       tensors[t].shape});
            current_ = keep;
            ops.back().forwardOp = tensors[t].producer;
            tensors[acc].gradOf = t;
        }
        return acc;
    };
    for (int f = forwardOps - 1; f >= 0; --f) {
        if ((f & 1023) == 0 && stopped && stopped())
            throw CancelledError("hap: stopped while building the tensor program");
        const Op op = ops[f]; // a copy: adding grad ops reallocates `ops`
        if (op.isLeaf() || !rg[op.output])
            continue;
        const int dy = accumulate(op.output);
        if (dy < 0)
            continue;
        for (size_t q = 0; q < op.inputs.size(); ++q)
            if (rg[op.inputs[q]])
                parts[op.inputs[q]].push_back(addGradOp(f, int(q), dy));
    }
    for (int p : parameters())
        if (const int g = accumulate(p); g >= 0)
            paramGrad[p] = g;
    indexGradOps();
}

} // namespace hetplan::hap
