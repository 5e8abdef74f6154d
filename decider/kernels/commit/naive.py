"""Constrained commit, fp32 torch reference.

Per slot: temperature softmax over the slot's allowed answers (a bitmask over answer
classes), renormalised; the choice, its confidence; and whether it commits under the
threshold rule. A request where no open slot reaches its threshold commits its single most
confident open slot or, with `rest_all` (EngineConfig.parallel_rest), every open slot at once;
a threshold above 1 (sequential) always commits exactly the most confident one.
"""

from __future__ import annotations

import torch


def commit(logits: torch.Tensor, allowed: torch.Tensor, open_: torch.Tensor, threshold: torch.Tensor,
           temperature: float, rest_all: bool = False):
    """logits (B, S, C); allowed (B, S) int32 bitmask over C; open_ (B, S) bool; threshold (B,)
    (above 1 = sequential: one commit per request); rest_all: where no open slot reaches the
    threshold, commit them all rather than the most confident. Returns probs (B, S, C) fp32,
    choice (B, S) int64, conf (B, S) fp32, commit (B, S) bool."""
    B, S, C = logits.shape
    bits = (allowed[..., None].long() >> torch.arange(C, device=logits.device)) & 1  # (B, S, C)
    x = (logits.float() / temperature).masked_fill(bits == 0, float("-inf"))
    probs = torch.softmax(x, -1).nan_to_num(0.0)
    conf, choice = probs.max(-1)
    ranked = torch.where(open_, conf, torch.full_like(conf, -1.0))
    best = torch.zeros_like(open_).scatter_(1, ranked.argmax(-1, keepdim=True), True) & open_
    sure = open_ & (conf >= threshold[:, None])
    # where no slot is sure: the most confident, or (parallel, rest_all) every open slot
    fallback = torch.where((threshold > 1)[:, None], best, open_) if rest_all else best
    commit = sure | (fallback & ~sure.any(-1, keepdim=True))
    return probs, choice, conf, commit
