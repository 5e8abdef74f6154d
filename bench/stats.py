"""Statistics shared by the benchmarks and probes."""

from __future__ import annotations


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
