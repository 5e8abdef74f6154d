"""Real diffusion language models behind decider's model interface (config, prefix forward,
block forward): Qwen3-architecture block diffusion (SDAR), Qwen2-architecture block diffusion
(Fast-dLLM v2) and LLaMA-architecture masked diffusion (LLaDA).

A decision maps onto such a model as text: the prefix is the prompt (context and numbered
questions, options as lettered choices); the answer block is a fixed template with one masked
position per question,

    1: [MASK]\\n2: [MASK]\\n3: [MASK]

whose template tokens are known (never masked). Each masked position is read over its answer
classes only: yes -> " yes", no -> " no", option k -> " A" + k (`class_tokens`), so the engine's
commit rule, constraints and calibration work on (B, S, C) logits as for decider-small.

Attention: the prefix is causal, or block-causal in the model's own block size (block
diffusion: SDAR, Fast-dLLM v2), so its K/V are exact and cacheable; the block attends to the whole prefix and to itself, both directions. LLaDA's
prefix attends to everything in its training, the block included; here its prefix is encoded
once, bidirectionally within itself and without the block (an approximate cache: exact
recomputation would re-run the prefix on every pass). Models trained Dream-style read the
prediction for position i from position i - 1 (`logits_shift`): a template token, which is
why the template lives in the block.

The module names follow Hugging Face's (model.layers.N.self_attn.q_proj, ...), so a checkpoint's
safetensors load as they are (engine/hf_loader.py). This module knows nothing of text.
"""

from __future__ import annotations

from typing import Literal

import torch
import torch.nn.functional as F
from pydantic import BaseModel, ConfigDict, Field
from torch import nn

from decider.engine.model import PackedPrefixKV, PrefixKV
from decider.kernels import dispatch

Family = Literal["qwen3-block-diffusion", "qwen2-block-diffusion", "llama-masked-diffusion"]


class LMConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    family: Family
    vocab_size: int = Field(gt=0)
    dim: int = Field(gt=0)
    n_layers: int = Field(gt=0)
    n_heads: int = Field(gt=0)
    n_kv_heads: int = Field(gt=0)
    head_dim: int = Field(gt=0)
    ffn_dim: int = Field(gt=0)
    rope_theta: float = Field(gt=0)
    norm_eps: float = Field(gt=0)
    max_position: int = Field(gt=0)
    tie_word_embeddings: bool = False
    qk_norm: bool = Field(False, description="RMSNorm of each head's q and k (Qwen3)")
    qkv_bias: bool = Field(False, description="biases on q, k, v (Qwen2)")
    causal_prefix: bool = Field(True, description="prefix tokens see only earlier ones (block diffusion)")
    prefix_block: int = Field(1, ge=1, description="the causal prefix is block-causal in blocks of this many "
                              "tokens, both directions inside a block, as the model reads its prompt (SDAR 4, "
                              "Fast-dLLM v2 32); 1 = token by token")
    logits_shift: bool = Field(False, description="the logit at i predicts token i + 1 (Dream-style)")
    mask_token_id: int = Field(ge=0)
    n_answers: int = Field(18, description="answer classes: yes, no, option A..P")
    max_questions: int = 8


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = x.float()
        h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * h.to(x.dtype)


def rope(positions: torch.Tensor, head_dim: int, theta: float, dtype: torch.dtype):
    """cos, sin (B, T, head_dim) for positions (B, T): the rotate-half layout of Llama and Qwen."""
    inv = 1.0 / (theta ** (torch.arange(0, head_dim, 2, device=positions.device, dtype=torch.float32) / head_dim))
    freqs = positions.float()[..., None] * inv
    emb = torch.cat([freqs, freqs], -1)
    return emb.cos().to(dtype), emb.sin().to(dtype)


