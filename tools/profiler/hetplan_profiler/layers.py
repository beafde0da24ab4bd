"""The layers hetplan's models are made of, as PyTorch modules with random weights: embedding, transformer
block (attention + MLP, or an MoE MLP), head. `tp` builds one tensor-parallel rank's shard (Megatron's split:
heads, the MLP's inner width and the vocabulary divided by tp); `tp_allreduce_elements` is what that shard
all-reduces per sample in the forward pass (the backward all-reduces as much)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from . import InputError


def _norm(arch, width, factory):
    if arch.layer_norm:
        return nn.LayerNorm(width, **factory)
    return RMSNorm(width, **factory)


class RMSNorm(nn.Module):
    def __init__(self, width, device=None, dtype=None):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(width, device=device, dtype=dtype))

    def forward(self, x):
        scale = torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-6)
        return (x.float() * scale).to(x.dtype) * self.weight


def _split(total, tp, what):
    if total % tp:
        raise InputError(f"tensor-parallel degree {tp} does not divide the {what} ({total})")
    return total // tp


def _rotary(x, positions):
    """Rotary position embedding on the last dimension (pairs of halves), as Llama applies it to q and k."""
    half = x.shape[-1] // 2
    freq = 1.0 / (10000 ** (torch.arange(half, device=x.device, dtype=torch.float32) / half))
    angle = positions[:, None].float() * freq[None, :]
    cos, sin = angle.cos().to(x.dtype), angle.sin().to(x.dtype)
    a, b = x[..., :half], x[..., half:]
    return torch.cat((a * cos - b * sin, a * sin + b * cos), dim=-1)


class Attention(nn.Module):
    def __init__(self, arch, tp, factory):
        super().__init__()
        self.heads = _split(arch.heads, tp, "attention heads")
        self.kv = max(1, arch.kv() // tp) if arch.kv() < arch.heads else self.heads
        self.head_dim = arch.hidden // arch.heads
        self.causal, self.rotary = arch.causal, arch.positions == 0 and arch.family == "llama"
        qkv_bias = arch.linear_bias or arch.qkv_bias
        self.qkv = nn.Linear(arch.hidden, (self.heads + 2 * self.kv) * self.head_dim, bias=qkv_bias, **factory)
        self.out = nn.Linear(self.heads * self.head_dim, arch.hidden, bias=arch.linear_bias, **factory)

    def forward(self, x):
        b, s, _ = x.shape
        q, k, v = self.qkv(x).split([self.heads * self.head_dim, self.kv * self.head_dim,
                                     self.kv * self.head_dim], dim=-1)
        q = q.view(b, s, self.heads, self.head_dim).transpose(1, 2)
        k = k.view(b, s, self.kv, self.head_dim).transpose(1, 2)
        v = v.view(b, s, self.kv, self.head_dim).transpose(1, 2)
        if self.rotary:
            pos = torch.arange(s, device=x.device)
            q, k = _rotary(q, pos), _rotary(k, pos)
        if self.kv != self.heads:  # grouped-query attention: each K/V head serves heads/kv query heads
            k = k.repeat_interleave(self.heads // self.kv, dim=1)
            v = v.repeat_interleave(self.heads // self.kv, dim=1)
        if hasattr(F, "scaled_dot_product_attention"):  # PyTorch >= 2.0: the fused kernels a user would run
            ctx = F.scaled_dot_product_attention(q, k, v, is_causal=self.causal)
        else:
            scores = q @ k.transpose(-1, -2) / math.sqrt(self.head_dim)
            if self.causal:
                mask = torch.ones(s, s, device=x.device, dtype=torch.bool).triu(1)
                scores = scores.masked_fill(mask, float("-inf"))
            ctx = scores.softmax(-1) @ v
        return self.out(ctx.transpose(1, 2).reshape(b, s, self.heads * self.head_dim))


class Mlp(nn.Module):
    def __init__(self, arch, tp, factory):
        super().__init__()
        inner = _split(arch.ffn, tp, "MLP width")
        self.gated = arch.gated
        self.up = nn.Linear(arch.hidden, (2 if arch.gated else 1) * inner, bias=arch.linear_bias, **factory)
        self.down = nn.Linear(inner, arch.hidden, bias=arch.linear_bias, **factory)
        self.act = F.relu if arch.family == "opt" else F.gelu

    def forward(self, x):
        if self.gated:
            gate, up = self.up(x).chunk(2, dim=-1)
            return self.down(F.silu(gate) * up)
        return self.down(self.act(self.up(x)))


class MoeMlp(nn.Module):
    """Top-k routed experts (GShard-style): every token goes to its top_k experts, weighted by the router."""

    def __init__(self, arch, tp, factory):
        super().__init__()
        self.top_k = max(1, arch.top_k)
        self.router = nn.Linear(arch.hidden, arch.experts, bias=False, **factory)
        self.experts = nn.ModuleList(Mlp(arch, tp, factory) for _ in range(arch.experts))

    def forward(self, x):
        flat = x.reshape(-1, x.shape[-1])
        weight, chosen = self.router(flat).softmax(-1).topk(self.top_k, dim=-1)
        out = torch.zeros_like(flat)
        for e, expert in enumerate(self.experts):
            rows, slot = (chosen == e).nonzero(as_tuple=True)
            if rows.numel():
                out = out.index_add(0, rows, expert(flat[rows]) * weight[rows, slot, None])
        return out.view_as(x)


class Block(nn.Module):
    """A transformer block; pre-norm except BERT (post-norm), as the families are trained."""

    def __init__(self, arch, tp, factory, moe=False):
        super().__init__()
        self.post_norm = arch.family in ("bert", "moe")
        self.norm1, self.norm2 = _norm(arch, arch.hidden, factory), _norm(arch, arch.hidden, factory)
        self.attn = Attention(arch, tp, factory)
        self.mlp = MoeMlp(arch, tp, factory) if moe else Mlp(arch, tp, factory)
        self.input_width = arch.hidden
        self.tp_allreduce_elements = 2 * arch.sequence * arch.hidden if tp > 1 else 0

    def forward(self, x):
        if self.post_norm:
            x = self.norm1(x + self.attn(x))
            return self.norm2(x + self.mlp(x))
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class Embedding(nn.Module):
    """Token (+ learned position, + segment) lookup; the token table is vocabulary-parallel under tp."""

    def __init__(self, arch, tp, factory):
        super().__init__()
        width = arch.embed_dim or arch.hidden
        self.vocab = _split(arch.vocab, tp, "vocabulary")
        self.tokens = nn.Embedding(self.vocab, width, **factory)
        rows = max(arch.positions, arch.sequence + (2 if arch.family == "opt" else 0))  # OPT's offset of 2
        self.positions = nn.Embedding(rows, arch.hidden, **factory) if arch.positions else None
        self.segments = nn.Embedding(arch.type_vocab, arch.hidden, **factory) if arch.type_vocab else None
        self.project_in = nn.Linear(width, arch.hidden, bias=False, **factory) if arch.embed_dim else None
        self.norm = _norm(arch, arch.hidden, factory) if arch.embed_norm else None
        self.tp_allreduce_elements = arch.sequence * arch.hidden if tp > 1 else 0

    def forward(self, ids):
        x = self.tokens(ids)
        if self.project_in is not None:
            x = self.project_in(x)
        s = ids.shape[1]
        if self.positions is not None:
            x = x + self.positions(torch.arange(s, device=ids.device))
        if self.segments is not None:
            x = x + self.segments(torch.zeros_like(ids))
        if self.norm is not None:
            x = self.norm(x)
        return F.dropout(x, 0.1, self.training)

    def example_input(self, batch, seq, device):
        return torch.randint(0, self.vocab, (batch, seq), device=device)


class PatchEmbedding(nn.Module):
    """ViT: 16×16 patches through a stride-16 convolution, the [CLS] token and learned positions."""

    def __init__(self, arch, factory):
        super().__init__()
        self.conv = nn.Conv2d(3, arch.hidden, 16, stride=16, **factory)
        self.cls = nn.Parameter(torch.zeros(1, 1, arch.hidden, **factory))
        self.positions = nn.Parameter(torch.zeros(1, arch.sequence, arch.hidden, **factory))
        self.tp_allreduce_elements = 0  # replicated under tp, as hetplan's ViT model says

    def forward(self, image):
        x = self.conv(image).flatten(2).transpose(1, 2)
        x = torch.cat((self.cls.expand(x.shape[0], -1, -1), x), dim=1)
        return x + self.positions

    def example_input(self, batch, seq, device):
        # The patches in one row: the same convolution work as a square image of seq - 1 patches.
        return torch.randn(batch, 3, 16, 16 * (seq - 1), device=device, dtype=self.conv.weight.dtype)


class Head(nn.Module):
    """Final norm, the vocabulary product (vocabulary-parallel under tp) and the loss on the local shard."""

    def __init__(self, arch, tp, factory):
        super().__init__()
        width = arch.embed_dim or arch.hidden
        self.norm = _norm(arch, arch.hidden, factory) if arch.final_norm else None
        self.bert = nn.ModuleDict(dict(
            pooler=nn.Linear(arch.hidden, arch.hidden, **factory),
            transform=nn.Linear(arch.hidden, arch.hidden, **factory),
            transform_norm=_norm(arch, arch.hidden, factory))) if arch.bert_head else None
        self.project_out = nn.Linear(arch.hidden, width, bias=False, **factory) if arch.embed_dim else None
        self.vocab = _split(arch.vocab, tp, "vocabulary")
        self.input_width = arch.hidden
        self.decoder = nn.Linear(width, self.vocab, bias=arch.bert_head, **factory)
        # A tied decoder matrix is the embedding's: counted in the embedding layer, as hetplan counts it.
        self.tied_params = self.decoder.weight.numel() if arch.tied else 0
        self.tp_allreduce_elements = arch.sequence * arch.hidden if tp > 1 else 0

    def forward(self, x):
        if self.norm is not None:
            x = self.norm(x)
        extra = 0
        if self.bert is not None:
            extra = torch.tanh(self.bert["pooler"](x[:, 0])).sum() * 0  # [CLS] pooler, kept in the graph
            x = self.bert["transform_norm"](F.gelu(self.bert["transform"](x)))
        if self.project_out is not None:
            x = self.project_out(x)
        logits = self.decoder(x).float()
        targets = torch.randint(0, self.vocab, logits.shape[:-1], device=x.device)
        return F.cross_entropy(logits.flatten(0, 1), targets.flatten()) + extra


class VitHead(nn.Module):
    def __init__(self, arch, factory):
        super().__init__()
        self.norm = nn.LayerNorm(arch.hidden, **factory)
        self.classifier = nn.Linear(arch.hidden, arch.classes, **factory)
        self.classes, self.input_width = arch.classes, arch.hidden
        self.tied_params, self.tp_allreduce_elements = 0, 0

    def forward(self, x):
        logits = self.classifier(self.norm(x[:, 0])).float()
        targets = torch.randint(0, self.classes, logits.shape[:1], device=x.device)
        return F.cross_entropy(logits, targets)


def layer_names(arch):
    return ["embedding"] + [f"block{i}" for i in range(arch.layers)] + ["head"]


def build_layer(arch, index, tp, device, dtype):
    """Layer `index` of the model (0 = embedding, 1..layers = blocks, layers + 1 = head), one tp rank's shard."""
    factory = dict(device=device, dtype=dtype)
    vit = arch.family == "vit"
    if index == 0:
        return PatchEmbedding(arch, factory) if vit else Embedding(arch, tp, factory)
    if index == arch.layers + 1:
        return VitHead(arch, factory) if vit else Head(arch, tp, factory)
    return Block(arch, tp, factory, moe=arch.block_kind(index - 1) == "moe")


def own_params(layer):
    """Parameters hetplan counts in this layer (a tied decoder matrix belongs to the embedding)."""
    return sum(p.numel() for p in layer.parameters()) - getattr(layer, "tied_params", 0)
