"""Names in a prefix, by sentence: what lets a small encoder bind a number to its instrument.

"TT-421 reads 130.2 °C." and, four sentences later among other instruments, "The trip setting
for TT-421 is 128 °C.": to compare the two numbers a model must first find which sentences speak
of the same thing. Learned attention does that slowly and, among several look-alike tags, not
at all (bench/number_probe.py --distractors 3). So every prefix token carries the set of names
its sentence mentions, as a bit mask, and the model (`engine.model.ModelConfig.name_links`)
tells every number how it compares with the numbers of the sentences that share a name with
its own, and lets a question's tokens attend, with a learned bias, to the sentences that share
their names: from "Is TT-421 above its trip?" to TT-421's reading and set point in one hop.

A name: a word with letters and digits (tags "FT-204", "P-7B", "HX-3"; not ordinals such as
"3rd"), or a word written with a capital letter somewhere other than at the start of a sentence
("Bob", "Northwind", "Supplier", "MANUAL"), minus a few capitalised function words. Once a word
is a name, every occurrence of it counts, in any case. A sentence ends at ".", "!", "?" or ";"
followed by a space, or at a line break; questions and options are one sentence each.
Names share `BITS` bits (by order of first mention; more names than that share bits).

With `nouns` (a model's `noun_names`), a word that follows "the" in two sentences or more of
a request is a name as well: "The bear chases the dog. The dog is red." and "Is the dog red?"
link through "dog", as tags and proper names link, so that text about common-noun entities
("the compressor", "the cat") binds what it says to whom.
This module knows nothing of torch.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

BITS = 62  # a mask fits an int64 with room for its sign

WORD = re.compile(r"[A-Za-z0-9]+(?:[-_/][A-Za-z0-9]+)*")
SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|\n+")
ORDINAL = re.compile(r"\d+(?:st|nd|rd|th)", re.IGNORECASE)
# capitalised words that are not names wherever they stand (headings, "I", units)
NOT_NAMES = frozenset("""
    a an the i if and or but not no yes true false is are was were be it its this that these those
    all any each every some none when where while unless except otherwise then than so as at by for
    from in into of on onto to with within without under over above below after before during until
    note status notes
""".split())  # noqa: SIM905


# words after "the" that name no entity ("the same", "the first", "the following")
NOT_NOUNS = NOT_NAMES | frozenset(("same other others first last next previous following end rest whole case way "  # noqa: SIM905
                                   "time only most least more less").split())
THE_WORD = re.compile(r"\bthe\s+([A-Za-z]+(?:[-_/][A-Za-z0-9]+)*)", re.IGNORECASE)


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of every sentence of `text`, covering it from 0 to len(text)."""
    spans, start = [], 0
    for m in SENTENCE_END.finditer(text):
        spans.append((start, m.start()))
        start = m.end()
    spans.append((start, len(text)))
    return spans


def _is_tag(word: str) -> bool:
    return any(c.isdigit() for c in word) and any(c.isalpha() for c in word) and not ORDINAL.fullmatch(word)


def names_of(texts: Sequence[str], nouns: bool = False) -> set[str]:
    """The names (lower case) that `texts` mention, as the module docstring defines them."""
    names = set()
    after_the: dict[str, int] = {}  # noun -> sentences it follows "the" in
    for text in texts:
        for s, e in sentence_spans(text):
            for k, m in enumerate(WORD.finditer(text, s, e)):
                w = m.group()
                if _is_tag(w) or k > 0 and w[0].isupper() and len(w) > 1 and w.lower() not in NOT_NAMES:
                    names.add(w.lower())
            if nouns:
                for w in {m.group(1).lower() for m in THE_WORD.finditer(text, s, e)}:
                    after_the[w] = after_the.get(w, 0) + 1
    names |= {w for w, n in after_the.items() if n >= 2 and len(w) > 2 and w not in NOT_NOUNS}
    return names


def token_links(texts: Sequence[str], offsets: Sequence[Sequence[tuple[int, int]]],
                nouns: bool = False) -> list[list[int]]:
    """Per text, per token (its character offsets): the bit mask of the names its sentence
    mentions, over all `texts` (one request), or 0. `nouns`: see the module docstring."""
    names = names_of(texts, nouns)
    bit: dict[str, int] = {}
    out = []
    for text, offs in zip(texts, offsets):
        spans = []
        for s, e in sentence_spans(text):
            mask = 0
            for m in WORD.finditer(text, s, e):
                w = m.group().lower()
                if w in names:
                    mask |= 1 << bit.setdefault(w, len(bit) % BITS)
            spans.append((s, e, mask))
        row, i = [], 0
        for s, _ in offs:
            while i + 1 < len(spans) and s >= spans[i + 1][0]:
                i += 1
            row.append(spans[i][2])
        out.append(row)
    return out
