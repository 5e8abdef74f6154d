"""Statistics shared by the benchmarks and probes."""

from __future__ import annotations

import math


def pct(values, q: float) -> float:
    """The q-quantile of `values` (nearest rank, no interpolation); nan when there are none."""
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


def yes_no_summary(results, truth, when: tuple[str, str] = ("yes", "no")) -> dict:
    """One yes/no question per result (engine.decide with return_distributions) against `truth`:
    the accuracy and the mean P(yes) when the answer is yes and when it is no (None where a group
    is empty), keyed `p_yes_when_<when[0]>` / `p_yes_when_<when[1]>`."""
    p_yes = [r.answers[0].distribution[0] for r in results]
    right = [(r.answers[0].answer == "yes") == t for r, t in zip(results, truth)]

    def mean(group):
        return round(sum(group) / len(group), 3) if group else None
    return {"accuracy": mean(right), f"p_yes_when_{when[0]}": mean([p for p, t in zip(p_yes, truth) if t]),
            f"p_yes_when_{when[1]}": mean([p for p, t in zip(p_yes, truth) if not t])}


def sign_test(base: list[bool], other: list[bool]) -> dict:
    """Answers `other` turned right and wrong against `base` (the same questions, right or not),
    and the two-sided sign test's p over them."""
    flips = [(a, b) for a, b in zip(base, other, strict=True) if a != b]
    gained, lost = sum(b for _, b in flips), sum(a for a, _ in flips)
    n, k = gained + lost, min(gained, lost)
    p = min(1.0, 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n) if n else 1.0
    return {"turned_right": gained, "turned_wrong": lost, "p": round(p, 4)}
