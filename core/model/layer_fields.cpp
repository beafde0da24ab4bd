#include "layer_fields.h"

#include "core/base/physical_ranges.h"

namespace hetplan {

namespace {

// A non-negative amount per layer, at most its physical range's maximum (params, FLOP, bytes or a count).
FieldSpec<LayerSpec> amount(double LayerSpec::*member, const char* key, const char* label, const char* unit,
                            const char* help, const PhysicalRange& range = ranges::kModelBytes)
{
    return memberField(member, OptionDecl::real(key, label, 0, 0, range.max, help)).in(unit);
}

std::vector<FieldSpec<LayerSpec>> makeLayerFields()
{
    std::vector<std::string> kinds;
    for (LayerKind k : {LayerKind::Embedding, LayerKind::Transformer, LayerKind::Head, LayerKind::Conv,
                        LayerKind::Linear, LayerKind::MoE, LayerKind::Other})
        kinds.push_back(toString(k));
    std::vector<FieldSpec<LayerSpec>> t;
    t.push_back(enumField(&LayerSpec::kind, OptionDecl::choice("kind", "Kind", "other", kinds, "What the layer is"),
                          toString, parseLayerKind));
    t.push_back(
        amount(&LayerSpec::params, "params", "Parameters", "parameters", "Parameter count", ranges::kModelParams)
            .mandatory());
    t.push_back(amount(&LayerSpec::forwardFlops, "forward_flops", "Forward FLOP", "FLOP/sample",
                       "FLOP of one sample's forward pass", ranges::kModelFlop)
                    .mandatory());
    t.push_back(amount(&LayerSpec::outputBytes, "output_bytes", "Output", "B/sample",
                       "Activation handed to the next layer (a pipeline send)"));
    t.push_back(amount(&LayerSpec::activationBytesSharded, "activation_bytes_sharded", "Kept activations (sharded)",
                       "B/sample", "Activation memory kept for backward that tensor parallelism divides"));
    t.push_back(amount(&LayerSpec::activationBytesReplicated, "activation_bytes_replicated",
                       "Kept activations (replicated)", "B/sample",
                       "Activation memory kept for backward that every tensor-parallel rank holds in full"));
    t.push_back(amount(&LayerSpec::inputBytes, "input_bytes", "Stashed input", "B/sample",
                       "The layer input full recomputation keeps"));
    t.push_back(amount(&LayerSpec::attentionCoreBytes, "attention_core_bytes", "Attention-core activations",
                       "B/sample", "The part of the sharded activations selective recomputation drops (scores, "
                       "softmax, dropout)")
                    .omittedAtDefault());
    t.push_back(amount(&LayerSpec::weightBytesMoved, "weight_bytes_moved", "Weight traffic", "B",
                       "Bytes read from device memory per forward regardless of batch"));
    t.push_back(memberField(&LayerSpec::tensorParallel,
                            OptionDecl::boolean("tensor_parallel", "Tensor-parallel", true,
                                                "Tensor parallelism divides its parameters and FLOP")));
    t.push_back(amount(&LayerSpec::tpAllReduceBytes, "tp_allreduce_bytes", "Tensor-parallel all-reduce", "B/sample",
                       "Bytes all-reduced in forward (and again in backward) when tp > 1"));
    t.push_back(amount(&LayerSpec::expertAllToAllBytes, "expert_alltoall_bytes", "Expert all-to-all", "B/sample",
                       "MoE: bytes each sample sends in the forward all-to-all")
                    .omittedAtDefault());
    t.push_back(amount(&LayerSpec::expertParams, "expert_params", "Expert parameters", "",
                       "MoE: the experts' share of the parameters (expert parallelism divides it)",
                       ranges::kModelParams)
                    .omittedAtDefault());
    t.push_back(amount(&LayerSpec::expertFlops, "expert_flops", "Expert FLOP", "FLOP/sample",
                       "MoE: the experts' share of the forward FLOP (a padded capacity scales it)",
                       ranges::kModelFlop)
                    .omittedAtDefault());
    t.push_back(amount(&LayerSpec::kvBytes, "kv_bytes", "Keys and values", "B/sample",
                       "Attention: one sample's keys and values (context parallelism's ring passes them)")
                    .omittedAtDefault());
    t.push_back(amount(&LayerSpec::memoryBytesSharded, "memory_bytes_sharded", "Element-wise traffic (sharded)",
                       "B/sample", "Element-wise memory traffic tensor parallelism divides (softmax, GeLU)")
                    .omittedAtDefault());
    t.push_back(amount(&LayerSpec::memoryBytesReplicated, "memory_bytes_replicated",
                       "Element-wise traffic (replicated)", "B/sample",
                       "Element-wise memory traffic every tensor-parallel rank does (norms, residuals)")
                    .omittedAtDefault());
    t.push_back(amount(&LayerSpec::attentionScoreBytes, "attention_score_bytes", "Attention-score traffic",
                       "B/sample", "Scale, mask, softmax and dropout passes over the attention scores")
                    .omittedAtDefault());
    t.push_back(memberField(&LayerSpec::fusedAttention,
                            OptionDecl::boolean("fused_attention", "Fused attention", false,
                                                "A fused kernel keeps the attention scores on chip (16-bit only)"))
                    .omittedAtDefault());
    t.push_back(amount(&LayerSpec::kernels, "kernels", "Kernels", "", "Kernels one forward pass launches",
                           ranges::kModelCount)
                    .omittedAtDefault());
    return t;
}

} // namespace

const std::vector<FieldSpec<LayerSpec>>& layerFields()
{
    static const std::vector<FieldSpec<LayerSpec>> fields = makeLayerFields();
    return fields;
}

} // namespace hetplan