def _rotate(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """x (B, H, T, D); cos, sin (B, T, D)."""
    half = x.shape[-1] // 2
    rotated = torch.cat([-x[..., half:], x[..., :half]], -1)
    return x * cos[:, None] + rotated * sin[:, None]


class Attention(nn.Module):
    def __init__(self, cfg: LMConfig):
        super().__init__()
        self.cfg = cfg
        self.q_proj = nn.Linear(cfg.dim, cfg.n_heads * cfg.head_dim, bias=cfg.qkv_bias)
        self.k_proj = nn.Linear(cfg.dim, cfg.n_kv_heads * cfg.head_dim, bias=cfg.qkv_bias)
        self.v_proj = nn.Linear(cfg.dim, cfg.n_kv_heads * cfg.head_dim, bias=cfg.qkv_bias)
        self.o_proj = nn.Linear(cfg.n_heads * cfg.head_dim, cfg.dim, bias=False)
        if cfg.qk_norm:
            self.q_norm = RMSNorm(cfg.head_dim, cfg.norm_eps)
            self.k_norm = RMSNorm(cfg.head_dim, cfg.norm_eps)

    def qkv(self, x, cos, sin):
        """x (B, T, dim) -> q (B, T, H, D), k and v (B, T, Hkv, D), RoPE applied."""
        B, T, _ = x.shape
        q = self.q_proj(x).view(B, T, self.cfg.n_heads, self.cfg.head_dim)
        k = self.k_proj(x).view(B, T, self.cfg.n_kv_heads, self.cfg.head_dim)
        v = self.v_proj(x).view(B, T, self.cfg.n_kv_heads, self.cfg.head_dim)
        if self.cfg.qk_norm:
            q, k = self.q_norm(q), self.k_norm(k)
        q = _rotate(q.transpose(1, 2), cos, sin).transpose(1, 2)
        k = _rotate(k.transpose(1, 2), cos, sin).transpose(1, 2)
        return q, k, v


class MLP(nn.Module):
    def __init__(self, cfg: LMConfig):
        super().__init__()
        self.gate_proj = nn.Linear(cfg.dim, cfg.ffn_dim, bias=False)
        self.up_proj = nn.Linear(cfg.dim, cfg.ffn_dim, bias=False)
        self.down_proj = nn.Linear(cfg.ffn_dim, cfg.dim, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class DecoderLayer(nn.Module):
    def __init__(self, cfg: LMConfig):
        super().__init__()
        self.input_layernorm = RMSNorm(cfg.dim, cfg.norm_eps)
        self.self_attn = Attention(cfg)
        self.post_attention_layernorm = RMSNorm(cfg.dim, cfg.norm_eps)
        self.mlp = MLP(cfg)

    def _finish(self, x, a):
        B, T = a.shape[:2]
        x = x + self.self_attn.o_proj(a.reshape(B, T, -1).to(x.dtype))
        return x + self.mlp(self.post_attention_layernorm(x))

    def prefix(self, x, cos, sin, mask):
        """x (B, L, dim); mask (B, 1, L, L) bool. Returns x and this layer's (k, v) as (B, Hkv, L, D)."""
        q, k, v = self.self_attn.qkv(self.input_layernorm(x), cos, sin)
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))
        group = q.shape[1] // k.shape[1]
        a = F.scaled_dot_product_attention(q.float(), k.float().repeat_interleave(group, 1),
                                           v.float().repeat_interleave(group, 1), attn_mask=mask)
        return self._finish(x, a.transpose(1, 2)), (k, v)

    def block(self, x, cos, sin, prefix_k, prefix_v, block_valid, prefix_valid=None, cu_seqlens=None,
              max_len=None):
        """Block tokens x (B, T, dim) over their prefix and each other, through kernels.dispatch:
        padded (B, Hkv, L, D) with prefix_valid on the torch path, packed (N, Hkv, D) with
        cu_seqlens on the Triton path (its kernel reads grouped-query heads as they are)."""
        q, k, v = self.self_attn.qkv(self.input_layernorm(x), cos, sin)
        if cu_seqlens is None:
            a = dispatch.block_attention(q, k, v, block_valid, prefix_k, prefix_v, prefix_valid=prefix_valid)
        else:
            dt = q.dtype  # one dtype and one layout for keys and values, as the kernel asks
            a = dispatch.block_attention(q, k.to(dt).contiguous(), v.to(dt).contiguous(), block_valid,
                                         prefix_k.to(dt), prefix_v.to(dt), cu_seqlens=cu_seqlens,
                                         max_prefix_len=max_len, backend="triton")
        return self._finish(x, a)


class Body(nn.Module):
    """Hugging Face's `model.` submodule: embeddings, layers, final norm."""

    def __init__(self, cfg: LMConfig):
        super().__init__()
        self.embed_tokens = nn.Embedding(cfg.vocab_size, cfg.dim)
        self.layers = nn.ModuleList(DecoderLayer(cfg) for _ in range(cfg.n_layers))
        self.norm = RMSNorm(cfg.dim, cfg.norm_eps)


