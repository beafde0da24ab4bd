"""Architecture numbers of the models the profiler builds: hetplan's bundled examples (the same numbers as
core/model/model_builders.cpp and model_builders_vision.cpp) or a hetplan model JSON (hetplan.model/1) with
an "arch" object. Every model is an embedding layer, its blocks and a head, like hetplan's own models, so the
profile's layer i is the model's layer i."""

import dataclasses
import json

from . import InputError


@dataclasses.dataclass
class Arch:
    name: str
    family: str  # gpt2, gpt-neo, opt, llama, bert, moe, vit
    layers: int
    hidden: int
    heads: int
    ffn: int
    vocab: int
    sequence: int
    kv_heads: int = 0  # 0 = heads
    positions: int = 0  # learned position rows (0 = rotary)
    type_vocab: int = 0  # BERT segment embeddings
    embed_dim: int = 0  # OPT-350m: token embeddings narrower than hidden (0 = hidden)
    gated: bool = False  # SwiGLU MLP (Llama)
    linear_bias: bool = True
    qkv_bias: bool = False  # Q/K/V biases when linear_bias is off (Qwen2-style)
    layer_norm: bool = True  # False = RMSNorm
    tied: bool = True  # the head's vocabulary matrix is the embedding's (counted there)
    final_norm: bool = True
    embed_norm: bool = False  # BERT
    bert_head: bool = False  # BERT: pooler + masked-LM transform before the decoder
    causal: bool = True
    experts: int = 0
    top_k: int = 0
    moe_every: int = 0  # MoE in every moe_every-th block (the last of each group)
    classes: int = 0  # ViT classifier
    block_kinds: list = dataclasses.field(default_factory=list)  # "transformer" / "moe" per block

    def kv(self):
        return self.kv_heads if self.kv_heads > 0 else self.heads

    def block_kind(self, i):
        if self.block_kinds:
            return self.block_kinds[i]
        moe = self.moe_every > 0 and (i + 1) % self.moe_every == 0
        return "moe" if moe else "transformer"


def _gpt(name, layers, hidden, heads, vocab, sequence, positions, **kw):
    return Arch(name, kw.pop("family", "gpt2"), layers, hidden, heads, 4 * hidden, vocab, sequence,
                positions=positions, **kw)


def _llama(name, layers, hidden, heads, kv_heads, ffn, vocab, sequence, **kw):
    return Arch(name, "llama", layers, hidden, heads, ffn, vocab, sequence, kv_heads=kv_heads, gated=True,
                linear_bias=False, layer_norm=False, tied=kw.pop("tied", False), **kw)


def _bert(name, layers=12, vocab=30522, sequence=512, **kw):
    return _gpt(name, layers, 768, 12, vocab, sequence, 512, family=kw.pop("family", "bert"), type_vocab=2,
                embed_norm=True, final_norm=False, bert_head=True, causal=False, **kw)


def _vit(name):
    return Arch(name, "vit", 12, 768, 12, 3072, 0, 197, classes=1000, causal=False)


# The bundled examples the profiler can build (hetplan-cli list examples). The conv models (vgg19, vgg19-cifar,
# transgan-amp) are not transformer stacks and are not built here.
EXAMPLES = {
    "gpt2-amp": lambda: _gpt("gpt2-amp", 24, 1024, 16, 52256, 1024, 1024),
    "gpt2-xl": lambda: _gpt("gpt2-xl", 48, 1600, 25, 50257, 1024, 1024),
    "llama2-7b": lambda: _llama("llama2-7b", 32, 4096, 32, 32, 11008, 32000, 4096),
    "llama2-13b": lambda: _llama("llama2-13b", 40, 5120, 40, 40, 13824, 32000, 4096),
    "bert-base": lambda: _bert("bert-base"),
    "bert-hap": lambda: _bert("bert-hap", layers=8, vocab=33278, sequence=128),
    "vit-base": lambda: _vit("vit-base"),
    "bert-moe": lambda: _bert("bert-moe", family="moe", experts=8, top_k=2, moe_every=2),
    "llama-0.5b": lambda: _llama("llama-0.5b", 24, 896, 14, 2, 4864, 151936, 2048, qkv_bias=True, tied=True),
    "llama-1.1b": lambda: _llama("llama-1.1b", 22, 2048, 32, 4, 5632, 32000, 2048),
    "opt-350m": lambda: _gpt("opt-350m", 24, 1024, 16, 50272, 2048, 2050, family="opt", embed_dim=512,
                             final_norm=False),
    "gpt-neo-2.7b": lambda: _gpt("gpt-neo-2.7b", 32, 2560, 20, 50257, 2048, 2048, family="gpt-neo"),
    "llama3-8b": lambda: _llama("llama3-8b", 32, 4096, 32, 8, 14336, 128256, 8192),
    "opt-30b": lambda: _gpt("opt-30b", 48, 7168, 56, 50272, 2048, 2050, family="opt"),
}
UNSUPPORTED_EXAMPLES = ("transgan-amp", "vgg19", "vgg19-cifar")


