"""Constrained commit in Triton: one launch from block logits to commit decisions.

kernel -> launcher -> public function (`commit`, same contract as naive.py).
One program per request: its (S, C) logits, the allowed-answer bitmask of each slot, the
open-slot mask, the temperature and the request's threshold give, per slot, the
renormalised probabilities, the choice, its confidence, and whether it commits (threshold
rule; where no open slot reaches it, the most confident one, or with REST_ALL every open slot;
a threshold above 1 means one per pass).
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl


@triton.jit
def _commit_kernel(
    LOGITS, ALLOWED, OPEN, THRESHOLD, PROBS, CHOICE, CONF, COMMIT,
    stride_lb, stride_ls, stride_pb, stride_ps,
    S, C, inv_temperature,
    REST_ALL: tl.constexpr, BLOCK_S: tl.constexpr, BLOCK_C: tl.constexpr,
):
    b = tl.program_id(0)
    offs_s = tl.arange(0, BLOCK_S)
    offs_c = tl.arange(0, BLOCK_C)
    s_mask = offs_s < S
    c_mask = offs_c < C
    x = tl.load(LOGITS + b * stride_lb + offs_s[:, None] * stride_ls + offs_c[None, :],
                mask=s_mask[:, None] & c_mask[None, :], other=0.0).to(tl.float32) * inv_temperature  # [BLOCK_S, BLOCK_C]
    bits = tl.load(ALLOWED + b * S + offs_s, mask=s_mask, other=0)  # [BLOCK_S] int32
    allowed = (((bits[:, None] >> offs_c[None, :]) % 2) != 0) & c_mask[None, :]
    x = tl.where(allowed, x, float("-inf"))
    m = tl.max(x, 1)
    m = tl.where(m == float("-inf"), 0.0, m)
    e = tl.where(allowed, tl.exp(x - m[:, None]), 0.0)
    z = tl.sum(e, 1)
    p = e / tl.where(z > 0, z, 1.0)[:, None]
    conf = tl.max(p, 1)
    choice = tl.argmax(p, 1, tie_break_left=True)
    is_open = (tl.load(OPEN + b * S + offs_s, mask=s_mask, other=0) != 0) & s_mask
    ranked = tl.where(is_open, conf, -1.0)
    best = tl.argmax(ranked, 0, tie_break_left=True)  # an open slot whenever there is one
    threshold = tl.load(THRESHOLD + b)
    sure = is_open & (conf >= threshold)
    fallback = is_open & (offs_s == best)
    if REST_ALL:
        fallback = tl.where(threshold > 1.0, fallback, is_open)
    commit = sure | (fallback & (tl.max(sure.to(tl.int32), 0) == 0))
    tl.store(PROBS + b * stride_pb + offs_s[:, None] * stride_ps + offs_c[None, :], p,
             mask=s_mask[:, None] & c_mask[None, :])
    tl.store(CHOICE + b * S + offs_s, choice.to(tl.int64), mask=s_mask)
    tl.store(CONF + b * S + offs_s, conf, mask=s_mask)
    tl.store(COMMIT + b * S + offs_s, commit.to(tl.int8), mask=s_mask)


def commit(logits: torch.Tensor, allowed: torch.Tensor, open_: torch.Tensor, threshold: torch.Tensor,
           temperature: float, rest_all: bool = False):
    """logits (B, S, C); allowed (B, S) int32 bitmask over C (C <= 31); open_ (B, S) bool;
    threshold (B,) fp32; rest_all: see naive.py. Returns probs (B, S, C) fp32, choice (B, S) int64, conf (B, S) fp32,
    commit (B, S) bool."""
    if logits.ndim != 3:
        raise ValueError(f"logits must be (B, S, C), got shape {tuple(logits.shape)}")
    B, S, C = logits.shape
    if C > 31:
        raise ValueError(f"logits: at most 31 answer classes fit the int32 bitmask, got C={C}")
    if allowed.shape != (B, S) or allowed.dtype != torch.int32:
        raise ValueError(f"allowed must be int32 of shape ({B}, {S}), got {allowed.dtype} {tuple(allowed.shape)}")
    if open_.shape != (B, S):
        raise ValueError(f"open_ must be of shape ({B}, {S}), got {tuple(open_.shape)}")
    if threshold.shape != (B,):
        raise ValueError(f"threshold must be of shape ({B},), got {tuple(threshold.shape)}")
    if not temperature > 0:
        raise ValueError(f"temperature must be positive, got {temperature}")
    if logits.stride(-1) != 1:
        raise ValueError("logits: the class dimension must be contiguous")
    probs = torch.empty(B, S, C, device=logits.device, dtype=torch.float32)
    choice = torch.empty(B, S, device=logits.device, dtype=torch.int64)
    conf = torch.empty(B, S, device=logits.device, dtype=torch.float32)
    flags = torch.empty(B, S, device=logits.device, dtype=torch.int8)
    _commit_kernel[(B,)](
        logits, allowed.contiguous(), open_.to(torch.int8).contiguous(), threshold.float().contiguous(),
        probs, choice, conf, flags,
        logits.stride(0), logits.stride(1), probs.stride(0), probs.stride(1),
        S, C, 1.0 / temperature,
        REST_ALL=rest_all, BLOCK_S=max(16, triton.next_power_of_2(S)), BLOCK_C=max(16, triton.next_power_of_2(C)),
    )
    return probs, choice, conf, flags.bool()
