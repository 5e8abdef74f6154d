"""What every corpus-v2 family shares: phrasebooks with a held-out-template split, a small
logic program with forward chaining (closed world), and a builder that turns a world into
a `DecisionSet`.

A family module (readings, contracts, reports, quantified) exposes

    generate(rng: random.Random, style: Style, n_questions: int, max_links: int) -> DecisionSet

and nothing else is required of it. `Style` says which templates and which lexicon half a
set may use:
- templates: every pattern is a tuple of phrasings; one in five (indices 4, 9, 14, ...) is
  held out. Sets of the `heldout` split use only held-out phrasings where a pattern has
  them; every other split never uses them. So the held-out split measures phrasing the
  model never saw in training.
- lexicon: names are drawn from the seen half of a list, or from its novel tail (the
  `novel` split), as in corpus v1.

Ground truth comes from `Program.solve()`: boolean atoms hold when stated or derived
(closed world: anything else is false); a categorical variable takes the first case whose
conditions hold, else its stated value, else its default. Generators add definitions in
dependency order (a rule's conditions are settled by what came before), so the program
is stratified by construction and the fixpoint is unique.

This module knows nothing of tokens or tensors.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Hashable, Iterable, Literal, Sequence

from decider.engine.request import Question
from decider.engine.training.corpus import DecisionSet

HELD_OUT_EVERY = 5  # one phrasing in five never appears in training


@dataclass(frozen=True)
class Style:
    """How a set may be phrased: `heldout` picks held-out templates only, `novel` draws
    names from the held-out tail of each lexicon list, `more` (training only) also draws the
    further phrasings a family registered with `add_phrasings`."""

    heldout: bool = False
    novel: bool = False
    more: bool = False

    @staticmethod
    def for_split(split: str) -> "Style":
        return Style(heldout=split == "heldout", novel=split == "novel")


def is_held_out(index: int) -> bool:
    return index % HELD_OUT_EVERY == HELD_OUT_EVERY - 1


def seen_templates(templates: Sequence[str]) -> list[str]:
    return [t for i, t in enumerate(templates) if not is_held_out(i)]


def held_out_templates(templates: Sequence[str]) -> list[str]:
    return [t for i, t in enumerate(templates) if is_held_out(i)]


# Further phrasings of a pattern, drawn by training sets only (`Style.more`): keyed by the
# pattern's own phrasings, so that every split keeps drawing exactly what it drew before.
_MORE: dict[tuple[str, ...], tuple[str, ...]] = {}


def add_phrasings(patterns: dict[str, Sequence[str]], more: dict[str, Sequence[str]]) -> None:
    """Register `more[key]`, further phrasings of `patterns[key]`, for `Style.more`. Each says
    what the pattern's phrasings say with the same fields; none may repeat one of them (a
    held-out phrasing in training would void the held-out split)."""
    for key, extra in more.items():
        if key not in patterns:
            raise KeyError(f"no pattern {key!r} to add phrasings to")
        own = tuple(patterns[key])
        clash = set(extra) & set(own)
        if clash:
            raise ValueError(f"pattern {key!r} already has the phrasings {sorted(clash)}")
        _MORE[own] = _MORE.get(own, ()) + tuple(extra)


def more_phrasings(templates: Sequence[str]) -> tuple[str, ...]:
    return _MORE.get(tuple(templates), ())


def pick(rng: random.Random, templates: Sequence[str], style: Style) -> str:
    """One phrasing of a pattern for this style (held-out ones only in the heldout split,
    falling back to the seen ones when a pattern has fewer than five phrasings; with
    `style.more`, the seen ones and the registered further ones)."""
    held = held_out_templates(templates)
    pool = held if style.heldout and held else seen_templates(templates)
    if style.more:
        pool += more_phrasings(templates)
    return rng.choice(pool)


def names(rng: random.Random, pool: Sequence[str], style: Style, novel_share: float = 0.25) -> str:
    """A name from the seen head of `pool` or, in the novel split, from its tail (the last
    `novel_share` of the list)."""
    cut = max(1, int(len(pool) * (1 - novel_share)))
    part = pool[cut:] if style.novel and cut < len(pool) else pool[:cut]
    return rng.choice(part)


# how a question over a group of two to four alike things (readings.World.block_group,
# reports._fleet) counts them, and says none or more than one of them
COUNTS = (("0", "1", "2", "3", "4"), ("none", "one", "two", "three", "four"))
NONE_OR_MORE = (("none", "more than one"), ("none of them", "two or more"), ("none", "several"))


def listed(items: list[str]) -> str:
    """["a", "b", "c"] -> "a, b and c"."""
    return f"{', '.join(items[:-1])} and {items[-1]}" if len(items) > 1 else items[0]


def none_or_more(rng: random.Random, n: int) -> tuple[str, str]:
    """The words a "which of them" question over n things gives for none and for more than one."""
    return ("neither", "both") if n == 2 else rng.choice(NONE_OR_MORE)


def cap(text: str) -> str:
    return text[:1].upper() + text[1:]


# ----------------------------------------------------------------------------- logic
Value = bool | str
Lit = tuple[Hashable, Value]  # (atom, True/False) or (variable, "value")


@dataclass
class Rule:
    conditions: list[Lit]
    conclusion: Lit
    sentence: int | None


@dataclass
class Cases:
    """`var` takes the value of the first case whose conditions all hold, else `otherwise`
    (None: its stated value or default). One sentence or several may state it."""

    var: Hashable
    cases: list[tuple[list[Lit], str, int | None]]
    otherwise: str | None = None
    sentence: int | None = None


@dataclass
class Solved:
    value: Value
    support: int | None  # the sentence that settles it (a fact or the rule that fired); None = default
    depth: int           # rule steps from stated facts (0 = stated or default)


@dataclass
class Program:
    """Boolean atoms and categorical variables, facts, defaults, rules and case lists."""

    facts: dict[Hashable, tuple[bool, int | None]] = field(default_factory=dict)
    values: dict[Hashable, tuple[str, int | None]] = field(default_factory=dict)
    defaults: dict[Hashable, tuple[str, int | None]] = field(default_factory=dict)
    definitions: list[Rule | Cases] = field(default_factory=list)
    domains: dict[Hashable, tuple[str, ...]] = field(default_factory=dict)

    def fact(self, atom: Hashable, holds: bool = True, sentence: int | None = None) -> None:
        self.facts[atom] = (holds, sentence)

    def value(self, var: Hashable, value: str, sentence: int | None = None) -> None:
        self.values[var] = (value, sentence)

    def default(self, var: Hashable, value: str, sentence: int | None = None) -> None:
        self.defaults[var] = (value, sentence)

    def rule(self, conditions: list[Lit], conclusion: Lit, sentence: int | None = None) -> None:
        self.definitions.append(Rule(list(conditions), conclusion, sentence))

    def cases(self, var: Hashable, cases: list[tuple[list[Lit], str, int | None]], otherwise: str | None = None,
              sentence: int | None = None) -> None:
        self.definitions.append(Cases(var, list(cases), otherwise, sentence))

    def solve(self) -> dict[Hashable, Solved]:
        """Forward chaining to the fixpoint, closed world. A rule concludes that an atom holds
        or that a variable has a value (overriding its default, never a stated value nor an
        earlier conclusion); a case list sets its variable from the first case that holds."""
        out: dict[Hashable, Solved] = {}
        for atom, (holds, s) in self.facts.items():
            out[atom] = Solved(holds, s if holds else None, 0)
        for var, (v, s) in self.values.items():
            out[var] = Solved(v, s, 0)
        defaults = {var: Solved(v, None, 0) for var, (v, _) in self.defaults.items()}

        def get(key: Hashable) -> Solved | None:
            return out.get(key) or defaults.get(key)

        def holds(lit: Lit) -> bool:
            key, want = lit
            got = get(key)
            if isinstance(want, bool):
                return (got is not None and got.value is True) == want
            return got is not None and got.value == want

        def depth(lits: list[Lit]) -> int:
            return 1 + max((get(k).depth for k, _ in lits if get(k) is not None), default=0)

        changed = True
        while changed:
            changed = False
            for d in self.definitions:
                if isinstance(d, Rule):
                    key, want = d.conclusion
                    if want is False:
                        raise ValueError(f"rule for {key!r}: a rule concludes that an atom holds; "
                                         "phrase the negative as its own atom")
                    cur = out.get(key)
                    free = cur is None or (cur.value is False and cur.depth == 0 and key not in self.facts)
                    if free and all(holds(c) for c in d.conditions):
                        out[key] = Solved(want, d.sentence, depth(d.conditions))
                        changed = True
                elif d.var not in self.values:
                    new = None
                    for conds, v, s in d.cases:
                        if all(holds(c) for c in conds):
                            new = Solved(v, s, depth(conds))
                            break
                    if new is None and d.otherwise is not None:
                        new = Solved(d.otherwise, d.sentence, 0)
                    cur = out.get(d.var)
                    if new is not None and (cur is None or (cur.value, cur.depth) != (new.value, new.depth)):
                        out[d.var] = new
                        changed = True
        for var, sol in defaults.items():
            out.setdefault(var, sol)
        return out

    def truth(self, solved: dict[Hashable, Solved], atom: Hashable) -> Solved:
        """A boolean atom's truth, closed world (never mentioned = false, depth 0)."""
        return solved.get(atom) or Solved(False, None, 0)


