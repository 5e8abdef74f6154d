"""Where the model runs and in which precision: the device ('auto' = CUDA when present) and
whether bf16 pays on it (CUDA; CPUs with AMX or AVX512-BF16), as an autocast context."""

from __future__ import annotations

from contextlib import nullcontext
from typing import Literal

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


Precision = Literal["auto", "fp32", "bf16"]
PRECISIONS = ("auto", "fp32", "bf16")


def uses_bf16(device: torch.device | str, precision: Precision | bool = "auto") -> bool:
    """Whether `precision` means bf16 matmuls on `device`: 'auto' (or True) where bf16 is fast,
    'bf16' always (slow where it is emulated), 'fp32' (or False) never."""
    if isinstance(precision, bool):
        precision = "auto" if precision else "fp32"
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {PRECISIONS}, got {precision!r}")
    return precision == "bf16" or (precision == "auto" and bf16_is_fast(device))


def serving_precision(device: torch.device | str, precision: Precision = "auto") -> Precision:
    """What the engine runs in: 'auto' is bf16 on CUDA and fp32 on a CPU. On a CPU, bf16
    autocast rounds every matmul output to bf16, so a request's answers would move with what
    else shares its batch (a bf16 kernel's accumulation order depends on the batch shape, and
    the rounding makes that visible: confidences moved by up to 0.08); fp32 keeps a request's
    answers the same alone and in any batch, and at batch 1 it is no slower than autocast."""
    if precision == "auto":
        return "bf16" if torch.device(device).type == "cuda" and bf16_is_fast(device) else "fp32"
    return precision


def autocast_for(device: torch.device | str, precision: Precision | bool = "auto"):
    """bf16 autocast for the linear layers when `precision` asks for it (see uses_bf16), else a no-op."""
    device = torch.device(device)
    if not uses_bf16(device, precision):
        return nullcontext()
    return torch.autocast(device.type, dtype=torch.bfloat16)
