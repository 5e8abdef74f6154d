"""Confidence calibration: temperature scaling fitted on held-out sets, and ECE.

Temperature is fitted on the validation split (never on test) by minimising the
negative log-likelihood of the true answers under softmax(log p / T).
"""

from __future__ import annotations

import math

import torch


def fit_temperature(distributions: list[list[float]], labels: list[int]) -> float:
    """distributions: per item, probabilities over its own answers at T = 1; labels: the true
    index. Returns the T in [0.05, 20] minimising NLL (golden-section search over log T)."""
    if not distributions:
        raise ValueError("fit_temperature needs at least one item")
    width = max(len(d) for d in distributions)
    logp = torch.full((len(distributions), width), float("-inf"))
    for i, d in enumerate(distributions):
        logp[i, : len(d)] = torch.tensor(d, dtype=torch.float64).clamp_min(1e-12).log().float()
    y = torch.tensor(labels)

    def nll(log_t: float) -> float:
        return float(torch.nn.functional.cross_entropy(logp / math.exp(log_t), y))

    lo, hi = math.log(0.05), math.log(20.0)
    g = (math.sqrt(5) - 1) / 2
    a, b = hi - g * (hi - lo), lo + g * (hi - lo)
    fa, fb = nll(a), nll(b)
    for _ in range(60):
        if fa < fb:
            hi, b, fb = b, a, fa
            a = hi - g * (hi - lo)
            fa = nll(a)
        else:
            lo, a, fa = a, b, fb
            b = lo + g * (hi - lo)
            fb = nll(b)
    return round(math.exp((lo + hi) / 2), 4)


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
