"""Block attention in Triton: a block of at most 64 queries per request (decider-small's 8
slots; a diffusion LM's answer template, engine/lm.py) over that request's packed prefix K/V
plus the block's own K/V, split over long prefixes.

kernel -> launcher -> public function (`block_attention`, same contract as naive.py).

Grid (B, H, n_splits): each program runs an online softmax (fp32) over one slice of one
request's prefix for one head; the program of split 0 also takes the block's own keys.
With more than one split, a combine kernel merges the partial (max, sum, output) triples,
flash-decoding style, so that a batch of few requests with long prefixes still fills the GPU.
"""

from __future__ import annotations

import math
import os

import torch
import triton
import triton.language as tl

INTERPRET = os.environ.get("TRITON_INTERPRET") == "1"
# the autotune list is data; the interpreter cannot run more than one config
CONFIGS = [triton.Config({"BLOCK_N": n}, num_warps=w) for n, w in ((64, 4), (32, 2), (128, 4), (64, 8))]
MAX_BLOCK = 64  # queries per request's block: one tile of them per program
NEG = tl.constexpr(-1.0e30)  # finite "minus infinity" for running maxima: exp(NEG - NEG) stays defined


@triton.jit
def _attend(q, k, v, key_mask, m_i, l_i, acc, scale, UPCAST: tl.constexpr):
    """One online-softmax update: queries q [BLOCK_S, BLOCK_D] over keys/values
    [BLOCK_N, BLOCK_D] where key_mask [BLOCK_N]; returns the new (max, sum, output)."""
    if UPCAST:
        s = tl.dot(q.to(tl.float32), tl.trans(k.to(tl.float32)), input_precision="ieee") * scale  # [BLOCK_S, BLOCK_N]
    else:
        s = tl.dot(q, tl.trans(k)) * scale
    s = tl.where(key_mask[None, :], s, float("-inf"))
    m_new = tl.maximum(m_i, tl.max(s, 1))
    alpha = tl.exp(m_i - m_new)
    p = tl.exp(s - m_new[:, None])
    l_i = l_i * alpha + tl.sum(p, 1)
    if UPCAST:
        acc = acc * alpha[:, None] + tl.dot(p, v.to(tl.float32), input_precision="ieee")
    else:
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
    return m_new, l_i, acc


@triton.autotune(configs=CONFIGS[:1] if INTERPRET else CONFIGS, key=["S", "D", "GROUP"])
@triton.jit
def _block_attention_kernel(
    Q, K, V, SLOT_VALID, PK, PV, CU, O_PART, M_PART, L_PART,
    stride_qb, stride_qs, stride_qh,
    stride_kb, stride_ks, stride_kh,
    stride_pn, stride_ph,
    stride_ob, stride_oh, stride_op, stride_os,
    stride_mb, stride_mh, stride_mp,
    S, D, GROUP, split_len, scale,
    UPCAST: tl.constexpr, BLOCK_S: tl.constexpr, BLOCK_D: tl.constexpr, BLOCK_N: tl.constexpr,
):
    b = tl.program_id(0)
    h = tl.program_id(1)
    split = tl.program_id(2)
    kvh = h // GROUP
    start = tl.load(CU + b).to(tl.int64)
    length = tl.load(CU + b + 1).to(tl.int64) - start
    lo = split * split_len
    hi = tl.minimum(lo + split_len, length)

    offs_s = tl.arange(0, BLOCK_S)
    offs_d = tl.arange(0, BLOCK_D)
    offs_n = tl.arange(0, BLOCK_N)
    s_mask = offs_s < S
    d_mask = offs_d < D
    q = tl.load(Q + b * stride_qb + offs_s[:, None] * stride_qs + h * stride_qh + offs_d[None, :],
                mask=s_mask[:, None] & d_mask[None, :], other=0.0)  # [BLOCK_S, BLOCK_D]

    m_i = tl.full([BLOCK_S], NEG, dtype=tl.float32)
    l_i = tl.zeros([BLOCK_S], dtype=tl.float32)
    acc = tl.zeros([BLOCK_S, BLOCK_D], dtype=tl.float32)

    for n0 in range(lo, hi, BLOCK_N):
        n = n0 + offs_n
        n_mask = n < hi
        rows = (start + n)[:, None] * stride_pn + kvh * stride_ph + offs_d[None, :]
        k = tl.load(PK + rows, mask=n_mask[:, None] & d_mask[None, :], other=0.0)  # [BLOCK_N, BLOCK_D]
        v = tl.load(PV + rows, mask=n_mask[:, None] & d_mask[None, :], other=0.0)  # [BLOCK_N, BLOCK_D]
        m_i, l_i, acc = _attend(q, k, v, n_mask, m_i, l_i, acc, scale, UPCAST)

    if split == 0:  # the block's own keys: every valid slot of the request
        rows = b * stride_kb + offs_s[:, None] * stride_ks + kvh * stride_kh + offs_d[None, :]
        kb = tl.load(K + rows, mask=s_mask[:, None] & d_mask[None, :], other=0.0)  # [BLOCK_S, BLOCK_D]
        vb = tl.load(V + rows, mask=s_mask[:, None] & d_mask[None, :], other=0.0)  # [BLOCK_S, BLOCK_D]
        valid = tl.load(SLOT_VALID + b * S + offs_s, mask=s_mask, other=0) != 0
        m_i, l_i, acc = _attend(q, kb, vb, valid, m_i, l_i, acc, scale, UPCAST)

    out = O_PART + b * stride_ob + h * stride_oh + split * stride_op
    tl.store(out + offs_s[:, None] * stride_os + offs_d[None, :], acc, mask=s_mask[:, None] & d_mask[None, :])
    ml = b * stride_mb + h * stride_mh + split * stride_mp + offs_s
    tl.store(M_PART + ml, m_i, mask=s_mask)
    tl.store(L_PART + ml, l_i, mask=s_mask)


