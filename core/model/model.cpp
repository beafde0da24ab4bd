#include "model.h"

#include "layer_fields.h"

#include "core/base/errors.h"
#include "core/base/numbers.h"
#include "core/base/physical_ranges.h"

#include <algorithm>
#include <cmath>

namespace hetplan {

std::string toString(LayerKind k)
{
    switch (k) {
    case LayerKind::Embedding: return "embedding";
    case LayerKind::Transformer: return "transformer";
    case LayerKind::Head: return "head";
    case LayerKind::Conv: return "conv";
    case LayerKind::Linear: return "linear";
    case LayerKind::MoE: return "moe";
    case LayerKind::Other: return "other";
    }
    return "other";
}

std::string toString(TpSplit s)
{
    switch (s) {
    case TpSplit::None: return "none";
    case TpSplit::N: return "n";
    case TpSplit::K: return "k";
    case TpSplit::Batch: return "batch";
    }
    return "none";
}

bool parseTpSplit(const std::string& s, TpSplit& out)
{
    for (TpSplit v : {TpSplit::None, TpSplit::N, TpSplit::K, TpSplit::Batch})
        if (s == toString(v)) {
            out = v;
            return true;
        }
    return false;
}

bool parseLayerKind(const std::string& s, LayerKind& out)
{
    for (LayerKind k : {LayerKind::Embedding, LayerKind::Transformer, LayerKind::Head, LayerKind::Conv,
                        LayerKind::Linear, LayerKind::MoE, LayerKind::Other})
        if (s == toString(k)) {
            out = k;
            return true;
        }
    return false;
}

bool ModelSpec::hasMoeLayers() const
{
    return std::any_of(layers.begin(), layers.end(), [](const LayerSpec& l) { return l.kind == LayerKind::MoE; });
}

double ModelSpec::totalParams() const
{
    double s = 0;
    for (const LayerSpec& l : layers)
        s += l.params;
    return s;
}

double ModelSpec::totalForwardFlops() const
{
    double s = 0;
    for (const LayerSpec& l : layers)
        s += l.forwardFlops;
    return s;
}

bool familyTiesEmbeddings(const std::string& family) { return family == "gpt2" || family == "opt" || family == "bert"; }

double ModelSpec::tiedCopyParams(int first, int end) const
{
    if (!arch.tiedEmbeddings || first < 0 || end > layerCount())
        return 0;
    bool head = false, embedding = false;
    for (int l = first; l < end; ++l) {
        head |= layers[l].kind == LayerKind::Head;
        embedding |= layers[l].kind == LayerKind::Embedding;
    }
    return head && !embedding ? arch.wordEmbeddingParams() : 0;
}

bool ModelSpec::headHoldsVocabularyMatrix() const
{
    const double matrix = arch.wordEmbeddingParams();
    if (!(matrix > 0))
        return false;
    double head = 0;
    for (const LayerSpec& l : layers)
        if (l.kind == LayerKind::Head)
            head += l.params;
    return head >= matrix;
}

bool ModelSpec::defaultTiedEmbeddings() const
{
    return !headHoldsVocabularyMatrix() && familyTiesEmbeddings(arch.family);
}

int ModelSpec::blockCount() const
{
    int n = 0;
    for (const LayerSpec& l : layers)
        n += (l.kind == LayerKind::Transformer || l.kind == LayerKind::MoE) ? 1 : 0;
    return n;
}

void ModelSpec::validate(const std::string& file) const
{
    if (name.empty())
        throw InputError(file, "name", "must not be empty");
    if (layers.empty())
        throw InputError(file, "layers", "a model needs at least one layer");
    for (size_t i = 0; i < layers.size(); ++i) {
        const LayerSpec& l = layers[i];
        const std::string f = "layers[" + std::to_string(i) + "]";
        checkFields(l, layerFields(), file, f + ".");
        // The experts are a part of the layer: expert parallelism and a capacity factor take them out of it.
        if (l.expertParams > l.params)
            throw InputError(file, f + ".expert_params", "exceeds the layer's params (the experts are a part of them)");
        if (l.expertFlops > l.forwardFlops)
            throw InputError(file, f + ".expert_flops",
                             "exceeds the layer's forward_flops (the experts are a part of them)");
        for (size_t k = 0; k < l.matmuls.size(); ++k) {
            const MatMul& mm = l.matmuls[k];
            for (double v : {mm.m, mm.n, mm.k, mm.batch})
                if (!(v > 0 && v <= ranges::kModelCount.max))
                    throw InputError(file, f + ".matmuls[" + std::to_string(k) + "]",
                                     "m, n, k and batch must be positive and at most " +
                                         numberText(ranges::kModelCount.max) + " (a matrix dimension)");
        }
    }
    // A model without any compute would simulate to a zero-second iteration; say so here, about the model,
    // rather than let the plan's estimate fail later.
    const bool anyMatmul =
        std::any_of(layers.begin(), layers.end(), [](const LayerSpec& l) { return !l.matmuls.empty(); });
    if (!(totalForwardFlops() > 0) && !anyMatmul)
        throw InputError(file, "layers",
                         "every layer has forward_flops 0 (and none lists matmuls): the model does no work to plan "
                         "or simulate");
    if (arch.sequence < 0 || arch.hidden < 0 || arch.layers < 0 || arch.heads < 0 || arch.kvHeads < 0 || arch.ffn < 0 ||
        arch.vocab < 0 || arch.experts < 0 || arch.embedDim < 0 || arch.ropeBase < 0 ||
        arch.positions < 0)
        throw InputError(file, "arch", "sizes must not be negative");
    if (arch.kvHeads > 0 && arch.heads > 0 && arch.heads % arch.kvHeads != 0)
        throw InputError(file, "arch.kv_heads",
                         "grouped-query attention needs kv_heads (" + std::to_string(arch.kvHeads) +
                             ") to divide heads (" + std::to_string(arch.heads) + ")");
    if (arch.tiedEmbeddings && arch.wordEmbeddingParams() <= 0)
        throw InputError(file, "arch.tied_embeddings", "tied embeddings need the vocabulary and hidden size");
}

} // namespace hetplan