# ----------------------------------------------------------------------------- builder
def _tidy(text: str) -> str:
    """Capitalised, and one full stop where a name that ends in one ends the sentence ("...
    guarantees Triton Inc.", not "Inc..")."""
    text = cap(text.strip())
    return text[:-1] if text.endswith("..") else text


@dataclass
class SetBuilder:
    """Sentences of a context and the questions asked about it, with their true answers."""

    domain: str
    sentences: list[str] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)
    answers: list[int] = field(default_factory=list)
    depth: list[int] = field(default_factory=list)
    support: list[int | None] = field(default_factory=list)
    chained: bool = False
    number_labels: list[tuple[int, Decimal, int]] = field(default_factory=list)  # DecisionSet.number_labels
    question_labels: list[tuple[int, Decimal, int]] = field(default_factory=list)  # DecisionSet.question_labels

    def say(self, text: str) -> int:
        """Add a sentence; returns its index (the support bookkeeping uses it)."""
        self.sentences.append(_tidy(text))
        return len(self.sentences) - 1

    def ask_boolean(self, text: str, answer: bool, depth: int = 0, support: int | None = None) -> None:
        self._ask(Question(f"q{len(self.questions) + 1}", _tidy(text), "boolean"), 0 if answer else 1, depth, support)

    def ask_choice(self, text: str, options: Sequence[str], answer: str, depth: int = 0,
                   support: int | None = None) -> None:
        options = tuple(dict.fromkeys(options))
        if answer not in options:
            raise ValueError(f"answer {answer!r} is not among the options {options}")
        self._ask(Question(f"q{len(self.questions) + 1}", _tidy(text), "categorical", options),
                  options.index(answer), depth, support)

    def _ask(self, q: Question, answer: int, depth: int, support: int | None) -> None:
        self.questions.append(q)
        self.answers.append(answer)
        self.depth.append(depth)
        self.support.append(support)

    def build(self, rng: random.Random, shuffle: Literal["none", "all", "tail"] = "all", keep: int = 0) -> DecisionSet:
        """The set, with its sentences shuffled ('all'), kept in order ('none', e.g. a log),
        or shuffled after the first `keep` ('tail'); questions are shuffled and renumbered."""
        n = len(self.sentences)
        if shuffle == "all":
            order = rng.sample(range(n), n)
        elif shuffle == "tail":
            order = list(range(keep)) + rng.sample(range(keep, n), n - keep)
        else:
            order = list(range(n))
        where = {old: new for new, old in enumerate(order)}
        asked = rng.sample(range(len(self.questions)), len(self.questions))
        questions = [Question(f"q{i + 1}", self.questions[j].text, self.questions[j].kind, self.questions[j].options)
                     for i, j in enumerate(asked)]
        return DecisionSet(
            sentences=[self.sentences[i] for i in order], questions=questions,
            answers=[self.answers[j] for j in asked], depth=[self.depth[j] for j in asked],
            support=[None if self.support[j] is None else where[self.support[j]] for j in asked],
            chained=self.chained, domain=self.domain,
            number_labels=[(where[i], value, label) for i, value, label in self.number_labels],
            question_labels=[(asked.index(j), value, label) for j, value, label in self.question_labels])


