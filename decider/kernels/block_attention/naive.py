"""Block attention in torch: the reference the Triton kernel is tested against, and the
path every device without Triton runs.

Queries are each request's block slots; keys and values are that request's cached prefix
followed by the block's own keys and values. Bidirectional: every slot sees its whole
prefix and every valid slot of its block. The prefix is padded (B, Hkv, L, D) with a
validity mask, the layout the engine keeps on the torch path; with a mask, scores over the
prefix and over the block are joined, not the keys, so the cached K/V are read in place, never
copied. Without one (a request at its own length: the CPU engine's path) the keys are joined
and SDPA runs once, which at 8 query rows is cheaper than the split form's dozen small ops.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F


def block_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, slot_valid: torch.Tensor,
                    prefix_k: torch.Tensor, prefix_v: torch.Tensor, prefix_valid: torch.Tensor,
                    lengths: tuple[list[int], list[int]] | None = None, repeats: int = 1,
                    tail: bool = False) -> torch.Tensor:
    """q (B, S, H, D); k, v (B, S, Hkv, D); slot_valid (B, S) bool; prefix_k, prefix_v (B, Hkv, L, D)
    padded; prefix_valid (B, L) bool. Returns (B, S, H, D) in fp32 (computed in fp32).

    `repeats`: the block batch holds `repeats` blocks per prefix, block row r * P + p reading
    prefix p (q has B = repeats * P rows, the prefix P): training's reveal patterns, which share
    one prefix pass. The prefix is read once for all of them, not copied per block.

    `lengths` (prefix lengths, slot counts): attend request by request over exactly its own
    keys, so that a request's bits never depend on the padding its batch needs (the reductions
    over a padded length sum in another order: ~1e-7 in fp32, which bf16 rounding can turn into
    a different answer). Without it the batch is one padded computation.

    `tail` (batch 1, with `lengths`): prefix_k and prefix_v (1, Hkv, >= L + S, D) in fp32 run on
    past the prefix's L rows into rows nothing else reads: the block's keys and values are written
    there and one SDPA call reads both, the bits of joining them (_attend_all) without copying
    the prefix."""
    if repeats > 1:
        if lengths is not None:
            raise ValueError("block attention over shared prefixes reads a padded batch; pass no lengths")
        return _attend_shared(q, k, v, slot_valid, prefix_k, prefix_v, prefix_valid, repeats)
    if lengths is None:
        keys_valid = torch.cat([prefix_valid.bool(), slot_valid.bool()], 1)  # (B, L + S)
        return _attend(q, k, v, prefix_k, prefix_v, keys_valid)
    B, S, H, D = q.shape
    if tail:
        return _attend_in_tail(q, k, v, prefix_k, prefix_v, lengths[0][0])
    if B == 1 and lengths[0][0] == prefix_k.shape[2] and lengths[1][0] == S:  # nothing to cut (batch 1)
        return _attend_all(q, k, v, prefix_k, prefix_v)
    out = q.new_zeros(B, S, H, D, dtype=torch.float32)
    for b, (n, s) in enumerate(zip(*lengths)):
        out[b:b + 1, :s] = _attend_all(q[b:b + 1, :s], k[b:b + 1, :s], v[b:b + 1, :s],
                                       prefix_k[b:b + 1, :, :n], prefix_v[b:b + 1, :, :n])
    return out


def _attend(q, k, v, prefix_k, prefix_v, keys_valid: torch.Tensor) -> torch.Tensor:
    B, S, H, D = q.shape
    group = H // k.shape[2]
    qh = q.float().transpose(1, 2)                                          # (B, H, S, D)
    kh, vh = (t.float().transpose(1, 2) for t in (k, v))                    # (B, Hkv, S, D)
    pk, pv = prefix_k.float(), prefix_v.float()                             # (B, Hkv, L, D)
    if group > 1:
        kh, vh, pk, pv = (t.repeat_interleave(group, 1) for t in (kh, vh, pk, pv))  # (B, H, ., D)
    L = pk.shape[2]
    scores = torch.cat([qh @ pk.transpose(-1, -2), qh @ kh.transpose(-1, -2)], -1) * D ** -0.5  # (B, H, S, L + S)
    p = scores.masked_fill(~keys_valid[:, None, None, :], float("-inf")).softmax(-1)
    out = p[..., :L] @ pv + p[..., L:] @ vh                                 # (B, H, S, D)
    return out.transpose(1, 2)                                              # (B, S, H, D)


def _attend_all(q, k, v, prefix_k, prefix_v) -> torch.Tensor:
    """Attention over every key (a request at its own length): the block's keys after the
    prefix's, one SDPA call (on a CPU, a batch-1 block pass spends more on the dozen small ops
    of the split form than on its arithmetic)."""
    group = q.shape[2] // k.shape[2]
    keys = torch.cat([prefix_k.float(), k.float().transpose(1, 2)], 2)    # (B, Hkv, L + S, D)
    values = torch.cat([prefix_v.float(), v.float().transpose(1, 2)], 2)
    out = F.scaled_dot_product_attention(q.float().transpose(1, 2), keys, values, enable_gqa=group > 1)
    return out.transpose(1, 2)                                              # (B, S, H, D)


def _attend_in_tail(q, k, v, prefix_k, prefix_v, n: int) -> torch.Tensor:
    """_attend_all of a request whose n-row prefix K/V have room after them for the block's."""
    B, S = q.shape[:2]
    if B != 1 or prefix_k.shape[2] < n + S or prefix_k.dtype != torch.float32:
        raise ValueError(f"block attention in the prefix's tail needs one request whose fp32 K/V have {S} free rows "
                         f"after its {n}; got {tuple(prefix_k.shape)} {prefix_k.dtype} for {B} request(s)")
    keys, values = prefix_k[:, :, :n + S], prefix_v[:, :, :n + S]
    keys[:, :, n:].copy_(k.transpose(1, 2))
    values[:, :, n:].copy_(v.transpose(1, 2))
    out = F.scaled_dot_product_attention(q.float().transpose(1, 2), keys, values, enable_gqa=q.shape[2] > k.shape[2])
    return out.transpose(1, 2)                                              # (B, S, H, D)


