"""One place that picks the implementation of each hot-path op.

Triton on CUDA, torch everywhere else; `DECIDER_KERNELS=torch|triton` overrides the
choice (triton without CUDA needs the interpreter, TRITON_INTERPRET=1, which tests use).
"""

from __future__ import annotations

import os

import torch

BACKENDS = ("torch", "triton")


def backend_name(device: torch.device | str = "cpu") -> str:
    wanted = os.environ.get("DECIDER_KERNELS", "").strip().lower()
    if wanted and wanted not in BACKENDS:
        raise ValueError(f"DECIDER_KERNELS must be 'torch' or 'triton', got {wanted!r}")
    on_cuda = torch.device(device).type == "cuda"
    if wanted == "triton":
        if not (on_cuda or os.environ.get("TRITON_INTERPRET") == "1"):
            raise ValueError("DECIDER_KERNELS=triton needs a CUDA device (or TRITON_INTERPRET=1 to run the "
                             "kernels in Triton's interpreter, slowly); unset it to use torch")
        return "triton"
    if wanted == "torch" or not on_cuda:
        return "torch"
    try:
        import triton  # noqa: F401 (only whether it imports)
    except ImportError:
        return "torch"
    return "triton"


def commit(logits, allowed, open_, threshold, temperature, backend: str = "torch", rest_all: bool = False):
    """See commit/naive.py for the contract."""
    if backend == "triton":
        from decider.kernels.commit.triton import commit as impl
    else:
        from decider.kernels.commit.naive import commit as impl
    return impl(logits, allowed, open_, threshold, temperature, rest_all)


def block_attention(q, k, v, slot_valid, prefix_k, prefix_v, *, prefix_valid=None, lengths=None, cu_seqlens=None,
                    max_prefix_len=None, repeats: int = 1, tail: bool = False, backend: str = "torch"):
    """Block slots q, k, v (B, S, H|Hkv, D) over each request's prefix and the block itself
    -> (B, S, H, D). The prefix layout follows the backend: torch reads it padded
    (B, Hkv, L, D) with `prefix_valid` (B, L) (block_attention/naive.py); Triton reads it
    packed (N, Hkv, D) with `cu_seqlens` (B + 1,) (block_attention/triton.py). `lengths`
    (torch only): attend request by request at exact lengths (batch-invariant bits). `repeats`
    (torch only): `repeats` blocks per padded prefix, block row r * B + b on prefix b. `tail`
    (torch, batch 1 with `lengths`): the prefix K/V run on into rows free for the block's own."""
    if backend == "triton":
        if repeats != 1:
            raise ValueError("the Triton block attention reads one block per prefix; repeat the prefix instead")
        from decider.kernels.block_attention.triton import block_attention as kernel
        return kernel(q, k, v, slot_valid, prefix_k, prefix_v, cu_seqlens, max_prefix_len)
    from decider.kernels.block_attention.naive import block_attention as reference
    return reference(q, k, v, slot_valid, prefix_k, prefix_v, prefix_valid, lengths, repeats, tail)