# ----------------------------------------------------------------------------- number labels
def compared_with(reading, value) -> int:
    """A number label (DecisionSet.number_labels): 0 when the reading is below `value`, 1 at
    it, 2 above it."""
    return (reading > value) - (reading < value) + 1


def written_numbers(text: str) -> set[Decimal]:
    """The values of the numbers `text` writes (engine.numbers.number_spans)."""
    from decider.engine.numbers import number_spans

    return {v for _, _, v in number_spans(text)}


def written_labels(said: dict[tuple[int, Decimal], set[int]], sentences: Sequence[str]
                   ) -> list[tuple[int, Decimal, int]]:
    """SetBuilder.number_labels from {(sentence, value): labels}: the values each sentence
    writes, with one label. A value a sentence holds twice with two labels is left out (which
    one is which cannot be told by value), and so is one its words do not write (a share of a
    rating, "anyone in the zone")."""
    written = {s: written_numbers(sentences[s]) for s, _ in said}
    return [(s, v, next(iter(labels))) for (s, v), labels in sorted(said.items())
            if len(labels) == 1 and v in written[s]]


# ----------------------------------------------------------------------------- consistency links
@dataclass(frozen=True)
class Asked:
    """How a question of a built set reads a program key. `text`: the question's text. A yes/no
    question asks whether an atom holds (`equals` None) or whether a variable has the value
    `equals`, in the negative when `negated`. A categorical question gives the variable's
    value (`equals` None), or stands for the atom "the variable is `equals`"."""

    text: str
    equals: Value | None = None
    negated: bool = False


