#pragma once
// Layer bounds: how L layers are cut into contiguous, non-empty stages (bounds has stages+1 entries, from 0
// to L).
#include <random>
#include <vector>

namespace hetplan {

struct ModelSpec;

// A uniformly random split (the random-search baseline).
std::vector<int> randomBounds(int layers, int stages, std::mt19937_64& rng);

// Layers split as evenly as possible; the extra layers go to the last stages (the first stages of 1F1B
// keep the most activations in flight).
std::vector<int> uniformBounds(int layers, int stages);

// Megatron's split: transformer blocks (kinds Transformer and MoE) divided evenly over the stages, extra
// blocks to the last stages; every other layer goes with the next block (the embedding with the first
// stage), and the layers after the last block (the head) with the last stage. Stage s starts at its first
// block. This reproduces the Megatron layer assignments in AMP's tables 8 and 10. Falls back to
// uniformBounds() when there are fewer blocks than stages.
std::vector<int> blockBounds(const ModelSpec& model, int stages);

// Contiguous split minimising the largest per-stage sum of `weights` (e.g. parameters per layer); every
// stage non-empty. Ties prefer later cuts.
std::vector<int> balancedBounds(const std::vector<double>& weights, int stages);

} // namespace hetplan
