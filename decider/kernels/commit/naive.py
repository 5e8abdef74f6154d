"""Constrained commit, fp32 torch reference.

Per slot: temperature softmax over the slot's allowed answers (a bitmask over answer
classes), renormalised; the choice, its confidence; and whether it commits under the
threshold rule, with at least the single most confident open slot of each request.
"""

from __future__ import annotations

import torch


def commit(logits: torch.Tensor, allowed: torch.Tensor, open_: torch.Tensor, threshold: torch.Tensor,
           temperature: float):
    """logits (B, S, C); allowed (B, S) int32 bitmask over C; open_ (B, S) bool; threshold (B,)
    (above 1 = sequential: one commit per request). Returns probs (B, S, C) fp32, choice (B, S)
    int64, conf (B, S) fp32, commit (B, S) bool."""
    B, S, C = logits.shape
    bits = (allowed[..., None].long() >> torch.arange(C, device=logits.device)) & 1  # (B, S, C)
    x = (logits.float() / temperature).masked_fill(bits == 0, float("-inf"))
    probs = torch.softmax(x, -1).nan_to_num(0.0)
    conf, choice = probs.max(-1)
    ranked = torch.where(open_, conf, torch.full_like(conf, -1.0))
    best = torch.zeros_like(open_).scatter_(1, ranked.argmax(-1, keepdim=True), True) & open_
    commit = open_ & ((conf >= threshold[:, None]) | best)
    return probs, choice, conf, commit
