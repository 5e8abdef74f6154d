"""Numbers in a prefix, by rank: what lets a small encoder compare a reading with its set point.

WordPiece cuts "131.5" into "131", ".", "5" and "4,850" into "4", ",", "850": to tell which of
two numbers is larger, a model would have to learn arithmetic on pieces. Instead every number
of a request (context, questions and options alike) gets its dense rank among that request's
numbers (1 = smallest; equal values share a rank), and each word piece of a number carries
that rank into the model (an ordered code of it, `engine.model.rank_features`). "Is TT-101 above its
trip setting?" then asks whether one rank is above another, whatever the units and digits.

A percentage of a number written right after it ("110% of rated (40 A)") is ranked as that share
(44). A number: digits with an optional decimal part and thousands commas ("4,850", "0.80", "92" in
"92%"), a sign when it starts a word ("-5 °C"), or a clock time ("06:14", ranked as minutes of
the day). Digits that are part of a name are not numbers: tags ("FT-204", "P-7B"), versions
and words with digits ("v2", "3rd"). Ranks above `cap` share the top rank.
This module knows nothing of torch.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from decimal import Decimal

NUMBER = re.compile(
    r"(?<![\w.\-/])"                        # not inside a name, tag, decimal or fraction
    r"(?:(?P<h>[01]?\d|2[0-3]):(?P<m>[0-5]\d)"  # 06:14
    r"|(?P<num>[-\u2212]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?))"
    r"(?![\w\-]|[.,]\d)"                    # not followed by letters ("3rd", "7B") or more digits
)


# "110% of rated (40 A)", "120 percent of its 505 A rating": a share of a number written right
# after it (at most three words between) is a limit of that share's value (44 A)
PERCENT_OF = re.compile(r"\s*(?:%|percent|per cent|pct)\s+of\s+(?:[A-Za-z]+\s+){0,3}\(?", re.IGNORECASE)


def number_spans(text: str) -> list[tuple[int, int, Decimal]]:
    """(start, end, value) of every number in `text`, in order. A percentage of a number that
    follows it ("110% of rated (40 A)") takes the value of that share (44): it is the limit the
    text means, and ranks then compare a reading with it directly."""
    out = []
    for m in NUMBER.finditer(text):
        if m.group("h") is not None:
            value = Decimal(int(m.group("h")) * 60 + int(m.group("m")))
        else:
            value = Decimal(m.group("num").replace(",", "").replace("\u2212", "-"))
        out.append((m.start(), m.end(), value))
    for i in range(len(out) - 1):
        (s, e, share), (base_start, _, base) = out[i], out[i + 1]
        of = PERCENT_OF.match(text, e)
        if of and of.end() == base_start:
            out[i] = (s, e, share * base / 100)
    return out


def dense_ranks(values: Sequence[Decimal], cap: int) -> list[int]:
    """1 for the smallest value, +1 per larger distinct value, at most `cap`."""
    order = {v: i + 1 for i, v in enumerate(sorted(set(values)))}
    return [min(order[v], cap) for v in values]


def token_ranks(texts: Sequence[str], offsets: Sequence[Sequence[tuple[int, int]]], cap: int) -> list[list[int]]:
    """Per text, per token (its character offsets): the rank of the number the token is part of
    among all numbers of all `texts` (one request), or 0."""
    spans = [number_spans(t) for t in texts]
    ranks = iter(dense_ranks([v for ss in spans for _, _, v in ss], cap))
    ranked = [[(s, e, next(ranks)) for s, e, _ in ss] for ss in spans]
    out = []
    for offs, rs in zip(offsets, ranked):
        row = []
        for s, e in offs:
            row.append(next((r for ns, ne, r in rs if s < ne and e > ns), 0))
        out.append(row)
    return out