def example_arch(name):
    if name in EXAMPLES:
        return EXAMPLES[name]()
    if name in UNSUPPORTED_EXAMPLES:
        raise InputError(f"example '{name}' is a convolutional model; the profiler builds transformer models "
                         f"(known: {', '.join(EXAMPLES)})")
    raise InputError(f"unknown model '{name}' (known examples: {', '.join(EXAMPLES)}; or a hetplan model JSON file)")


def _positive(arch_json, key, path):
    v = arch_json.get(key, 0)
    if not isinstance(v, int) or isinstance(v, bool) or v < 1:
        raise InputError(f"{path}: arch.{key} must be a positive integer, got {v!r}")
    return v


def _family_arch(family, name, a, path):
    """Defaults of a family for what the model JSON's arch does not say (norm kind, biases, head)."""
    common = dict(layers=_positive(a, "layers", path), hidden=_positive(a, "hidden", path),
                  heads=_positive(a, "heads", path))
    seq = _positive(a, "sequence", path)
    ffn = a.get("ffn") or 4 * common["hidden"]
    if family in ("gpt2", "gpt-neo", "custom", "opt"):
        embed_dim = a.get("embed_dim", 0)
        return _gpt(name, common["layers"], common["hidden"], common["heads"], _positive(a, "vocab", path), seq,
                    a.get("positions") or seq + (2 if family == "opt" else 0),
                    family=family if family != "custom" else "gpt2",
                    embed_dim=embed_dim, final_norm=not (family == "opt" and embed_dim > 0),
                    tied=a.get("tied_embeddings", True))
    if family == "llama":
        return _llama(name, common["layers"], common["hidden"], common["heads"], a.get("kv_heads", 0), ffn,
                      _positive(a, "vocab", path), seq, tied=a.get("tied_embeddings", False),
                      qkv_bias=bool(a.get("qkv_bias", False)))
    if family in ("bert", "moe"):
        arch = _bert(name, layers=common["layers"], vocab=_positive(a, "vocab", path), sequence=seq, family=family)
        arch.hidden, arch.heads, arch.ffn = common["hidden"], common["heads"], ffn
        arch.experts, arch.top_k = a.get("experts", 0), 2
        return arch
    if family == "vit":
        return Arch(name, "vit", common["layers"], common["hidden"], common["heads"], ffn, 0, seq,
                    classes=a.get("classes") or 1000, causal=False)
    raise InputError(f"{path}: arch.family '{family}' is not a transformer family the profiler builds "
                     "(gpt2, gpt-neo, opt, llama, bert, moe, vit)")


def model_json_arch(path):
    """The architecture of a hetplan model JSON. Its layer list must be embedding, arch.layers blocks
    ("transformer" or "moe"), head: the profile's tables must have the model's layer count."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        raise InputError(f"{path}: cannot be read: {e.strerror}")
    except ValueError as e:
        raise InputError(f"{path}: invalid JSON: {e}")
    if not isinstance(doc, dict) or not isinstance(doc.get("arch"), dict):
        raise InputError(f"{path}: not a hetplan model JSON with an \"arch\" object (the profiler builds the "
                         "layers from the architecture numbers)")
    if doc.get("schema", "hetplan.model/1") != "hetplan.model/1":
        raise InputError(f"{path}: schema must be hetplan.model/1, got {doc.get('schema')!r}")
    a = doc["arch"]
    arch = _family_arch(a.get("family", "custom"), str(doc.get("name", "model")), a, path)
    kinds = [layer.get("kind", "other") if isinstance(layer, dict) else "?" for layer in doc.get("layers", [])]
    blocks = kinds[1:-1]
    if (len(kinds) != arch.layers + 2 or kinds[0] != "embedding" or kinds[-1] != "head"
            or any(k not in ("transformer", "moe") for k in blocks)):
        raise InputError(f"{path}: layers must be an embedding, {arch.layers} transformer/moe blocks and a head "
                         f"(arch.layers = {arch.layers}); got {len(kinds)} layers")
    if "moe" in blocks and arch.experts < 2:
        raise InputError(f"{path}: MoE blocks need arch.experts >= 2")
    arch.block_kinds = blocks
    if arch.hidden % arch.heads or arch.heads % arch.kv():
        raise InputError(f"{path}: arch.heads must divide hidden and arch.kv_heads must divide heads")
    return arch


def load_arch(spec):
    """A model by example name (optionally "example:NAME") or model JSON path."""
    name = spec[len("example:"):] if spec.startswith("example:") else spec
    if spec.endswith(".json") or "/" in spec:
        return model_json_arch(spec)
    return example_arch(name)