def answer_links(ds: DecisionSet, rules: Iterable[tuple[Sequence[Lit], Lit]], asked: dict[Hashable, Asked]) -> list:
    """The rules (conditions, conclusion) whose every literal is an answer of `ds`, as
    (question, answer index) literals: answers that meet every condition but not the conclusion
    contradict the context. A rule that the true answers break (a stated value or an earlier
    conclusion overrides it) is left out. Pass a case list's first case only: later cases hold
    only when the earlier ones do not."""
    where = {q.text: i for i, q in enumerate(ds.questions)}

    def literal(lit: Lit) -> tuple[int, int] | None:
        key, want = lit
        a = asked.get(key)
        if a is None or a.text not in where:
            return None
        i = where[a.text]
        q = ds.questions[i]
        if q.kind == "boolean":
            if a.equals is None:
                yes = want if isinstance(want, bool) else None
            else:
                yes = True if want == a.equals else None
            return None if yes is None else (i, 0 if yes is not a.negated else 1)
        if a.equals is None:
            return (i, q.options.index(want)) if want in q.options else None
        return (i, q.options.index(a.equals)) if want is True and a.equals in q.options else None

    links = []
    for conditions, conclusion in rules:
        got, head = [literal(c) for c in conditions], literal(conclusion)
        if head is None or not got or any(g is None for g in got):
            continue
        if all(ds.answers[i] == a for i, a in got) and ds.answers[head[0]] != head[1]:
            continue  # overridden in this context
        if (tuple(got), head) not in links:
            links.append((tuple(got), head))
    return links


def program_rules(definitions: Iterable[Rule | Cases]) -> list[tuple[list[Lit], Lit]]:
    """(conditions, conclusion) of a Program's rules and of each case list's first case."""
    out = []
    for d in definitions:
        if isinstance(d, Rule):
            out.append((d.conditions, d.conclusion))
        elif d.cases:
            out.append((d.cases[0][0], (d.var, d.cases[0][1])))
    return out