def _attend_shared(q, k, v, slot_valid, prefix_k, prefix_v, prefix_valid, R: int) -> torch.Tensor:
    """_attend of R blocks per prefix: the R blocks' slots of a prefix are one (R * S)-row query
    against it, and each block's own keys stay its own."""
    B, S, H, D = q.shape
    P, Hkv, L, _ = prefix_k.shape
    group = H // Hkv
    qh = q.float().view(R, P, S, H, D).permute(1, 3, 0, 2, 4)               # (P, H, R, S, D)
    kh, vh = (t.float().view(R, P, S, Hkv, D).permute(1, 3, 0, 2, 4) for t in (k, v))  # (P, Hkv, R, S, D)
    pk, pv = prefix_k.float(), prefix_v.float()                             # (P, Hkv, L, D)
    if group > 1:
        kh, vh, pk, pv = (t.repeat_interleave(group, 1) for t in (kh, vh, pk, pv))
    on_prefix = (qh.reshape(P, H, R * S, D) @ pk.transpose(-1, -2)).view(P, H, R, S, L)
    scores = torch.cat([on_prefix, qh @ kh.transpose(-1, -2)], -1) * D ** -0.5  # (P, H, R, S, L + S)
    slots = slot_valid.bool().view(R, P, S).transpose(0, 1)                 # (P, R, S)
    keys_valid = torch.cat([prefix_valid.bool()[:, None, :].expand(P, R, L), slots], -1)  # (P, R, L + S)
    p = scores.masked_fill(~keys_valid[:, None, :, None, :], float("-inf")).softmax(-1)
    out = (p[..., :L].reshape(P, H, R * S, L) @ pv).view(P, H, R, S, D) + p[..., L:] @ vh
    return out.permute(2, 0, 3, 1, 4).reshape(B, S, H, D)                   # (R * P, S, H, D)


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