class LMBlockDiffusion(nn.Module):
    """config, prefix forward, block forward over a real diffusion LM (see the module docstring).

    `template`: per question j, the token ids written before its answer (e.g. "1:") and the
    separator after it; `class_tokens` (C,): the token id that stands for each answer class.
    The block reads the prefix K/V padded (the torch path) or packed (the Triton kernel's
    layout, which the engine hands it on CUDA), grouped-query heads either way."""

    reads_weights = ("lm_head",)  # head_weight() reads it: engine/packed.py leaves it unpacked

    def __init__(self, cfg: LMConfig, template: list[list[int]], separator: list[int], class_tokens: list[int]):
        super().__init__()
        if len(template) < cfg.max_questions or not all(template) or len(class_tokens) != cfg.n_answers:
            raise ValueError("the answer template needs a line per question and a token per answer class")
        self.cfg = cfg
        self.model = Body(cfg)
        if not cfg.tie_word_embeddings:
            self.lm_head = nn.Linear(cfg.dim, cfg.vocab_size, bias=False)
        self.template, self.separator = template, separator
        self.register_buffer("class_tokens", torch.tensor(class_tokens), persistent=False)

    @property
    def mask_token(self) -> int:
        return self.cfg.n_answers  # the class value of an open slot (the engine's convention)

    def head_weight(self) -> torch.Tensor:
        return self.model.embed_tokens.weight if self.cfg.tie_word_embeddings else self.lm_head.weight

    # -- the answer block
    def block_layout(self, n_slots: int) -> tuple[list[int], list[int]]:
        """Block token ids (slots as the mask token) and each slot's index in the block."""
        ids, slots = [], []
        for j in range(n_slots):
            ids += self.template[j]
            slots.append(len(ids))
            ids += [self.cfg.mask_token_id] + self.separator
        return ids, slots

    def answer_vectors(self, option_ids: torch.Tensor, option_len: torch.Tensor, option_start=None,
                       prefix=None) -> torch.Tensor:
        """(B, S, C) token id of every answer class (the same for every slot: options are letters)."""
        B, S = option_ids.shape[:2]
        return self.class_tokens.expand(B, S, -1)

    # -- the two passes
    def prefix_forward(self, ids, valid, segments=None, numbers=None, links=None) -> PrefixKV:
        """ids, valid (B, L), right-padded. Causal (or, for LLaDA, bidirectional within the prefix)."""
        B, L = ids.shape
        x = self.model.embed_tokens(ids)
        pos = torch.arange(L, device=ids.device).expand(B, L)
        cos, sin = rope(pos, self.cfg.head_dim, self.cfg.rope_theta, x.dtype)
        mask = valid[:, None, None, :].expand(B, 1, L, L)
        if self.cfg.causal_prefix:
            blocks = torch.arange(L, device=ids.device) // self.cfg.prefix_block
            mask = mask & (blocks[None, :] <= blocks[:, None])
        ks, vs = [], []
        for layer in self.model.layers:
            x, (k, v) = layer.prefix(x, cos, sin, mask)
            ks.append(k)
            vs.append(v)
        return PrefixKV(ks, vs, valid)

    def block_forward(self, answers, positions, slot_valid, prefix: PrefixKV | PackedPrefixKV, choices) -> torch.Tensor:
        """answers, positions, slot_valid (B, S); choices (B, S, C) class token ids -> logits (B, S, C)."""
        B, S = answers.shape
        device = answers.device
        layouts = [self.block_layout(int(n)) for n in slot_valid.sum(1).tolist()]
        T = max(len(ids) for ids, _ in layouts)
        block = torch.full((B, T), self.cfg.mask_token_id, dtype=torch.long, device=device)
        block_valid = torch.zeros(B, T, dtype=torch.bool, device=device)
        at = torch.zeros(B, S, dtype=torch.long, device=device)
        for b, (ids, slots) in enumerate(layouts):
            block[b, :len(ids)] = torch.tensor(ids, device=device)
            block_valid[b, :len(ids)] = True
            at[b, :len(slots)] = torch.tensor(slots, device=device)
        revealed = (answers != self.mask_token) & slot_valid
        tokens = choices.gather(2, answers.clamp(max=choices.shape[2] - 1)[..., None]).squeeze(2)  # (B, S)
        block.scatter_(1, at, torch.where(revealed, tokens, block.gather(1, at)))
        if isinstance(prefix, PackedPrefixKV):  # the Triton kernel's layout
            start = (prefix.cu_seqlens[1:] - prefix.cu_seqlens[:-1]).long()[:, None]
            layout = {"cu_seqlens": prefix.cu_seqlens, "max_len": prefix.max_len}
        else:
            start = prefix.valid.sum(1, keepdim=True)
            layout = {"prefix_valid": prefix.valid}
        pos = start + torch.arange(T, device=device)  # block positions follow each request's prefix
        x = self.model.embed_tokens(block)
        cos, sin = rope(pos, self.cfg.head_dim, self.cfg.rope_theta, x.dtype)
        for layer, k, v in zip(self.model.layers, prefix.k, prefix.v):
            x = layer.block(x, cos, sin, k, v, block_valid, **layout)
        read = (at - 1).clamp(min=0) if self.cfg.logits_shift else at  # Dream-style: the token before predicts
        h = self.model.norm(x).gather(1, read[..., None].expand(B, S, x.shape[-1]))  # (B, S, dim)
        w = self.head_weight()[choices]  # (B, S, C, dim)
        return torch.einsum("bsd,bscd->bsc", h.float(), w.float())
