"""Confidence calibration: temperature scaling fitted on held-out sets, and ECE.

Temperature is fitted on the validation split (never on test) by minimising the
negative log-likelihood of the true answers under softmax(log p / T); where the checkpoint
has an option reader (engine/reader.py), its weight is fitted first, on the same sets.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F


def _log_probs(distributions: list[list[float]]) -> torch.Tensor:
    """Per item probabilities (ragged) -> (N, width) log-probabilities, -inf past each item's own."""
    width = max(len(d) for d in distributions)
    logp = torch.full((len(distributions), width), float("-inf"))
    for i, d in enumerate(distributions):
        logp[i, : len(d)] = torch.tensor(d, dtype=torch.float64).clamp_min(1e-12).log().float()
    return logp


def _golden(f, lo: float, hi: float, steps: int = 60) -> float:
    """The x in [lo, hi] minimising a unimodal f (golden-section search)."""
    g = (math.sqrt(5) - 1) / 2
    a, b = hi - g * (hi - lo), lo + g * (hi - lo)
    fa, fb = f(a), f(b)
    for _ in range(steps):
        if fa < fb:
            hi, b, fb = b, a, fa
            a = hi - g * (hi - lo)
            fa = f(a)
        else:
            lo, a, fa = a, b, fb
            b = lo + g * (hi - lo)
            fb = f(b)
    return (lo + hi) / 2


def _best_log_t(logits: torch.Tensor, y: torch.Tensor) -> float:
    return _golden(lambda log_t: float(F.cross_entropy(logits / math.exp(log_t), y)), math.log(0.05), math.log(20.0))


def fit_temperature(distributions: list[list[float]], labels: list[int]) -> float:
    """distributions: per item, probabilities over its own answers at T = 1; labels: the true
    index. Returns the T in [0.05, 20] minimising NLL (golden-section search over log T)."""
    if not distributions:
        raise ValueError("fit_temperature needs at least one item")
    return round(math.exp(_best_log_t(_log_probs(distributions), torch.tensor(labels))), 4)


def fit_reader_weight(distributions: list[list[float]], scores: list[list[float]], labels: list[int],
                      most: float = 50.0, step: float = 0.25) -> float:
    """The option reader's weight (engine/reader.py): categorical items' probabilities from the
    model alone at T = 1, the reader's score of each option, the true index. Returns the w of
    0, step, ..., most under which argmax(log p + w * score) is right most often (the smallest
    such w). Accuracy, not likelihood: the model's own confidence is what the temperature, fitted
    after, calibrates; the weight decides which answers come out."""
    if not distributions:
        raise ValueError("fit_reader_weight needs at least one categorical item")
    logp, y = _log_probs(distributions), torch.tensor(labels)
    s = torch.zeros_like(logp)
    for i, row in enumerate(scores):
        s[i, : len(row)] = torch.tensor(row)
    grid = torch.arange(0.0, most + step / 2, step)
    right = ((logp[None] + grid[:, None, None] * s[None]).argmax(-1) == y).sum(-1)  # (W,)
    return round(float(grid[int(right.argmax())]), 3)  # argmax: the first of the best


def rescale(distribution: list[float], temperature: float) -> list[float]:
    """A T = 1 distribution at another temperature."""
    logp = torch.tensor(distribution, dtype=torch.float64).clamp_min(1e-12).log()
    return torch.softmax(logp / temperature, 0).tolist()


def expected_calibration_error(confidence: list[float], correct: list[bool], bins: int = 15) -> float:
    """Standard ECE: bin by confidence, weight |accuracy - mean confidence| by bin share."""
    if not confidence:
        return 0.0
    total, ece = len(confidence), 0.0
    for b in range(bins):
        lo, hi = b / bins, (b + 1) / bins
        idx = [i for i, c in enumerate(confidence) if (lo < c <= hi) or (b == 0 and c == 0)]
        if idx:
            acc = sum(correct[i] for i in idx) / len(idx)
            conf = sum(confidence[i] for i in idx) / len(idx)
            ece += len(idx) / total * abs(acc - conf)
    return ece
