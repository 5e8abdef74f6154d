"""Seeded generator of decision sets: facts and rules in plain sentences, 1..8 questions.

Three domains (industrial interlocks, contract review, robot safety) share one small
logic: boolean atoms ("pump 3 is running"), categorical variables with a stated
default ("the mode of line 4 is automatic unless a rule says otherwise"), facts, and
rules `if A [and B] then C`. Ground truth is forward chaining, closed world: an atom
that is neither stated nor derived is false; a categorical variable that no fired rule
sets keeps its default. Negation appears only on base atoms (never concluded by a
rule), so the program is stratified and the fixpoint is unique.

Chained sets ask about every link of a 2..5-rule chain, so that one answer follows
from another answer plus a rule; joint decoding has something to win there.

This module knows nothing of tokens or tensors. See docs/decision-language.md for the
sentence patterns, which are the default model's contract with its users.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from decimal import Decimal
from decider.engine.request import Question

@dataclass
class DecisionSet:
    """One context, its questions and the true answer (an index into `choices`) of each.

    `support[i]` is the sentence that establishes answer i (a stated fact or the rule
    that concluded it), None when the answer holds by default (closed world). Training
    may drop the support of a revealed answer so that its truth lives only in its slot.
    """

    sentences: list[str]
    questions: list[Question]
    answers: list[int]
    depth: list[int]  # rule-chain depth of each question's variable (0 = base)
    support: list[int | None]
    chained: bool  # some question's answer follows from another question's answer
    domain: str = ""
    # rules of the context between asked questions: ((question, answer index) conditions,
    # (question, answer index) conclusion); answers that meet every condition but not the
    # conclusion contradict the context (the eval's consistency figure)
    links: list[tuple[tuple[tuple[int, int], ...], tuple[int, int]]] = field(default_factory=list)
    # numbers of the context whose meaning the generator knows: (sentence, value, how the reading
    # of the instrument the number is about compares with it: 0 below, 1 equal, 2 above); a
    # reading is its own instrument's (1). Training reads them (TrainConfig.number_targets)
    number_labels: list[tuple[int, Decimal, int]] = field(default_factory=list)
    # the same of the numbers a question writes: (question, value, label)
    question_labels: list[tuple[int, Decimal, int]] = field(default_factory=list)

    @property
    def context(self) -> str:
        return " ".join(self.sentences)

    def context_without(self, dropped: set[int]) -> str:
        return " ".join(s for i, s in enumerate(self.sentences) if i not in dropped)


# ----------------------------------------------------------------------------- lexicon
# Each list is split: the first part is used by train/validation/test, the held-out
# tail only by the novel-lexicon split (entity nouns, states and attributes alike).

@dataclass(frozen=True)
class Lexicon:
    entities: tuple[str, ...]
    states: tuple[str, ...]
    attributes: tuple[tuple[str, tuple[str, ...]], ...]  # (name, values)


DOMAINS: dict[str, tuple[Lexicon, Lexicon]] = {
    "industrial": (
        Lexicon(
            entities=("pump", "valve", "compressor", "boiler", "conveyor", "mixer", "fan",
                      "heater", "tank", "breaker", "chiller", "furnace", "press", "line"),
            states=("running", "open", "pressurized", "overheating", "locked", "energized",
                    "tripped", "isolated", "enabled", "flooded", "idle", "loaded", "purged"),
            attributes=(("mode", ("manual", "automatic", "maintenance", "standby", "testing", "shutdown")),
                        ("alarm level", ("none", "low", "high", "critical")),
                        ("setpoint", ("minimum", "reduced", "nominal", "boosted", "maximum"))),
        ),
        Lexicon(
            entities=("turbine", "generator", "separator", "reactor", "kiln", "scrubber"),
            states=("vented", "armed", "sealed", "throttled", "grounded"),
            attributes=(("duty cycle", ("continuous", "intermittent", "pulsed", "dormant")),),
        ),
    ),
    "contract": (
        Lexicon(
            entities=("clause", "section", "schedule", "annex", "article", "exhibit",
                      "appendix", "order", "notice", "licence", "warranty", "lease"),
            states=("capped", "terminable", "exclusive", "assignable", "confidential",
                    "signed", "renewable", "binding", "enforceable", "disputed", "expired",
                    "amended", "void"),
            attributes=(("risk level", ("low", "medium", "high", "critical")),
                        ("review action", ("approve", "negotiate", "escalate", "reject")),
                        ("governing law", ("english", "french", "german", "swiss", "irish", "dutch", "swedish", "italian"))),
        ),
        Lexicon(
            entities=("rider", "addendum", "covenant", "indenture", "charter", "mandate"),
            states=("waived", "novated", "ratified", "rescinded", "escrowed"),
            attributes=(("billing basis", ("hourly", "fixed", "milestone", "retainer")),),
        ),
    ),
    "robot": (
        Lexicon(
            entities=("robot", "zone", "arm", "gripper", "cart", "drone", "door", "lidar",
                      "camera", "belt", "gate", "lift", "dock"),
            states=("occupied", "moving", "clear", "blocked", "engaged", "charging",
                    "stalled", "docked", "calibrated", "obstructed", "active", "halted",
                    "carrying"),
            attributes=(("speed", ("stop", "creep", "slow", "normal", "fast")),
                        ("action", ("halt", "retreat", "wait", "proceed", "reroute")),
                        ("safety mode", ("collaborative", "fenced", "emergency", "teaching", "remote"))),
        ),
        Lexicon(
            entities=("rover", "shuttle", "manipulator", "beacon", "hoist", "sorter"),
            states=("tilted", "shielded", "tethered", "paired", "muted"),
            attributes=(("grip force", ("feather", "light", "firm", "crushing")),),
        ),
    ),
}

SPLIT_OFFSETS = {"train": 0, "validation": 1, "test": 2, "novel": 3, "heldout": 4}

# Corpus v2: the v1 patterns above plus the families of engine/training/families/ (the
# language users write). A mix gives each family's share of the sets.
FAMILIES = ("v1", "readings", "contracts", "reports", "quantified", "rulebase", "timing")  # the last two: training only
FAMILY_KNOBS = {"readings": ("stated", "roles", "role_rules", "drills", "groups"),  # CorpusSpec fields a family's generate takes
                "quantified": ("closed_world",), "rulebase": ("binding", "deep", "aggregate", "hypothetical"), "contracts": ("holders",),
                "reports": ("fleets",)}
V1_ONLY: tuple[tuple[str, float], ...] = (("v1", 1.0),)
V2_MIX: tuple[tuple[str, float], ...] = (("v1", 0.2), ("readings", 0.2), ("contracts", 0.2), ("reports", 0.2),
                                         ("quantified", 0.2))


def mix_entry(entry: str) -> tuple[str, int | None, int | None]:
    """A mix entry -> (family, cap on rule-chain links, cap on questions; None = the stage's).
    "readings" draws the family's sets as the stage says; "readings@0" draws them with chains of
    at most 0 links whatever the stage's `max_links`, so easy sets of a family can stay in the
    mix beside the hard ones; "readings@0:1" draws them with one question each as well: sets
    that ask one thing of a short context, where an answer cannot lean on the others'."""
    family, at, caps = entry.partition("@")
    links, colon, questions = caps.partition(":")
    if family not in FAMILIES or at and not (links.isdigit() and int(links) <= 5) \
            or colon and not (questions.isdigit() and 1 <= int(questions) <= 8):
        raise ValueError(f"unknown corpus mix entry {entry!r}: use a family of {list(FAMILIES)}, optionally with "
                         "'@N' (N = 0..5, the most rule-chain links of its sets) and then ':Q' (Q = 1..8, the "
                         "most questions of its sets), e.g. 'readings@0' or 'readings@0:1'")
    return family, int(links) if at else None, int(questions) if colon else None

# ----------------------------------------------------------------------------- templates
FACT_TRUE = ("{E} is {s}.", "{E} is currently {s}.", "The log shows that {e} is {s}.",
             "It is confirmed that {e} is {s}.")
FACT_FALSE = ("{E} is not {s}.", "{E} is currently not {s}.", "The log shows that {e} is not {s}.")
CAT_FACT = ("The {a} of {e} is {v}.", "The {a} of {e} is set to {v}.", "{E} has {a} {v}.")
CAT_DEFAULT = ("The {a} of {e} is {v} unless a rule says otherwise.",
               "By default, the {a} of {e} is {v}.",
               "Unless stated otherwise, the {a} of {e} is {v}.")
RULE = ("If {A}, then {C}.", "Whenever {A}, {C}.", "{C'} whenever {A}.", "When {A}, {C}.",
        "{C'} if {A}.")
Q_BOOL = ("Is {e} {s}?", "Is it true that {e} is {s}?", "Is {e} currently {s}?")
Q_CAT = ("What is the {a} of {e}?", "Which {a} does {e} have?", "What {a} is {e} in?")


def _cap(text: str) -> str:
    return text[0].upper() + text[1:]


# ----------------------------------------------------------------------------- logic
# A literal is ("b", atom, True/False) for "atom holds"/"atom does not hold", or
# ("c", var, value) for "var has value".

@dataclass
class _World:
    rng: random.Random
    lex: Lexicon
    atoms: list[tuple[str, str]] = field(default_factory=list)          # (entity, state)
    cats: list[tuple[str, str, tuple[str, ...], str]] = field(default_factory=list)  # (entity, attr, values, default)
    stated_true: dict[int, int] = field(default_factory=dict)            # atom -> sentence
    stated_false: dict[int, int] = field(default_factory=dict)
    stated_cat: dict[int, tuple[str, int]] = field(default_factory=dict)  # var -> (value, sentence)
    rules: list[tuple[list[tuple], tuple, int]] = field(default_factory=list)  # (antecedents, consequent, sentence)
    sentences: list[str] = field(default_factory=list)
    used_entities: set[str] = field(default_factory=set)

    # -- variables
    def _entity(self) -> str:
        for _ in range(100):
            name = f"{self.rng.choice(self.lex.entities)} {self.rng.randint(1, 9)}"
            if name not in self.used_entities or self.rng.random() < 0.3:
                self.used_entities.add(name)
                return name
        return name

    def new_atom(self) -> int:
        while True:
            atom = (self._entity(), self.rng.choice(self.lex.states))
            if atom not in self.atoms:
                self.atoms.append(atom)
                return len(self.atoms) - 1

    def new_cat(self) -> int:
        while True:
            attr, values = self.rng.choice(self.lex.attributes)
            ent = self._entity()
            if all((e, a) != (ent, attr) for e, a, _, _ in self.cats):
                self.cats.append((ent, attr, values, self.rng.choice(values)))
                return len(self.cats) - 1

    def concluded(self, lit: tuple) -> bool:
        return any(c[:2] == lit[:2] for _, c, _ in self.rules)

    # -- sentences
    def _say(self, text: str) -> int:
        self.sentences.append(text)
        return len(self.sentences) - 1

    def phrase(self, lit: tuple) -> str:
        if lit[0] == "b":
            e, s = self.atoms[lit[1]]
            return f"{e} is {s}" if lit[2] else f"{e} is not {s}"
        e, a, _, _ = self.cats[lit[1]]
        return f"the {a} of {e} is {lit[2]}"

    def state_atom(self, atom: int, value: bool) -> int:
        e, s = self.atoms[atom]
        idx = self._say(self.rng.choice(FACT_TRUE if value else FACT_FALSE).format(E=_cap(e), e=e, s=s))
        (self.stated_true if value else self.stated_false)[atom] = idx
        return idx

    def state_cat(self, var: int, value: str) -> int:
        e, a, _, _ = self.cats[var]
        idx = self._say(self.rng.choice(CAT_FACT).format(E=_cap(e), e=e, a=a, v=value))
        self.stated_cat[var] = (value, idx)
        return idx

    def state_default(self, var: int) -> None:
        e, a, _, d = self.cats[var]
        self._say(self.rng.choice(CAT_DEFAULT).format(e=e, a=a, v=d))

    def add_rule(self, antecedents: list[tuple], consequent: tuple) -> int:
        a = " and ".join(self.phrase(lit) for lit in antecedents)
        c = self.phrase(consequent)
        text = self.rng.choice(RULE).replace("{C'}", _cap(c)).format(A=a, C=c)
        idx = self._say(_cap(text))
        self.rules.append((antecedents, consequent, idx))
        return idx

    # -- ground truth
    def solve(self):
        """Forward chaining to the fixpoint. Returns (true atoms -> support sentence,
        categorical values -> (value, support or None))."""
        true = dict(self.stated_true)
        cat = {v: (val, idx) for v, (val, idx) in self.stated_cat.items()}
        changed = True
        while changed:
            changed = False
            for ants, cons, idx in self.rules:
                if all(self._holds(lit, true, cat) for lit in ants):
                    if cons[0] == "b" and cons[1] not in true:
                        true[cons[1]] = idx
                        changed = True
                    elif cons[0] == "c" and cons[1] not in cat:
                        cat[cons[1]] = (cons[2], idx)
                        changed = True
        for v, (_, _, _, default) in enumerate(self.cats):
            cat.setdefault(v, (default, None))
        return true, cat

    @staticmethod
    def _holds(lit, true, cat) -> bool:
        if lit[0] == "b":
            return (lit[1] in true) == lit[2]
        return lit[1] in cat and cat[lit[1]][0] == lit[2]

    def depth(self, kind: str, var: int) -> int:
        best = 0
        for ants, cons, _ in self.rules:
            if cons[0] == kind and cons[1] == var:
                best = max(best, 1 + max(self.depth(a[0], a[1]) for a in ants))
        return best


# ----------------------------------------------------------------------------- builders

def _base_literal(w: _World, rng: random.Random, want_true: bool) -> tuple:
    """A base literal (never concluded by a rule) with the requested truth, stated or
    left to the closed world."""
    if rng.random() < 0.7:
        atom = w.new_atom()
        positive = rng.random() < 0.75
        # literal "atom holds" (positive) or "atom does not hold"; its truth is want_true
        atom_true = want_true if positive else not want_true
        if atom_true:
            w.state_atom(atom, True)
        elif rng.random() < 0.5:
            w.state_atom(atom, False)
        return ("b", atom, positive)
    var = w.new_cat()
    _, _, values, _ = w.cats[var]
    value = rng.choice(values)
    w.state_cat(var, value if want_true else rng.choice([v for v in values if v != value]))
    return ("c", var, value)


def _derived_literal(w: _World, rng: random.Random) -> tuple:
    """A fresh variable to be concluded by a rule: an atom, or a categorical variable
    with a stated default and a non-default concluded value."""
    if rng.random() < 0.7:
        return ("b", w.new_atom(), True)
    var = w.new_cat()
    _, _, values, default = w.cats[var]
    w.state_default(var)
    return ("c", var, rng.choice([v for v in values if v != default]))


def _chain(w: _World, rng: random.Random, links: int) -> list[tuple]:
    """node0 -> node1 -> ... -> node_links, each arrow one rule. Returns the nodes."""
    nodes = [_base_literal(w, rng, want_true=rng.random() < 0.6)]
    for _ in range(links):
        ants = [nodes[-1]]
        if rng.random() < 0.2:
            ants.append(_base_literal(w, rng, want_true=rng.random() < 0.75))
            rng.shuffle(ants)
        cons = _derived_literal(w, rng)
        w.add_rule(ants, cons)
        nodes.append(cons)
    return nodes


def _distractor(w: _World, rng: random.Random) -> tuple:
    """Something to ask about (or not) that is not on a chain."""
    r = rng.random()
    if r < 0.45:
        return _base_literal(w, rng, want_true=rng.random() < 0.5)
    if r < 0.55:  # never mentioned: closed world says no
        return ("b", w.new_atom(), True)
    ant = _base_literal(w, rng, want_true=rng.random() < 0.5)
    cons = _derived_literal(w, rng)
    w.add_rule([ant], cons)
    return cons


def _question(w: _World, rng: random.Random, lit: tuple, qid: str, true, cat):
    if lit[0] == "b":
        e, s = w.atoms[lit[1]]
        q = Question(qid, rng.choice(Q_BOOL).format(e=e, s=s), "boolean")
        holds = lit[1] in true
        return q, (0 if holds else 1), (true[lit[1]] if holds else None), w.depth("b", lit[1])
    e, a, values, _ = w.cats[lit[1]]
    value, support = cat[lit[1]]
    n = rng.randint(2, min(8, len(values)))
    shown = [value] + rng.sample([v for v in values if v != value], n - 1)
    shown = [v for v in values if v in shown]  # keep the domain's own order
    q = Question(qid, rng.choice(Q_CAT).format(e=e, a=a), "categorical", tuple(shown))
    return q, shown.index(value), support, w.depth("c", lit[1])


def generate(rng: random.Random, lexicon: Lexicon, domain: str, n_questions: int,
             max_links: int, chained: bool, max_extra: int = 3) -> DecisionSet:
    """One decision set. `max_links` bounds the chain length (0 = facts only)."""
    w = _World(rng, lexicon)
    targets: list[tuple] = []
    if chained and max_links >= 1 and n_questions >= 2:
        links = rng.randint(max(1, min(2, max_links)), max_links)
        nodes = _chain(w, rng, links)
        keep = min(len(nodes), n_questions)
        start = rng.randint(0, len(nodes) - keep)
        targets += nodes[start:start + keep]
        while len(targets) < n_questions and rng.random() < 0.5 and max_links >= 2:
            nodes = _chain(w, rng, rng.randint(1, min(2, max_links)))
            targets += nodes[: n_questions - len(targets)]
    while len(targets) < n_questions:
        lit = _distractor(w, rng) if max_links >= 1 else _base_literal(w, rng, rng.random() < 0.5)
        if any(t[:2] == lit[:2] for t in targets):
            continue
        targets.append(lit)
    for _ in range(rng.randint(0, max_extra)):  # sentences nobody asks about
        _distractor(w, rng)
    while not w.sentences:  # every answer left to the closed world: the service needs a context
        _distractor(w, rng)

    # context order: shuffle sentences, keep indices for support bookkeeping
    order = list(range(len(w.sentences)))
    rng.shuffle(order)
    position = {old: new for new, old in enumerate(order)}
    true, cat = w.solve()
    rng.shuffle(targets)
    questions, answers, supports, depths = [], [], [], []
    for i, lit in enumerate(targets):
        q, ans, sup, d = _question(w, rng, lit, f"q{i + 1}", true, cat)
        questions.append(q)
        answers.append(ans)
        supports.append(None if sup is None else position[sup])
        depths.append(d)
    asked = {t[:2] for t in targets}
    chain_links = any(
        c[:2] in asked and any(a[:2] in asked for a in ants) for ants, c, _ in w.rules)
    return DecisionSet(
        sentences=[w.sentences[i] for i in order], questions=questions, answers=answers,
        depth=depths, support=supports, chained=chain_links, domain=domain,
        links=_links(w, targets, questions))


def _links(w: _World, targets: list[tuple], questions: list[Question]) -> list:
    """The context's rules whose conditions and conclusion are all asked, as answer literals."""
    where = {t[:2]: i for i, t in enumerate(targets)}

    def literal(lit: tuple):
        i = where.get(lit[:2])
        if i is None:
            return None
        if lit[0] == "b":
            return (i, 0 if lit[2] else 1)
        options = questions[i].options
        return (i, options.index(lit[2])) if lit[2] in options else None

    links = []
    for ants, cons, _ in w.rules:
        conditions, conclusion = [literal(a) for a in ants], literal(cons)
        if conclusion is not None and all(c is not None for c in conditions):
            links.append((tuple(conditions), conclusion))
    return links


@dataclass(frozen=True)
class CorpusSpec:
    """What a stream of sets looks like. Curriculum stages change `max_links` and the mix.

    Splits: train / validation / test share phrasings and names; `novel` draws names from
    the held-out tail of every lexicon; `heldout` phrases every v2 family only with its
    held-out templates (a fifth of each pattern's phrasings, never used by the other splits),
    so it measures phrasing the model never saw. v1 has no held-out templates, so the
    heldout split leaves it out of the mix."""

    split: str = "train"
    max_links: int = 5
    chained_fraction: float = 0.7
    eight_fraction: float = 0.5  # share of sets with exactly 8 questions
    max_questions: int = 8
    max_extra: int = 3  # sentences nobody asks about, at most (v1)
    mix: tuple[tuple[str, float], ...] = V1_ONLY  # (family, weight)
    stated: float = 0.0  # readings: share of comparisons whose outcome is also said in words (training only)
    closed_world: float = 0.0  # quantified: share of yes/no questions that only who-has-what decides (training only)
    binding: float = 0.0  # rulebase: share of sets that only binding answers (families.rulebase; training only)
    deep: float = 0.0  # rulebase: share of the other sets whose answers chain three to five rules (training only)
    aggregate: float = 0.0  # rulebase: share of "which" questions with none / more than one among the options (training only)
    hypothetical: float = 0.0  # rulebase: share of sets asking what would follow from a supposed attribute (training only)
    holders: float = 0.0  # contracts: share of sets that only who holds each right answers (training only)
    roles: float = 0.0  # readings: share of sets whose rules name pair units by role (training only)
    role_rules: float = 0.0  # readings roles sets: share of rule chains tripping a pair's duty unit (training only)
    drills: float = 0.0  # readings: share of sets that only compare readings with numbers (training only)
    groups: float = 0.0  # readings: share of blocks that are groups of alike readings (training only)
    fleets: float = 0.0  # reports: share of sets that are fleets of robots with alike readings (training only)
    more_phrasings: bool = False  # v2 families: also the further phrasings of families/phrasings (training only)
    shorthand: float = 0.0  # share of sets rewritten in shorthand, the same answers (training.shorthand; training only)


def yes_no_set(sentences: list[str], question: str, yes: bool, depth: int = 0) -> DecisionSet:
    """One yes/no question on a context (a probe's, bench/), closed world: nothing supports it."""
    return DecisionSet(sentences=sentences, questions=[Question("q", question, "boolean")], answers=[0 if yes else 1],
                       depth=[depth], support=[None], chained=False)


def family_of(s: DecisionSet) -> str:
    """The family a set came from ('v1' for the v1 domains and for team data)."""
    return s.domain if s.domain in FAMILIES else "v1"


def _family_module(name: str):
    import importlib

    if name not in FAMILIES or name == "v1":
        raise ValueError(f"unknown corpus family {name!r}; choose from {list(FAMILIES)}")
    return importlib.import_module(f"decider.engine.training.families.{name}")


def make_set(spec: CorpusSpec, index: int) -> DecisionSet:
    """Set number `index` of a split: the same (spec, index) always gives the same set."""
    return _make(spec, index, twins=False)[0]


def make_twins(spec: CorpusSpec, index: int) -> list[DecisionSet]:
    """Set number `index` and, where its family can draw one (readings: `generate_twins`), its
    twin: the same set with one comparison turned the other way by a number. Without a twin,
    [make_set(spec, index)]. The first set is drawn with the twin in mind, so it is not
    make_set's set of that index."""
    return _make(spec, index, twins=True)


def _make(spec: CorpusSpec, index: int, twins: bool) -> list[DecisionSet]:
    if spec.split not in SPLIT_OFFSETS:
        raise ValueError(f"unknown split {spec.split!r}; choose one of {sorted(SPLIT_OFFSETS)}")
    if spec.shorthand and spec.split != "train":
        raise ValueError(f"shorthand is for training sets only; split {spec.split!r} keeps its wording")
    sets = _draw(spec, index, twins)
    if spec.shorthand and random.Random(f"decider:shorthand:{index}").random() < spec.shorthand:
        from decider.engine.training.shorthand import rewrite

        # one seed for a set and its twin: the same words rewritten alike, only the numbers differ
        sets = [rewrite(s, f"decider:shorthand:{index}") for s in sets]
    return sets


def _draw(spec: CorpusSpec, index: int, twins: bool) -> list[DecisionSet]:
    mix = [(f, w) for f, w in spec.mix if w > 0 and not (spec.split == "heldout" and mix_entry(f)[0] == "v1")]
    if not mix:
        raise ValueError(f"split {spec.split!r} has no family to draw from in the mix {spec.mix}")
    entry = mix[0][0]
    if len(mix) > 1:
        pick = random.Random(f"decider:mix:{spec.split}:{index}").random() * sum(w for _, w in mix)
        for entry, w in mix:
            pick -= w
            if pick < 0:
                break
    family, cap, most = mix_entry(entry)
    max_links = spec.max_links if cap is None else min(cap, spec.max_links)
    if family == "v1":
        return [_make_v1_set(replace(spec, max_links=max_links, max_questions=min(spec.max_questions, most or 8)),
                             index)]
    from decider.engine.training.families.base import Style

    style = Style.for_split(spec.split)
    if spec.more_phrasings:
        if spec.split != "train":
            raise ValueError(f"more_phrasings is for training sets only; split {spec.split!r} keeps its phrasings")
        style = replace(style, more=True)
    rng = random.Random(f"decider:{entry}:{spec.split}:{spec.max_links}:{spec.max_questions}:{index}")
    top = min(spec.max_questions, most or 8, 8)
    n = top if rng.random() < spec.eight_fraction else rng.randint(1, max(1, top - 1))
    module = _family_module(family)
    kw = {k: getattr(spec, k) for k in FAMILY_KNOBS.get(family, ()) if getattr(spec, k)}
    if twins and hasattr(module, "generate_twins"):
        return list(module.generate_twins(rng, style, n, max_links, **kw))
    return [module.generate(rng, style, n, max_links, **kw)]


def _make_v1_set(spec: CorpusSpec, index: int) -> DecisionSet:
    rng = random.Random(f"decider:{spec.split}:{spec.max_links}:{spec.max_questions}:{index}")
    domain = rng.choice(sorted(DOMAINS))
    seen, novel = DOMAINS[domain]
    lexicon = novel if spec.split == "novel" else seen
    top = min(spec.max_questions, 8)
    n = top if rng.random() < spec.eight_fraction else rng.randint(1, max(1, top - 1))
    return generate(rng, lexicon, domain, n, spec.max_links, rng.random() < spec.chained_fraction,
                    spec.max_extra)


def make_sets(spec: CorpusSpec, count: int, start: int = 0) -> list[DecisionSet]:
    return [make_set(spec, i) for i in range(start, start + count)]
