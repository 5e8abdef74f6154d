"""Where the model runs and in which precision: the device ('auto' = CUDA when present) and
whether bf16 pays on it (CUDA; CPUs with AMX or AVX512-BF16), as an autocast context."""

from __future__ import annotations

import functools
from contextlib import nullcontext
from typing import Literal

import torch
import torch.nn.functional as F


def bf16_is_fast(device: torch.device | str) -> bool:
    """True on CUDA and on CPUs with AMX or AVX512-BF16, where bf16 matmuls run 5-10x faster
    than fp32. Elsewhere (AVX2-only CPUs) bf16 is emulated and ~100x slower: stay in fp32. A
    process held to AVX2 (ATEN_CPU_CAPABILITY=avx2) runs as an AVX2-only CPU would."""
    device = torch.device(device)
    if device.type == "cuda":
        return torch.cuda.is_bf16_supported()
    if device.type == "cpu":
        if torch.backends.cpu.get_cpu_capability() in ("DEFAULT", "NO AVX", "AVX2"):
            return False
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
    """What the engine runs in. 'auto': bf16 where bf16 matmuls are fast (CUDA; CPUs with AMX or
    AVX512-BF16), else fp32. On a CPU the engine casts its weights to bf16 once and runs every
    request's prefix pass and block attention at its own length, so its answers stay the same
    alone and in any batch (engine/core.py); where a row's bf16 matmul sums in an order that
    depends on the rows around it (probed: bf16_rows_are_batch_invariant; an Intel AMX machine
    does for some shapes), it runs each request's block pass alone as well."""
    if precision != "auto":
        return precision
    return "bf16" if bf16_is_fast(device) else "fp32"


def autocast_for(device: torch.device | str, precision: Precision | bool = "auto"):
    """bf16 autocast for the linear layers when `precision` asks for it (see uses_bf16), else a no-op."""
    device = torch.device(device)
    if not uses_bf16(device, precision):
        return nullcontext()
    return torch.autocast(device.type, dtype=torch.bfloat16)


@functools.cache
def bf16_rows_are_batch_invariant() -> bool:
    """Whether this CPU's bf16 matmul gives a row the same bits alone and among others (oneDNN's
    kernels for some shapes sum in an order that depends on the row count). Probed on the shapes
    of decider-small's layers; where it fails, the CPU bf16 engine runs each request's block
    pass alone (engine/core.py, EngineConfig.block_pass)."""
    g = torch.Generator().manual_seed(0)
    for n, k in ((1536, 384), (384, 1536), (384, 384), (1152, 384)):
        w, b = torch.randn(n, k, generator=g).bfloat16(), torch.randn(n, generator=g).bfloat16()
        x = torch.randn(600, k, generator=g).bfloat16()
        alone = [F.linear(x[i:i + 1], w, b)[0] for i in (0, 5, 7)]
        # a request's 8 block slots alone, to be found at every place of a batch of blocks: an
        # Intel AMX machine summed (384 x 1536) rows 8-15 of 48 in another order than alone
        blocks = [F.linear(x[i:i + 8], w, b) for i in range(0, 80, 8)]
        for m in (8, 16, 24, 48, 64, 80, 600):
            many = F.linear(x[:m], w, b)
            if not all(torch.equal(a, many[i]) for a, i in zip(alone, (0, 5, 7))):
                return False
            if not all(torch.equal(block, many[8 * j:8 * j + 8]) for j, block in enumerate(blocks[:m // 8])):
                return False
    return True
