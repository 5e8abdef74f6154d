"""Block attention in torch: the reference the Triton kernel is tested against, and the
path every device without Triton runs.

Queries are each request's block slots; keys and values are that request's cached prefix
followed by the block's own keys and values. Bidirectional: every slot sees its whole
prefix and every valid slot of its block. The prefix is padded (B, Hkv, L, D) with a
validity mask, the layout the engine keeps on the torch path; scores over the prefix and
over the block are joined, not the keys, so the cached K/V are read in place, never copied.
"""

from __future__ import annotations

import torch


def block_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, slot_valid: torch.Tensor,
                    prefix_k: torch.Tensor, prefix_v: torch.Tensor, prefix_valid: torch.Tensor) -> torch.Tensor:
    """q (B, S, H, D); k, v (B, S, Hkv, D); slot_valid (B, S) bool; prefix_k, prefix_v (B, Hkv, L, D)
    padded; prefix_valid (B, L) bool. Returns (B, S, H, D) in fp32 (computed in fp32)."""
    B, S, H, D = q.shape
    group = H // k.shape[2]
    qh = q.float().transpose(1, 2)                                          # (B, H, S, D)
    kh, vh = (t.float().transpose(1, 2) for t in (k, v))                    # (B, Hkv, S, D)
    pk, pv = prefix_k.float(), prefix_v.float()                             # (B, Hkv, L, D)
    if group > 1:
        kh, vh, pk, pv = (t.repeat_interleave(group, 1) for t in (kh, vh, pk, pv))  # (B, H, ., D)
    L = pk.shape[2]
    scores = torch.cat([qh @ pk.transpose(-1, -2), qh @ kh.transpose(-1, -2)], -1) * D ** -0.5  # (B, H, S, L + S)
    keys_valid = torch.cat([prefix_valid.bool(), slot_valid.bool()], 1)    # (B, L + S)
    p = scores.masked_fill(~keys_valid[:, None, None, :], float("-inf")).softmax(-1)
    out = p[..., :L] @ pv + p[..., L:] @ vh                                 # (B, H, S, D)
    return out.transpose(1, 2)                                              # (B, S, H, D)


def pad_prefix(prefix: torch.Tensor, cu_seqlens: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Packed (N, Hkv, D) with offsets cu_seqlens (B + 1,) -> padded (B, Hkv, L, D) and (B, L)
    validity: how tests give the packed kernel's inputs to this reference."""
    lengths = (cu_seqlens[1:] - cu_seqlens[:-1]).tolist()
    B, L = len(lengths), max(lengths, default=0)
    out = prefix.new_zeros(B, prefix.shape[1], L, prefix.shape[2])
    valid = torch.zeros(B, L, dtype=torch.bool, device=prefix.device)
    for b, n in enumerate(lengths):
        lo = int(cu_seqlens[b])
        out[b, :, :n] = prefix[lo:lo + n].transpose(0, 1)
        valid[b, :n] = True
    return out, valid