@triton.jit
def _combine_kernel(
    O_PART, M_PART, L_PART, OUT,
    stride_ob, stride_oh, stride_op, stride_os,
    stride_mb, stride_mh, stride_mp,
    stride_b, stride_s, stride_h,
    n_splits, S, D,
    BLOCK_S: tl.constexpr, BLOCK_D: tl.constexpr,
):
    b = tl.program_id(0)
    h = tl.program_id(1)
    offs_s = tl.arange(0, BLOCK_S)
    offs_d = tl.arange(0, BLOCK_D)
    s_mask = offs_s < S
    d_mask = offs_d < D
    ml = M_PART + b * stride_mb + h * stride_mh + offs_s
    m = tl.full([BLOCK_S], NEG, dtype=tl.float32)
    for split in range(0, n_splits):
        m = tl.maximum(m, tl.load(ml + split * stride_mp, mask=s_mask, other=NEG))
    denom = tl.zeros([BLOCK_S], dtype=tl.float32)
    acc = tl.zeros([BLOCK_S, BLOCK_D], dtype=tl.float32)
    for split in range(0, n_splits):
        w = tl.exp(tl.load(ml + split * stride_mp, mask=s_mask, other=NEG) - m)  # [BLOCK_S]
        denom += w * tl.load(L_PART + b * stride_mb + h * stride_mh + split * stride_mp + offs_s,
                             mask=s_mask, other=0.0)
        o = tl.load(O_PART + b * stride_ob + h * stride_oh + split * stride_op + offs_s[:, None] * stride_os
                    + offs_d[None, :], mask=s_mask[:, None] & d_mask[None, :], other=0.0)  # [BLOCK_S, BLOCK_D]
        acc += w[:, None] * o
    out = acc / tl.where(denom > 0, denom, 1.0)[:, None]
    tl.store(OUT + b * stride_b + offs_s[:, None] * stride_s + h * stride_h + offs_d[None, :],
             out.to(OUT.dtype.element_ty), mask=s_mask[:, None] & d_mask[None, :])


