"""Block attention, fp32 torch reference (obviously correct, slow).

Queries are each request's block slots; keys and values are that request's cached prefix
(ragged, packed with cumulative offsets) followed by the block's own keys and values.
Bidirectional: every slot sees the whole prefix and every valid slot of its block.
"""

from __future__ import annotations

import torch


def block_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, slot_valid: torch.Tensor,
                    prefix_k: torch.Tensor, prefix_v: torch.Tensor, cu_seqlens: torch.Tensor) -> torch.Tensor:
    """q (B, S, H, D); k, v (B, S, Hkv, D); slot_valid (B, S) bool; prefix_k, prefix_v (N, Hkv, D)
    packed; cu_seqlens (B + 1,) int. Returns (B, S, H, D) in q's dtype."""
    B, S, H, D = q.shape
    group = H // k.shape[2]
    out = torch.empty_like(q)
    for b in range(B):
        lo, hi = int(cu_seqlens[b]), int(cu_seqlens[b + 1])
        keys = torch.cat([prefix_k[lo:hi], k[b]], 0).float().repeat_interleave(group, 1)    # (L + S, H, D)
        values = torch.cat([prefix_v[lo:hi], v[b]], 0).float().repeat_interleave(group, 1)  # (L + S, H, D)
        valid = torch.cat([torch.ones(hi - lo, dtype=torch.bool, device=q.device), slot_valid[b].bool()])
        scores = torch.einsum("shd,lhd->hsl", q[b].float(), keys) * D ** -0.5  # (H, S, L + S)
        p = scores.masked_fill(~valid, float("-inf")).softmax(-1)
        out[b] = torch.einsum("hsl,lhd->shd", p, values).to(q.dtype)
    return out
