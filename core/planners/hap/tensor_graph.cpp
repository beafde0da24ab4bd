#include "tensor_graph.h"

#include <numeric>
#include <stdexcept>

namespace hetplan::hap {

std::string toString(OpKind k)
{
    switch (k) {
    case OpKind::Placeholder: return "Placeholder";
    case OpKind::Parameter: return "Parameter";
    case OpKind::MatMul: return "MatMul";
    case OpKind::Add: return "Add";
    case OpKind::Activation: return "Activation";
    case OpKind::Softmax: return "Softmax";
    case OpKind::LayerNorm: return "LayerNorm";
    case OpKind::Embedding: return "Embedding";
    case OpKind::Conv2d: return "Conv2d";
    case OpKind::Pool: return "Pool";
    case OpKind::Transpose: return "Transpose";
    case OpKind::Reshape: return "Reshape";
    case OpKind::SumLoss: return "SumLoss";
    case OpKind::CrossEntropy: return "CrossEntropy";
    case OpKind::MoEGate: return "MoEGate";
    case OpKind::MoEExperts: return "MoEExperts";
    case OpKind::Grad: return "Grad";
    }
    return "?";
}

double Tensor::elements() const
{
    double n = 1;
    for (long long d : shape)
        n *= double(d);
    return n;
}

std::string Op::labels() const
{
    std::string out;
    auto take = [&](const std::string& s) {
        for (char c : s)
            if (out.find(c) == std::string::npos)
                out += c;
    };
    for (const std::string& l : inLabels)
        take(l);
    take(outLabels);
    return out;
}

long long Op::labelSize(char label, const std::vector<Tensor>& tensors) const
{
    for (size_t q = 0; q < inputs.size(); ++q) {
        const size_t pos = inLabels[q].find(label);
        if (pos != std::string::npos)
            return tensors[inputs[q]].shape[pos];
    }
    const size_t pos = outLabels.find(label);
    return pos == std::string::npos ? 0 : tensors[output].shape[pos];
}

int TensorGraph::beginSegment(const std::string& name)
{
    segments.push_back(name);
    current_ = int(segments.size()) - 1;
    return current_;
}

int TensorGraph::newTensor(const std::string& name, std::vector<long long> shape)
{
    tensors.push_back({name, std::move(shape), int(ops.size()), {}, -1});
    return int(tensors.size()) - 1;
}

int TensorGraph::placeholder(const std::string& name, std::vector<long long> shape)
{
    const int t = newTensor(name, shape);
    Op op;
    op.kind = OpKind::Placeholder;
    op.name = name;
    op.segment = current_;
    op.output = t;
    op.outLabels = std::string(shape.size(), '?'); // labels of leaves come from their consumers
    ops.push_back(op);
    forwardOps = int(ops.size());
    return t;
}

int TensorGraph::parameter(const std::string& name, std::vector<long long> shape)
{
    const int t = placeholder(name, std::move(shape));
    ops.back().kind = OpKind::Parameter;
    return t;
}

int TensorGraph::add(const OpArgs& a)
{
    Op op;
    op.kind = a.kind;
    op.name = a.name;
    op.segment = current_;
    op.inputs = a.inputs;
    op.inLabels = a.inLabels;
    op.outLabels = a.outLabels;
    op.fixed = a.fixed;
    op.noScale = a.noScale;
    op.linear = a.linear;
    std::vector<long long> shape = a.shape;
    if (shape.empty())
        for (char c : a.outLabels)
            shape.push_back(op.labelSize(c, tensors));
    const int idx = int(ops.size());
    tensors.push_back({a.name, shape, idx, {}, -1});
    op.output = int(tensors.size()) - 1;
    for (int in : a.inputs)
        tensors[in].consumers.push_back(idx);
    if (a.flopsOverride >= 0) {
        op.flops = a.flopsOverride;
    } else {
        double space = 1;
        for (char c : op.labels())
            space *= double(op.labelSize(c, tensors));
        op.flops = a.flopsPerPoint * space;
    }
    ops.push_back(op);
    if (forwardOps == idx)
        forwardOps = idx + 1;
    return op.output;
}

std::vector<int> TensorGraph::parameters() const
{
    std::vector<int> out;
    for (const Op& op : ops)
        if (op.kind == OpKind::Parameter)
            out.push_back(op.output);
    return out;
}

double TensorGraph::parameterCount() const
{
    double n = 0;
    for (int p : parameters())
        n += tensors[p].elements();
    return n;
}

double TensorGraph::forwardFlops() const
{
    double f = 0;
    for (int i = 0; i < forwardOps; ++i)
        f += ops[i].flops;
    return f;
}

double TensorGraph::backwardFlops() const
{
    double f = 0;
    for (size_t i = forwardOps; i < ops.size(); ++i)
        f += ops[i].flops;
    return f;
}

void TensorGraph::indexGradOps()
{
    gradOps_.assign(size_t(forwardOps), {});
    for (size_t i = size_t(forwardOps); i < ops.size(); ++i)
        if (ops[i].forwardOp >= 0 && ops[i].forwardOp < forwardOps)
            gradOps_[size_t(ops[i].forwardOp)].push_back(int(i));
    gradOpsIndexed_ = ops.size();
}

std::vector<int> TensorGraph::gradOpsOf(int forwardOp) const
{
    if (gradOpsIndexed_ == ops.size() && forwardOp >= 0 && forwardOp < int(gradOps_.size()))
        return gradOps_[size_t(forwardOp)];
    std::vector<int> out;
    for (size_t i = forwardOps; i < ops.size(); ++i)
        if (ops[i].forwardOp == forwardOp)
            out.push_back(int(i));
    return out;
}

void TensorGraph::check() const
{
    for (size_t i = 0; i < ops.size(); ++i) {
        const Op& op = ops[i];
        if (op.isLeaf())
            continue;
        if (op.inLabels.size() != op.inputs.size())
            throw std::logic_error(op.name + ": one label string per input");
        for (size_t q = 0; q < op.inputs.size(); ++q)
            if (op.inLabels[q].size() != tensors[op.inputs[q]].shape.size())
                throw std::logic_error(op.name + ": labels of input " + std::to_string(q) + " do not match its rank");
        if (op.outLabels.size() != tensors[op.output].shape.size())
            throw std::logic_error(op.name + ": output labels do not match its rank");
        if (op.kind == OpKind::Reshape || op.kind == OpKind::Pool || op.kind == OpKind::Grad)
            continue; // explicit shapes: a label may change size
        for (size_t q = 0; q < op.inputs.size(); ++q)
            for (size_t d = 0; d < op.inLabels[q].size(); ++d)
                if (tensors[op.inputs[q]].shape[d] != op.labelSize(op.inLabels[q][d], tensors))
                    throw std::logic_error(op.name + ": label '" + std::string(1, op.inLabels[q][d]) +
                                           "' has two sizes");
    }
}

} // namespace hetplan::hap
