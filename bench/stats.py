"""Latency statistics shared by the benchmarks."""

from __future__ import annotations


def pct(values, q: float) -> float:
    """The q-quantile of `values` (nearest rank, no interpolation); nan when there are none."""
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")
