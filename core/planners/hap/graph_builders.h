#pragma once
// Tensor programs of the example models, built op by op with the same parameters as the layer-level
// ModelSpec of the same name (tests/core/tst_hap.cpp checks the counts), plus a small MLP for tests.
#include "tensor_graph.h"

#include "core/model/model.h"

#include <functional>

namespace hetplan::hap {

// A ReLU MLP: input [batch, widths[0]], layers widths[i] → widths[i+1], loss = sum of the last output.
// One segment per layer.
TensorGraph buildMlp(long long batch, const std::vector<long long>& widths);

// The tensor program of a layer-level model (families "bert", "moe", "gpt2", "vit", "vgg"), forward and
// backward, for `batch` samples of the model's sequence length. Throws InfeasibleError for other families,
// CancelledError when `stopped` (polled per block) says so.
TensorGraph buildTensorProgram(const ModelSpec& model, long long batch, const std::function<bool()>& stopped = {});

} // namespace hetplan::hap
