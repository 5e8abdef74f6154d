"""Where the model runs and in which precision: the device ('auto' = CUDA when present) and
whether bf16 pays on it (CUDA; CPUs with AMX or AVX512-BF16), as an autocast context."""

from __future__ import annotations

from contextlib import nullcontext

import torch


def bf16_is_fast(device: torch.device | str) -> bool:
    """True on CUDA and on CPUs with AMX or AVX512-BF16, where bf16 matmuls run 5-10x faster
    than fp32. Elsewhere (AVX2-only CPUs) bf16 is emulated and ~100x slower: stay in fp32."""
    device = torch.device(device)
    if device.type == "cuda":
        return torch.cuda.is_bf16_supported()
    if device.type == "cpu":
        return torch.cpu._is_amx_tile_supported() or torch.cpu._is_avx512_bf16_supported()
    return False


def resolve_device(name: str = "auto") -> torch.device:
    """'auto' = CUDA when present, else CPU; anything else is taken as a torch device name."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(name)


def autocast_for(device: torch.device | str, enabled: bool = True):
    """bf16 autocast for the linear layers where it pays (see bf16_is_fast), else a no-op."""
    device = torch.device(device)
    if not (enabled and bf16_is_fast(device)):
        return nullcontext()
    return torch.autocast(device.type, dtype=torch.bfloat16)