def _check(q, k, v, slot_valid, prefix_k, prefix_v, cu_seqlens):
    if q.ndim != 4:
        raise ValueError(f"q must be (B, S, H, D), got shape {tuple(q.shape)}")
    B, S, H, D = q.shape
    if not 1 <= S <= MAX_BLOCK:
        raise ValueError(f"q: block of 1..{MAX_BLOCK} queries, got S={S}")
    if k.shape != v.shape or k.ndim != 4 or k.shape[:2] != (B, S) or k.shape[3] != D:
        raise ValueError(f"k and v must be (B, S, Hkv, D) = ({B}, {S}, Hkv, {D}), got {tuple(k.shape)} "
                         f"and {tuple(v.shape)}")
    if H % k.shape[2]:
        raise ValueError(f"k: {k.shape[2]} key/value heads do not divide {H} query heads")
    if slot_valid.shape != (B, S):
        raise ValueError(f"slot_valid must be (B, S) = ({B}, {S}), got {tuple(slot_valid.shape)}")
    if prefix_k.shape != prefix_v.shape or prefix_k.ndim != 3 or prefix_k.shape[1:] != k.shape[2:]:
        raise ValueError(f"prefix_k and prefix_v must be (N, Hkv, D) = (N, {k.shape[2]}, {D}), got "
                         f"{tuple(prefix_k.shape)} and {tuple(prefix_v.shape)}")
    if cu_seqlens.shape != (B + 1,) or cu_seqlens.dtype not in (torch.int32, torch.int64):
        raise ValueError(f"cu_seqlens must be int32/int64 of shape ({B + 1},), got {cu_seqlens.dtype} "
                         f"{tuple(cu_seqlens.shape)}")
    if q.dtype not in (torch.float32, torch.bfloat16, torch.float16):
        raise ValueError(f"q: dtype must be float32, bfloat16 or float16, got {q.dtype}")
    if len({t.dtype for t in (q, k, v, prefix_k, prefix_v)}) != 1:
        raise ValueError("q, k, v, prefix_k and prefix_v must share one dtype")
    for name, t in (("q", q), ("k", k), ("v", v), ("prefix_k", prefix_k), ("prefix_v", prefix_v)):
        if t.stride(-1) != 1:
            raise ValueError(f"{name}: the head dimension must be contiguous")
    if k.stride() != v.stride() or prefix_k.stride() != prefix_v.stride():
        raise ValueError("v must have k's strides and prefix_v prefix_k's (one layout for keys and values)")


def default_splits(batch_heads: int, max_len: int, sms: int = 132) -> int:
    """Enough programs to fill the GPU twice over, never slices shorter than 64 keys."""
    if batch_heads >= 2 * sms:
        return 1
    return max(1, min(math.ceil(2 * sms / batch_heads), math.ceil(max_len / 64), 16))


def block_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, slot_valid: torch.Tensor,
                    prefix_k: torch.Tensor, prefix_v: torch.Tensor, cu_seqlens: torch.Tensor,
                    max_prefix_len: int | None = None, n_splits: int | None = None) -> torch.Tensor:
    """q (B, S, H, D); k, v (B, S, Hkv, D); slot_valid (B, S) bool; prefix_k, prefix_v (N, Hkv, D)
    packed; cu_seqlens (B + 1,) int. Returns (B, S, H, D) in q's dtype (fp32 accumulation)."""
    _check(q, k, v, slot_valid, prefix_k, prefix_v, cu_seqlens)
    B, S, H, D = q.shape
    if max_prefix_len is None:
        max_prefix_len = int((cu_seqlens[1:] - cu_seqlens[:-1]).max()) if B else 0
    if n_splits is None:
        n_splits = default_splits(B * H, max_prefix_len)
    split_len = max(1, math.ceil(max_prefix_len / n_splits))
    BLOCK_S = max(16, triton.next_power_of_2(S))
    BLOCK_D = max(16, triton.next_power_of_2(D))
    o_part = torch.empty(B, H, n_splits, S, D, device=q.device, dtype=torch.float32)
    m_part = torch.empty(B, H, n_splits, S, device=q.device, dtype=torch.float32)
    l_part = torch.empty_like(m_part)
    valid = slot_valid.to(torch.int8).contiguous()
    _block_attention_kernel[(B, H, n_splits)](
        q, k, v, valid, prefix_k, prefix_v, cu_seqlens, o_part, m_part, l_part,
        q.stride(0), q.stride(1), q.stride(2),
        k.stride(0), k.stride(1), k.stride(2),
        prefix_k.stride(0), prefix_k.stride(1),
        o_part.stride(0), o_part.stride(1), o_part.stride(2), o_part.stride(3),
        m_part.stride(0), m_part.stride(1), m_part.stride(2),
        S, D, H // k.shape[2], split_len, D ** -0.5,
        # fp32 inputs: exact fp32 dots (no tf32); the interpreter's bf16/fp16 dot is wrong, so upcast there
        UPCAST=q.dtype == torch.float32 or INTERPRET, BLOCK_S=BLOCK_S, BLOCK_D=BLOCK_D,
    )
    out = torch.empty_like(q)
    _combine_kernel[(B, H)](
        o_part, m_part, l_part, out,
        o_part.stride(0), o_part.stride(1), o_part.stride(2), o_part.stride(3),
        m_part.stride(0), m_part.stride(1), m_part.stride(2),
        out.stride(0), out.stride(1), out.stride(2),
        n_splits, S, D, BLOCK_S=BLOCK_S, BLOCK_D=BLOCK_D,
    )
    return out
