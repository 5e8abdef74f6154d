"""Family `rulebase`: short, plainly worded facts and quantified rules about a handful of
entities (animals, people, tagged equipment), and questions that only binding answers.

    The bear chases the dog. The dog is red. If something chases the dog then it is kind.
    Kind things are round. The mouse does not like the cat.
    Is the dog kind? (no)  Is the bear round? (yes)  Does the dog chase the bear? (no)
    Which animal is kind? (the bear)

Where the quantified family dresses its sentences in a register ("The latest update says
..."), this one says little and asks a lot: most of its no answers are an attribute that the
text gives another entity, a rule's conclusion asked of an entity that fails the rule's
condition, a relation asked the wrong way round, or a stated negative; its yes answers are
stated or follow by up to `max_links` rule steps. Ground truth: the rules grounded over the
entities and forward-chained (base.Program), closed world. Negation only touches base
predicates (never concluded by a rule), so the program is stratified.

Training only (no evaluation split draws it); its phrasings keep the held-out fifth apart
(base.pick), so a held-out split of it would measure unseen wording like the others.
"""

from __future__ import annotations

import functools
import random
import re
from dataclasses import dataclass, replace

from decider.engine.training.corpus import DecisionSet
from decider.engine.training.families import base


@dataclass(frozen=True)
class World:
    kind: str                      # the word for one entity in a "which" question
    some: str                      # "something" / "someone"
    pronoun: str                   # "it" / "they"
    be: str                        # the pronoun's "is" / "are"
    group: str                     # "things" / "people"
    entities: tuple[str, ...]
    attributes: tuple[str, ...]
    relations: tuple[tuple[str, str], ...]  # (3rd person, base form)
    opposites: tuple[tuple[str, str], ...]  # never both in one set (a unit is not running and idle)
    every: str = "everything"      # "everyone"
    any: str = "anything"          # "anyone"
    that: str = "that"             # "who"
    ever: str = "whatever"         # "whoever"
    what: str = "What"             # "Who"


ANIMALS = World(
    "animal", "something", "it", "is", "things",
    ("the bear", "the cat", "the dog", "the mouse", "the lion", "the tiger", "the rabbit", "the squirrel", "the cow",
     "the bald eagle", "the fox", "the owl", "the horse", "the goat", "the wolf", "the frog", "the duck", "the deer",
     "the sheep", "the crow", "the badger", "the otter", "the hamster", "the pig"),
    ("big", "small", "red", "blue", "green", "white", "kind", "nice", "rough", "round", "cold", "young", "quiet",
     "smart", "furry", "rude", "tired", "happy", "quick", "calm", "heavy", "shy", "loud", "old", "brave", "hungry",
     "wild", "sleepy", "strong", "clever"),
    (("chases", "chase"), ("eats", "eat"), ("likes", "like"), ("sees", "see"), ("visits", "visit"),
     ("needs", "need"), ("follows", "follow"), ("fears", "fear")),
    (("big", "small"), ("young", "old"), ("calm", "wild"), ("quiet", "loud"), ("nice", "rude"), ("kind", "rude"),
     ("happy", "sleepy"), ("quick", "sleepy"), ("heavy", "small"), ("shy", "brave"), ("shy", "loud"),
     ("calm", "hungry"), ("tired", "quick"), ("happy", "tired"), ("quick", "heavy")),
)
PEOPLE = World(
    "person", "someone", "they", "are", "people",
    ("Anne", "Bob", "Charlie", "Dave", "Erin", "Fiona", "Gary", "Harry", "Iris", "Jack", "Kim", "Leo", "Mia", "Nina",
     "Omar", "Priya", "Quentin", "Rosa", "Sam", "Tara", "Uma", "Victor", "Wendy", "Yusuf"),
    ("big", "young", "kind", "nice", "rough", "quiet", "smart", "round", "green", "blue", "red", "white", "cold",
     "furry", "certified", "senior", "trained", "busy", "tired", "careful", "new", "remote", "cleared", "late",
     "absent", "on call", "in charge", "off duty"),
    (("likes", "like"), ("trusts", "trust"), ("helps", "help"), ("knows", "know"), ("manages", "manage"),
     ("calls", "call"), ("visits", "visit"), ("replaces", "replace")),
    (("young", "senior"), ("new", "senior"), ("busy", "off duty"), ("on call", "off duty"), ("in charge", "absent"),
     ("in charge", "off duty"), ("absent", "on call"), ("absent", "busy"), ("remote", "in charge"), ("new", "trained"),
     ("new", "certified"), ("late", "absent"), ("cold", "nice"), ("kind", "rough"), ("tired", "on call")),
    "everyone", "anyone", "who", "whoever", "Who",
)
EQUIPMENT = World(
    "unit", "something", "it", "is", "units",
    ("P-101A", "P-101B", "P-204", "P-240", "K-101", "K-102", "XV-310", "XV-301", "T-12", "T-21", "F-3", "H-7",
     "CV-5", "R-2", "FT-204", "HX-3", "PSV-9", "M-44", "B-6", "AGV-7", "AGV-11", "CR-8", "LT-55", "TT-1104"),
    ("tripped", "isolated", "running", "overdue", "in alarm", "locked out", "bypassed", "degraded", "leaking",
     "energised", "flagged", "inspected", "cleared", "hot", "idle", "offline", "sealed", "drained", "vented",
     "purged", "tagged", "on standby", "in service", "critical", "blocked", "armed"),
    (("feeds", "feed"), ("supplies", "supply"), ("cools", "cool"), ("monitors", "monitor"), ("protects", "protect"),
     ("drives", "drive"), ("backs up", "back up"), ("heats", "heat")),
    tuple((a, b) for group in (("running", "tripped", "isolated", "idle", "offline", "locked out", "on standby",
                                "drained"),
                               ("in service", "offline", "on standby", "locked out", "tripped"),
                               ("energised", "isolated", "locked out"), ("sealed", "vented", "leaking", "drained"),
                               ("hot", "idle"), ("cleared", "in alarm", "critical", "blocked", "flagged"),
                               ("armed", "bypassed"), ("inspected", "overdue"), ("running", "blocked"))
          for i, a in enumerate(group) for b in group[i + 1:]),
)
WORLDS = (ANIMALS, PEOPLE, EQUIPMENT)
WORLD_WEIGHTS = (4, 3, 3)

# Phrasings: {x} the rule's subject word ("something"), {X} capitalised, {p} its pronoun and
# {be} that pronoun's "is"; {g} the plural ("things"); {a}, {b}, {c} attributes; {r} a relation
# in the third person, {rb} its base form; {o} a named entity.
FACT = ("{e} is {a}.", "{e} is {a}.", "{e} is {a}.", "{e} is {a}.", "It is known that {e} is {a}.",
        "{e} is {a}, as it happens.", "We know {e} is {a}.", "{e} is definitely {a}.", "{e} is known to be {a}.",
        "Note that {e} is {a}.")
FACT_AND = ("{e} is {a} and {b}.", "{e} is both {a} and {b}.", "{e} is {a} and also {b}.",
            "It is known that {e} is {a} and {b}.", "{e} is {a} as well as {b}.", "{e} is {a}, and {b} too.",
            "We know {e} is {a} and {b}.", "{e} is {a} and {b}, as it happens.")
NOT_FACT = ("{e} is not {a}.", "{e} is not {a}.", "{e} is not {a}.", "{e} is not {a}.", "{e} isn't {a}.",
            "It is known that {e} is not {a}.", "{e} is certainly not {a}.", "{e} is never {a}.",
            "We know {e} is not {a}.", "Note that {e} is not {a}.")
REL = ("{e} {r} {o}.", "{e} {r} {o}.", "{e} {r} {o}.", "{e} {r} {o}.", "It is known that {e} {r} {o}.",
       "{e} is known to {rb} {o}.", "We know {e} {r} {o}.", "{e} {r} {o}, as it happens.", "{e} definitely {r} {o}.",
       "Note that {e} {r} {o}.")
NOT_REL = ("{e} does not {rb} {o}.", "{e} does not {rb} {o}.", "{e} does not {rb} {o}.", "{e} does not {rb} {o}.",
           "{e} doesn't {rb} {o}.", "It is known that {e} does not {rb} {o}.", "{e} never {r} {o}.",
           "We know {e} does not {rb} {o}.", "{e} certainly does not {rb} {o}.", "Note that {e} does not {rb} {o}.")
RULE_1 = ("If {x} is {a} then {p} {be} {b}.", "{A} {g} are {b}.", "All {a} {g} are {b}.",
          "If {x} is {a}, {p} {be} also {b}.", "{Every} {that} is {a} is {b}.", "{Any} {a} is {b}.",
          "Whenever {x} is {a}, {p} {be} {b}.", "Every {a} one is {b}.", "{A} {g} are always {b}.",
          "{Every} {that} is {a} is also {b}.", "{Every} {a} is {b} as well.", "If {x} is {a}, then {p} {be} {b}.",
          "All {g} that are {a} are {b}.", "{A} ones are {b}.", "Any {a} one is {b} too.")
RULE_2 = ("If {x} is {a} and {b} then {p} {be} {c}.", "{A}, {b} {g} are {c}.", "All {a}, {b} {g} are {c}.",
          "If {x} is {a} and {p} {be} {b}, then {p} {be} {c}.", "{Every} {that} is {a} and {b} is {c}.",
          "{A} {g} that are {b} are {c}.", "Whenever {x} is both {a} and {b}, {p} {be} {c}.",
          "If {x} is {a} and also {b} then {p} {be} {c}.", "{Any} {a} and {b} is {c}.",
          "Every {a} one that is {b} is {c}.")
RULE_NOT = ("If {x} is {a} and not {b} then {p} {be} {c}.", "{A} {g} that are not {b} are {c}.",
            "If {x} is {a} but {p} {be} not {b}, then {p} {be} {c}.", "All {a} {g} that are not {b} are {c}.",
            "{Every} {that} is {a} and not {b} is {c}.", "Whenever {x} is {a} and not {b}, {p} {be} {c}.",
            "If {x} is not {b} and {p} {be} {a} then {p} {be} {c}.", "{Any} {a} but not {b} is {c}.",
            "{A} ones that are not {b} are {c}.", "Every {a} one that is not {b} is {c}.")
RULE_REL = ("If {x} {r} {o} then {p} {be} {b}.", "{Any} {that} {r} {o} is {b}.", "{Every} {that} {r} {o} is {b}.",
            "{Ever} {r} {o} is {b}.", "If {x} {r} {o}, {p} {be} {b}.", "All {g} that {rb} {o} are {b}.",
            "Whenever {x} {r} {o}, {p} {be} {b}.", "{Every} {that} {r} {o} is also {b}.",
            "If {x} {r} {o}, then {p} {be} {b}.", "{X} is {b} if {p} {r_p} {o}.")
RULE_NOT_1 = ("If {x} is not {a} then {p} {be} {b}.", "{Every} {that} is not {a} is {b}.",
              "All {g} that are not {a} are {b}.", "If {x} is not {a}, {p} {be} {b}.", "{G} that are not {a} are {b}.",
              "Whenever {x} is not {a}, {p} {be} {b}.", "{Any} {that} is not {a} is {b}.",
              "If {x} isn't {a} then {p} {be} {b}.", "{Every} {that} is not {a} is also {b}.",
              "If {x} is not {a}, then {p} {be} {b}.")
RULE_REL_SOME = ("If {x} {r} {x} {that} is {a} then {p} {be} {b}.", "If {x} {r} {x} {that} is {a}, {p} {be} {b}.",
                 "{Any} {that} {r} {x} {a} is {b}.", "Whenever {x} {r} {x} {that} is {a}, {p} {be} {b}.",
                 "{Every} {that} {r} {x} {that} is {a} is {b}.", "All {g} that {rb} {x} {a} are {b}.",
                 "If {x} {r} {x} {that} is {a}, then {p} {be} {b}.", "{Ever} {r} {x} {that} is {a} is {b}.",
                 "{Every} {that} {r} {x} {a} is {b} as well.", "If {x} {r} {any} {a} then {p} {be} {b}.")
RULE_REL_OTHER = ("If {x} {r} {o} and {o} is {a} then {p} {be} {b}.", "If {x} {r} {o} and {o} is {a}, {p} {be} {b}.",
                  "{Every} {that} {r} {o} is {b} if {o} is {a}.", "If {o} is {a} then {every} {that} {r} {o} is {b}.",
                  "When {o} is {a}, all {g} that {rb} {o} are {b}.",
                  "If {x} {r} {o} and {o} is {a}, then {p} {be} {b}.",
                  "{Any} {that} {r} {o} is {b}, provided {o} is {a}.", "Whenever {o} is {a}, {ever} {r} {o} is {b}.",
                  "If {o} is {a} and {x} {r} {o} then {p} {be} {b}.", "{Ever} {r} {o} is {b} when {o} is {a}.")
RULE_EXISTS = ("If {x} {r} {o} then {o} is {b}.", "If {x} {r} {o}, {o} is {b}.", "{O} is {b} if {x} {r} {o}.",
               "If {any} {r} {o}, then {o} is {b}.", "Whenever {x} {r} {o}, {o} is {b}.",
               "{O} is {b} when {x} {r} {o}.", "If {x} {r} {o}, then {o} is {b}.", "When {x} {r} {o}, {o} is {b}.",
               "{O} is {b} as soon as {x} {r} {o}.",
               "If {any} {r} {o} then {o} is {b}.")
RULE_EXISTS_ATTR = ("If {x} is {a} and {p} {r_p} {o} then {o} is {b}.", "If {x} is {a} and {r} {o}, {o} is {b}.",
                    "If {a} {g} {rb} {o} then {o} is {b}.", "{O} is {b} if {x} {a} {r} {o}.",
                    "When {x} is {a} and {r} {o}, {o} is {b}.", "If {x} {r} {o} and {p} {be} {a}, then {o} is {b}.",
                    "{O} is {b} whenever {a} {g} {rb} {o}.", "If {any} {a} {r} {o} then {o} is {b}.",
                    "If {x} is {a} and {p} {r_p} {o}, then {o} is {b}.", "Whenever {x} is {a} and {r} {o}, {o} is {b}.")
RULE_ATTR_REL = ("If {x} is {a} and {p} {r_p} {o} then {p} {be} {b}.", "{A} {g} that {rb} {o} are {b}.",
                 "All {a} {g} that {rb} {o} are {b}.", "If {x} {r} {o} and {p} {be} {a} then {p} {be} {b}.",
                 "{Every} {that} is {a} and {r} {o} is {b}.", "Whenever {x} is {a} and {r} {o}, {p} {be} {b}.",
                 "If {x} is {a} and {p} {r_p} {o}, then {p} {be} {b}.", "{Any} {a} that {r} {o} is {b}.",
                 "{A} ones that {rb} {o} are {b}.", "{Ever} is {a} and {r} {o} is {b}.")
RULE_TO_REL = ("If {x} is {a} then {p} {r_p} {o}.", "{A} {g} {rb} {o}.", "All {a} {g} {rb} {o}.",
               "{Any} {a} {r} {o}.", "{Every} {that} is {a} {r} {o}.", "Whenever {x} is {a}, {p} {r_p} {o}.",
               "If {x} is {a}, then {p} {r_p} {o}.", "Every {a} one {r} {o}.", "{A} ones {rb} {o}.",
               "{Every} {a} {r} {o}.")
RULE_GROUND = ("If {e} is {a} then {f} is {b}.", "If {e} is {a}, {f} is {b}.", "{f} is {b} if {e} is {a}.",
               "When {e} is {a}, {f} is {b}.", "Whenever {e} is {a}, {f} is {b}.", "{f} is {b} when {e} is {a}.",
               "If {e} is {a}, then {f} is {b}.", "{e} being {a} makes {f} {b}.")
RULE_GROUND_REL = ("If {e} {r} {f} then {f} is {b}.", "If {e} {r} {f}, {f} is {b}.", "{f} is {b} if {e} {r} {f}.",
                   "When {e} {r} {f}, {f} is {b}.", "Whenever {e} {r} {f}, {f} is {b}.",
                   "{f} is {b} when {e} {r} {f}.", "If {e} {r} {f}, then {f} is {b}.", "{f} is {b} whenever {e} {r} {f}.")
Q_ATTR = ("Is {e} {a}?", "Is {e} {a}?", "Is {e} {a}?", "Is it true that {e} is {a}?", "Would you say {e} is {a}?",
          "Can we conclude that {e} is {a}?", "Does it follow that {e} is {a}?", "{e} is {a}. True?",
          "Is {e} {a} or not?", "Given the above, is {e} {a}?")
Q_NOT_ATTR = ("Is it true that {e} is not {a}?", "Is {e} not {a}?", "{e} is not {a}. True?",
              "Would you say {e} is not {a}?", "Is it the case that {e} is not {a}?", "Can we say {e} is not {a}?",
              "Does it follow that {e} is not {a}?", "{e} isn't {a}, is that right?", "Is {e} not {a}, given the above?",
              "Is it correct that {e} is not {a}?")
Q_REL = ("Does {e} {rb} {o}?", "Does {e} {rb} {o}?", "Is it true that {e} {r} {o}?", "Would you say {e} {r} {o}?",
         "Can we conclude that {e} {r} {o}?", "{e} {r} {o}. True?", "Does {e} {rb} {o} or not?",
         "Does it follow that {e} {r} {o}?", "Given the above, does {e} {rb} {o}?", "Is it the case that {e} {r} {o}?")
Q_NOT_REL = ("Is it true that {e} does not {rb} {o}?", "{e} does not {rb} {o}. True?", "Does {e} not {rb} {o}?",
             "Is it the case that {e} does not {rb} {o}?", "Would you say {e} does not {rb} {o}?",
             "Can we say {e} does not {rb} {o}?", "Is it correct that {e} doesn't {rb} {o}?",
             "Does it follow that {e} does not {rb} {o}?", "{e} doesn't {rb} {o}, is that right?",
             "Given the above, is it true that {e} does not {rb} {o}?")
Q_WHICH = ("Which {k} is {a}?", "Which {k} is {a}?", "Which of these is {a}?", "Which one is {a}?",
           "Pick the {k} that is {a}.", "Which {k} would be {a}?", "Name the {k} that is {a}.",
           "Which {k} is the {a} one?", "Of these, which is {a}?", "Select the {k} that is {a}.")
Q_WHICH_OBJ = ("Which {k} does {e} {rb}?", "Which {k} does {e} {rb}?", "{what} does {e} {rb}?", "Which of them does {e} {rb}?",
               "Which one does {e} {rb}?", "Pick the {k} that {e} {r}.", "Name the {k} {e} {r}.",
               "Of these, which does {e} {rb}?", "Select the {k} that {e} {r}.", "Which of these does {e} {rb}?")
Q_WHICH_SUBJ = ("Which {k} {r} {o}?", "Which {k} {r} {o}?", "Which one {r} {o}?", "Which of them {r} {o}?",
                "Which of these {r} {o}?", "Pick the {k} that {r} {o}.", "Name the {k} that {r} {o}.",
                "Of these, which {r} {o}?", "Select the {k} that {r} {o}.", "{what} {r} {o}?")

Q_WHICH_ATTR = ("Which of these is {e}?", "Which of these is {e}?", "Which of these describes {e}?",
                "Which of these is true of {e}?", "What is {e}, of these?", "Pick the word that fits {e}.",
                "{e} is which of these?", "Which one of these applies to {e}?", "Which of these holds for {e}?",
                "Of these, what is {e}?")
# a question on what would follow if an entity had an attribute the text does not give it
Q_IF = ("If {e} were {a}, would {f} be {c}?", "If {e} were {a}, would {f} be {c}?",
        "Suppose {e} were {a}: would {f} be {c}?", "Suppose {e} is {a}. Is {f} {c} then?",
        "Would {f} be {c} if {e} were {a}?", "Were {e} {a}, would {f} be {c}?",
        "Had {e} been {a}, would {f} have been {c}?", "If {e} turned out to be {a}, would {f} be {c}?",
        "Assume {e} is {a}. Would {f} then be {c}?", "If we learned that {e} is {a}, would {f} be {c}?",
        "In case {e} is {a}, is {f} {c}?", "Say {e} were {a}. Would {f} be {c}?")
_SUPPOSING = re.compile("|".join(re.sub(r"\\\{\w\\\}", ".+", re.escape(base.cap(t))) for t in Q_IF))
Q_COLOUR = ("What colour is {e}?", "What colour is {e}?", "Which colour is {e}?", "What is the colour of {e}?",
            "{e} is what colour?", "Which colour does {e} have?", "What colour would {e} be?",
            "Pick the colour of {e}.", "Of these colours, which is {e}?", "Name the colour of {e}.")
COLOURS = frozenset(("red", "blue", "green", "white"))

# an attribute before a noun ("{a} {g}", "{a} one", "{a}, {b} {g}", "Anything {a}"): "in-service
# units", not "in service units"; after "is" or "are" it keeps its space ("are in service")
PRENOMINAL = re.compile(r"\{([aAbc])\}(?= \{g\}| ones?\b)|\{([aA])\}(?=, \{b\} \{g\})|\{(?:Every|Any)\} \{(a)\}")


def _say(templates, rng, style, **fields) -> str:
    template = base.pick(rng, templates, style)
    before_noun = {k for m in PRENOMINAL.finditer(template) for k in m.groups() if k}
    if before_noun & {"a", "A"}:
        before_noun |= {"a", "A"}
    fields = {k: v.replace(" ", "-") if k in before_noun else v for k, v in fields.items()}
    return template.format(**fields)


def _subject_forms(w: World) -> dict:
    return {"x": w.some, "X": base.cap(w.some), "p": w.pronoun, "be": w.be, "g": w.group, "G": base.cap(w.group),
            "every": w.every, "Every": base.cap(w.every), "any": w.any, "Any": base.cap(w.any), "that": w.that,
            "ever": w.ever, "Ever": base.cap(w.ever)}


def _r_p(w: World, r: tuple[str, str]) -> str:
    """The relation after the world's pronoun ("it chases", "they chase")."""
    return r[0] if w.pronoun == "it" else r[1]


def _attributes(rng: random.Random, w: World) -> list[str]:
    """The world's attributes shuffled, less any that is opposite to one kept before it (a unit
    is never said to be both running and idle)."""
    pool = list(w.attributes)
    rng.shuffle(pool)
    picked: list[str] = []
    for a in pool:
        if not any((a, b) in w.opposites or (b, a) in w.opposites for b in picked):
            picked.append(a)
    return picked


SMALL = 0.3  # share of small sets
PAIR = 0.5   # chance that an attribute question is followed by its contrast (below)
# an aggregate "which" question lists two or three entities and then the words for none of them
# and for more than one ("Which animal is kind? the bear / the cat / none of them / two or
# more"); these outcomes, drawn in these shares where the set allows
AGGREGATE_OUTCOMES = {"none": 0.35, "one": 0.35, "many": 0.3}
NONE_WORDS = frozenset(pair[0] for pair in base.NONE_OR_MORE) | {"neither"}
MANY_WORDS = frozenset(pair[1] for pair in base.NONE_OR_MORE) | {"both"}


def is_hypothetical(q) -> bool:
    """Whether a question is one of `_ask_hypothetical`'s ("If the bear were kind, ...")."""
    return q.kind == "boolean" and _SUPPOSING.fullmatch(q.text) is not None


def is_aggregate(q) -> bool:
    """Whether a question's options end in the words for none and for more than one (`_ask_aggregate`)."""
    return q.kind == "categorical" and len(q.options) >= 4 and q.options[-2] in NONE_WORDS and q.options[-1] in MANY_WORDS


@dataclass(frozen=True)
class Size:
    """How much one set says: (fewest, most) of each."""
    entities: tuple[int, int]
    base: tuple[int, int]       # attributes facts state
    derived: tuple[int, int]    # attributes rules conclude
    facts: tuple[int, int]      # attribute facts drawn (repeats dropped)
    relations: tuple[int, int]  # relation facts drawn
    rules: tuple[int, int]      # rules per derived attribute

    def draw(self, rng: random.Random, name: str) -> int:
        lo, hi = getattr(self, name)
        return lo if lo == hi else rng.randint(lo, hi)


SIZES = {False: Size(entities=(3, 5), base=(3, 5), derived=(1, 4), facts=(3, 7), relations=(1, 4), rules=(1, 2)),
         True: Size(entities=(2, 3), base=(2, 3), derived=(1, 2), facts=(2, 4), relations=(0, 2), rules=(1, 1))}
# deep sets: a chain of three to five derived attributes, each concluded from the one before it
DEEP = Size(entities=(3, 5), base=(2, 4), derived=(3, 5), facts=(2, 6), relations=(1, 3), rules=(1, 2))
LINK_FORMS = ("one", "two", "not", "attr_rel")  # the rules of a deep chain that read the link before them
DEEPEST = 3  # a deep set has an answer at least this many rule steps from the facts


def generate(rng: random.Random, style: base.Style, n_questions: int, max_links: int,
             binding: float = 0.0, deep: float = 0.0, aggregate: float = 0.0,
             hypothetical: float = 0.0) -> DecisionSet:
    """One set of `n_questions` questions over 2-5 entities, with rule chains of at most
    `max_links` steps behind its derived answers; a `binding` share of them is a binding set
    (`_binding_attempt`), and a `deep` share of the others a deep one: a chain of three to five
    rules, each reading the conclusion of the one before it, that fires for one or two entities,
    so that some answers lie three or more steps from the facts (where `max_links` allows). An
    `aggregate` share of the "which" questions of the others lists a few entities and then none
    and more than one among its options (`_ask_aggregate`), and a `hypothetical` share of them
    asks one or two questions on what would follow if an entity had an attribute the text does
    not give it (`_ask_hypothetical`)."""
    if not 1 <= n_questions <= 8:
        raise ValueError(f"n_questions must be 1..8, got {n_questions}")
    if not 0 <= max_links <= 5:
        raise ValueError(f"max_links must be 0..5, got {max_links}")
    if binding and max_links and rng.random() < binding:
        attempt = _binding_attempt
    else:
        chain = bool(deep) and max_links >= DEEPEST and rng.random() < deep
        attempt = functools.partial(_attempt, deep=chain, aggregate=aggregate,
                                    hypothetical=bool(hypothetical) and max_links > 0 and rng.random() < hypothetical)
    for _ in range(200):
        built = attempt(rng, style, n_questions, max_links)
        if built is not None:
            return built
    raise RuntimeError("rulebase: no valid set in 200 draws")


def _attempt(rng: random.Random, style: base.Style, n_questions: int, max_links: int,
             deep: bool = False, aggregate: float = 0.0, hypothetical: bool = False) -> DecisionSet | None:
    w = rng.choices(WORLDS, weights=WORLD_WEIGHTS)[0]
    # a third of the sets are small (two or three entities, a rule or two, a few facts): there
    # a rule's conclusion asked of the entity that fails its condition has nothing beside it to
    # lean on, as in short texts people write ("Harry is rough. Tomas is heavy. If something is
    # heavy then it is red. Is Harry red?")
    size = DEEP if deep else SIZES[rng.random() < SMALL]
    ents = [base.names(rng, w.entities, style) for _ in range(8)]
    ents = list(dict.fromkeys(ents))[: size.draw(rng, "entities")]
    if len(ents) < size.entities[0]:
        return None
    picked = _attributes(rng, w)
    n_base = size.draw(rng, "base")
    n_derived = size.draw(rng, "derived") if max_links else 0
    base_attrs, derived = picked[:n_base], picked[n_base:n_base + n_derived]
    rels = rng.sample(w.relations, rng.randint(1, 2))
    sb = base.SetBuilder("rulebase")
    prog = base.Program()

    # facts: base attributes and relations, some stated false
    for _ in range(size.draw(rng, "facts")):
        e, a = rng.choice(ents), rng.choice(base_attrs)
        if ("a", e, a) in prog.facts:
            continue
        holds = rng.random() < 0.8
        s = sb.say(_say(FACT if holds else NOT_FACT, rng, style, e=e, a=a))
        prog.fact(("a", e, a), holds, s)
    for _ in range(size.draw(rng, "relations")):
        e, o = rng.sample(ents, 2)
        r = rng.choice(rels)
        if ("r", e, r[0], o) in prog.facts:
            continue
        holds = rng.random() < 0.8
        s = sb.say(_say(REL if holds else NOT_REL, rng, style, e=e, r=r[0], rb=r[1], o=o))
        prog.fact(("r", e, r[0], o), holds, s)

    # rules: each concludes a derived attribute (or a relation to a named entity); their
    # conditions read base attributes, relations and earlier derived attributes. A rule about
    # "something" holds of every entity, the named one included ("Running units monitor P-240"
    # makes P-240 monitor itself when it runs); self-relations are never asked.
    stated_rules: set = set()

    def rule(templates, grounded: list, **fields) -> None:
        key = tuple(sorted(map(repr, grounded)))
        if grounded and key not in stated_rules:
            stated_rules.add(key)
            s = sb.say(_say(templates, rng, style, **fields))
            for conditions, conclusion in grounded:
                prog.rule(conditions, conclusion, s)

    made: list[str] = []
    derived_rel: list[tuple] = []
    for c in derived:
        for i in range(size.draw(rng, "rules")):
            readable = base_attrs + made
            link = made[-1] if deep and made and i == 0 else None  # a deep chain's rule reads the link before it
            if link:
                form = rng.choices(LINK_FORMS, weights=(4, 2, 2, 2))[0]
            else:
                form = rng.choices(("one", "two", "not", "not_1", "rel", "attr_rel", "rel_other", "exists",
                                    "exists_attr", "ground", "ground_rel"),
                                   weights=(4, 2, 2, 2, 2, 2, 1.5, 1.5, 1.5, 1, 1))[0]
            f = _subject_forms(w)
            if form == "one" or (form == "two" and len(readable) < 2):
                a = link or rng.choice(made if made and rng.random() < 0.6 else readable)  # a chain more often than not
                rule(RULE_1, [([(("a", e, a), True)], (("a", e, c), True)) for e in ents], a=a, A=base.cap(a), b=c, **f)
            elif form == "two":
                a, b = (link, rng.choice([x for x in readable if x != link])) if link else rng.sample(readable, 2)
                rule(RULE_2, [([(("a", e, a), True), (("a", e, b), True)], (("a", e, c), True)) for e in ents],
                     a=a, A=base.cap(a), b=b, c=c, **f)
            elif form == "not":
                a, b = link or rng.choice(readable), rng.choice(base_attrs)
                if a != b:
                    rule(RULE_NOT, [([(("a", e, a), True), (("a", e, b), False)], (("a", e, c), True)) for e in ents],
                         a=a, A=base.cap(a), b=b, c=c, **f)
            elif form == "not_1":  # closed world: it holds of every entity the text does not call `a`
                a = rng.choice(base_attrs)
                rule(RULE_NOT_1, [([(("a", e, a), False)], (("a", e, c), True)) for e in ents], a=a, b=c, **f)
            elif form == "rel":
                r, o = rng.choice(rels), rng.choice(ents)
                rule(RULE_REL, [([(("r", e, r[0], o), True)], (("a", e, c), True)) for e in ents],
                     r=r[0], rb=r[1], r_p=_r_p(w, r), o=o, b=c, **f)
            elif form == "attr_rel":
                a, r, o = link or rng.choice(readable), rng.choice(rels), rng.choice(ents)
                rule(RULE_ATTR_REL, [([(("a", e, a), True), (("r", e, r[0], o), True)], (("a", e, c), True))
                                     for e in ents], a=a, A=base.cap(a), r=r[0], rb=r[1], r_p=_r_p(w, r), o=o, b=c, **f)
            elif form == "rel_other":  # a condition on the related entity as well
                r, o, a = rng.choice(rels), rng.choice(ents), rng.choice(readable)
                rule(RULE_REL_OTHER, [([(("r", e, r[0], o), True), (("a", o, a), True)], (("a", e, c), True))
                                      for e in ents], r=r[0], rb=r[1], o=o, a=a, b=c, **f)
            elif form in ("exists", "exists_attr"):  # about the named entity, when anything relates to it
                r, o, a = rng.choice(rels), rng.choice(ents), rng.choice(readable)
                conditions = [(("a", e, a), True)] if form == "exists_attr" else []
                rule(RULE_EXISTS_ATTR if form == "exists_attr" else RULE_EXISTS,
                     [(conditions + [(("r", e, r[0], o), True)], (("a", o, c), True)) for e in ents],
                     r=r[0], rb=r[1], r_p=_r_p(w, r), o=o, O=base.cap(o), a=a, b=c, **f)
            elif form == "ground":
                e, g = rng.sample(ents, 2)
                a = rng.choice(readable)
                rule(RULE_GROUND, [([(("a", e, a), True)], (("a", g, c), True))], e=e, f=g, a=a, b=c)
            else:
                e, g = rng.sample(ents, 2)
                r = rng.choice(rels)
                rule(RULE_GROUND_REL, [([(("r", e, r[0], g), True)], (("a", g, c), True))], e=e, f=g, r=r[0], b=c)
        made.append(c)
    open_rels = [r for r in rels if not any(k[0] == "r" and k[2] == r[0] and not v for k, (v, _) in prog.facts.items())]
    if made and open_rels and rng.random() < 0.5:  # a relation concluded (none of its kind stated false)
        a, r, o = rng.choice(base_attrs + made), rng.choice(open_rels), rng.choice(ents)
        rule(RULE_TO_REL, [([(("a", e, a), True)], (("r", e, r[0], o), True)) for e in ents],
             a=a, A=base.cap(a), r=r[0], rb=r[1], r_p=_r_p(w, r), o=o, **_subject_forms(w))
        derived_rel += [("r", e, r[0], o) for e in ents]

    # Rules whose conditions no fact meets conclude nothing; meet one to three of them for one
    # entity each, so that chains fire and derived answers are there to ask.
    grounded = [d for d in prog.definitions if isinstance(d, base.Rule)]
    met = rng.sample(grounded, min(len(grounded), rng.randint(1, 3)))
    if deep:  # the whole chain, for one or two entities
        fired = rng.sample(ents, rng.randint(1, 2))
        met = [d for d in grounded if d.conclusion[0][0] == "a" and d.conclusion[0][1] in fired
               and d.conclusion[0][2] in derived] + met
    for d in met:
        if any(not want and prog.facts.get(key, (False,))[0] for key, want in d.conditions) or \
                any(key[0] == "r" and key[1] == key[3] for key, _ in d.conditions):
            continue  # a condition that must fail is stated true, or one of a relation to itself
        for key, want in d.conditions:
            base_atom = key[0] == "r" or key[2] in base_attrs
            if want and base_atom and key not in prog.facts:
                if key[0] == "a":
                    sid = sb.say(_say(FACT, rng, style, e=key[1], a=key[2]))
                else:
                    r = next(r for r in rels if r[0] == key[2])
                    sid = sb.say(_say(REL, rng, style, e=key[1], r=r[0], rb=r[1], o=key[3]))
                prog.fact(key, True, sid)

    solved = prog.solve()

    def truth(key) -> base.Solved:
        return prog.truth(solved, key)

    deepest = max([truth(("a", e, c)).depth for e in ents for c in made] + [truth(k).depth for k in derived_rel],
                  default=0)
    if deepest > max_links or (deep and deepest < DEEPEST):
        return None

    # candidate atoms, by why they hold or fail
    attrs = base_attrs + made
    atoms = [("a", e, a) for e in ents for a in attrs]
    atoms += [("r", e, r[0], o) for e in ents for o in ents if e != o for r in rels]
    said = {k for k in prog.facts} | {tuple(r.conclusion[0]) for r in prog.definitions}
    mentioned_attr = {k[2] for k in said if k[0] == "a"}
    # Derived answers are asked most: a stated fact is looked up, a conclusion must be chained
    # to, and a conclusion that fails for this entity (its condition holds of another one, or
    # of nobody) is what word spotting gets wrong.
    true_, false_ = [], []
    for k in atoms:
        t = truth(k)
        if t.value is True:
            true_.append((k, 0.5 + 3.0 * t.depth))
        elif k in prog.facts:
            false_.append((k, 1.0))       # stated false
        elif k[0] == "a" and k[2] in made:
            false_.append((k, 6.0))       # a rule's conclusion whose condition fails for this entity
        elif k[0] == "a" and any(truth(("a", e, k[2])).value is True for e in ents):
            false_.append((k, 4.0))       # true of another entity
        elif k[0] == "r" and truth(("r", k[3], k[2], k[1])).value is True:
            false_.append((k, 4.0))       # the relation the other way round
        elif k[0] == "a" and k[2] in mentioned_attr:
            false_.append((k, 2.0))       # said nowhere true
        else:
            false_.append((k, 0.3))
    if not true_ or not false_:
        return None

    asked: dict = {}
    used: set = set()

    def ask(k, negated: bool) -> None:
        """A yes/no question on atom k, plain or negated."""
        if k[0] == "a":
            text = _say(Q_NOT_ATTR if negated else Q_ATTR, rng, style, e=k[1], a=k[2])
        else:
            r = next(r for r in rels if r[0] == k[2])
            text = _say(Q_NOT_REL if negated else Q_REL, rng, style, e=k[1], r=r[0], rb=r[1], o=k[3])
        t = truth(k)
        sb.ask_boolean(text, (t.value is True) != negated, t.depth, t.support)
        asked.setdefault(k, base.Asked(sb.questions[-1].text, negated=negated))

    n_which = sum(rng.random() < 0.2 for _ in range(n_questions))
    for _ in range(n_which):
        if aggregate and rng.random() < aggregate:
            _ask_aggregate(rng, style, sb, w, ents, attrs, truth, used)
        else:
            _ask_which(rng, style, sb, w, ents, attrs, rels, truth, used)
    if hypothetical:
        for _ in range(rng.randint(1, 2)):
            if len(sb.questions) < n_questions:
                _ask_hypothetical(rng, style, sb, prog, ents, base_attrs, made, truth, max_links)
    while len(sb.questions) < n_questions:
        want_true = rng.random() < 0.5
        group = [(k, wt) for k, wt in (true_ if want_true else false_) if k not in used] or \
                [(k, wt) for k, wt in true_ + false_ if k not in used]
        if not group:
            return None
        k = rng.choices([k for k, _ in group], weights=[wt for _, wt in group])[0]
        used.add(k)
        negated = rng.random() < 0.25
        # now and then the same atom both ways round in one set ("Is the dog big?", "Is it true
        # that the dog is not big?"): the two answers must differ
        for negated in (negated, not negated)[:1 + (len(sb.questions) < n_questions - 1 and rng.random() < 0.12)]:
            ask(k, negated)
        # contrast pairs: the attribute asked again of an entity for which the answer is the other
        # one ("Is the dog red?" no, "Is the cat red?" yes): the two are told apart only by which
        # entity the text binds the attribute, or the rule's condition, to
        if k[0] == "a" and len(sb.questions) < n_questions and rng.random() < PAIR:
            value = truth(k).value is True
            partners = [("a", e, k[2]) for e in ents
                        if ("a", e, k[2]) not in used and (truth(("a", e, k[2])).value is True) != value]
            if partners:
                p = rng.choice(partners)
                used.add(p)
                ask(p, rng.random() < 0.25)
    ds = sb.build(rng)
    ds.chained = any(d > 0 for d in ds.depth) and len(ds.questions) > 1
    ds.links = base.answer_links(ds, base.program_rules(prog.definitions), asked)
    return ds


def _binding_attempt(rng: random.Random, style: base.Style, n_questions: int, max_links: int) -> DecisionSet | None:
    """A set that only binding answers. Every entity is said to have one to three attributes
    (two of them in one sentence now and then) and most relate to another, each rule's
    condition holds of some entities and fails for the others, and the questions ask each
    rule's conclusion of an entity of either kind, in pairs:

        The bear is big. The dog is kind and round. If something is big then it is red.
        Is the bear red? (yes)  Is the dog red? (no)
        P-1 feeds T-1. P-2 feeds T-2. T-1 is full. If something feeds something that is full
        then it is stopped.  Is P-1 stopped? (yes)  Is P-2 stopped? (no)

    In the family's other sets an entity whose condition fails is mostly one the text says
    little about, or says is not so; a model can answer those from how much the text says of an
    entity. Here the yes and the no entities are said alike, so only which entity the text gives
    which attribute or relation tells them apart. Chains of two links where `max_links` allows."""
    w = rng.choices(WORLDS, weights=WORLD_WEIGHTS)[0]
    ents = list(dict.fromkeys(base.names(rng, w.entities, style) for _ in range(8)))[:rng.randint(2, 5)]
    picked = _attributes(rng, w)
    n_base = rng.randint(2, 5)
    base_attrs, derived = picked[:n_base], picked[n_base:n_base + rng.randint(1, 3)]
    if len(ents) < 2 or len(base_attrs) < 2 or not derived:
        return None
    rels = rng.sample(w.relations, rng.randint(1, 2))
    sb = base.SetBuilder("rulebase")
    prog = base.Program()
    _say_alike(rng, style, sb, prog, ents, base_attrs, rels)
    made = _binding_rules(rng, style, sb, prog, w, ents, base_attrs, derived, rels, max_links)
    solved = prog.solve()

    def truth(key) -> base.Solved:
        return prog.truth(solved, key)

    if max(truth(("a", e, c)).depth for e in ents for c in made) > max_links:
        return None
    # pairs of entities, one the conclusion holds of and one it does not
    pairs = []
    for c in made:
        yes = [e for e in ents if truth(("a", e, c)).value is True]
        no = [e for e in ents if truth(("a", e, c)).value is not True]
        if yes and no:
            pairs += [(("a", rng.choice(yes), c), ("a", rng.choice(no), c))]
    if not pairs:
        return None
    rng.shuffle(pairs)
    keys = [k for pair in pairs for k in rng.sample(pair, 2)]
    keys += [k for k in (("a", e, c) for c in made for e in ents) if k not in keys]
    facts = [("a", e, a) for e in ents for a in base_attrs]  # the rest: who has what, as stated
    keys += rng.sample(facts, len(facts))
    if len(keys) < n_questions:
        return None
    asked: dict = {}
    for k in keys[:n_questions]:
        negated = rng.random() < 0.2
        t = truth(k)
        sb.ask_boolean(_say(Q_NOT_ATTR if negated else Q_ATTR, rng, style, e=k[1], a=k[2]),
                       (t.value is True) != negated, t.depth, t.support)
        asked.setdefault(k, base.Asked(sb.questions[-1].text, negated=negated))
    ds = sb.build(rng)
    ds.chained = any(d > 0 for d in ds.depth) and len(ds.questions) > 1
    ds.links = base.answer_links(ds, base.program_rules(prog.definitions), asked)
    return ds


def _say_alike(rng: random.Random, style: base.Style, sb: base.SetBuilder, prog: base.Program, ents: list[str],
               base_attrs: list[str], rels: list) -> None:
    """A binding set's facts: one to three attributes of every entity, now and then one it lacks
    said as such, and for most a relation to another."""
    for e in ents:
        has = rng.sample(base_attrs, rng.randint(1, min(3, len(base_attrs))))
        if len(has) > 1 and rng.random() < 0.5:
            s = sb.say(_say(FACT_AND, rng, style, e=e, a=has[0], b=has[1]))
            prog.fact(("a", e, has.pop(0)), True, s)
            prog.fact(("a", e, has.pop(0)), True, s)
        for a in has:
            prog.fact(("a", e, a), True, sb.say(_say(FACT, rng, style, e=e, a=a)))
        lacks = [a for a in base_attrs if ("a", e, a) not in prog.facts]
        if lacks and rng.random() < 0.15:
            a = rng.choice(lacks)
            prog.fact(("a", e, a), False, sb.say(_say(NOT_FACT, rng, style, e=e, a=a)))
        if rng.random() < 0.7:
            r, o = rng.choice(rels), rng.choice([x for x in ents if x != e])
            prog.fact(("r", e, r[0], o), True, sb.say(_say(REL, rng, style, e=e, r=r[0], rb=r[1], o=o)))


def _binding_rules(rng: random.Random, style: base.Style, sb: base.SetBuilder, prog: base.Program, w: World,
                   ents: list[str], base_attrs: list[str], derived: list[str], rels: list, max_links: int) -> list[str]:
    """A binding set's rules, one per derived attribute (the attributes concluded, in order)."""
    made: list[str] = []
    f = _subject_forms(w)
    for c in derived:
        chain = made and max_links > 1 and rng.random() < 0.4
        a = rng.choice(made) if chain else rng.choice(base_attrs)
        b = rng.choice([x for x in base_attrs if x != a])  # a second condition: a base attribute
        r, o = rng.choice(rels), rng.choice(ents)
        form = rng.choices(("one", "two", "not", "rel", "rel_some"), weights=(3, 2, 1, 2, 2))[0]
        if form == "rel":  # "If something likes the dog then it is kind."
            ground = [(e, [(("r", e, r[0], o), True)]) for e in ents]
        elif form == "rel_some":  # "If something feeds something that is full then it is stopped."
            ground = [(e, [(("r", e, r[0], x), True), (("a", x, a), True)]) for e in ents for x in ents if x != e]
        else:
            conditions = [(a, True)] + ([(b, form == "two")] if form != "one" else [])
            ground = [(e, [(("a", e, x), want) for x, want in conditions]) for e in ents]
        templates = {"one": RULE_1, "two": RULE_2, "not": RULE_NOT, "rel": RULE_REL, "rel_some": RULE_REL_SOME}[form]
        fields = {"b": c} if form in ("one", "rel", "rel_some") else {"b": b, "c": c}
        s = sb.say(_say(templates, rng, style, a=a, A=base.cap(a), r=r[0], rb=r[1], r_p=_r_p(w, r), o=o, **fields,
                        **f))
        for e, conditions in ground:
            prog.rule(conditions, (("a", e, c), True), s)
        made.append(c)
    return made


def _ask_which(rng, style, sb, w: World, ents, attrs, rels, truth, used) -> None:
    """A categorical question with exactly one right entity among all of the set's: the one
    an attribute is true of, or the one a relation holds to or from."""
    options_n = min(len(ents), rng.randint(3, 4))
    for _ in range(20):
        form = rng.choice(("attr", "attr", "obj", "subj", "of", "of"))
        if form == "of":  # which of a few attributes an entity has: exactly one of the options holds
            e = rng.choice(ents)
            hits = [a for a in attrs if truth(("a", e, a)).value is True]
            if not hits or ("of", e) in used:
                continue
            answer = rng.choice(hits)
            said = " ".join(sb.sentences).lower().replace("-", " ")
            misses = [a for a in attrs if a not in hits and re.search(rf"\b{re.escape(a)}\b", said)]  # named in the text
            if answer in COLOURS and rng.random() < 0.7 and len(misses_c := [a for a in misses if a in COLOURS]) >= 1:
                misses, templates = misses_c, Q_COLOUR
            else:
                templates = Q_WHICH_ATTR
            if not misses:
                continue
            used.add(("of", e))
            options = rng.sample(misses, min(len(misses), options_n - 1)) + [answer]
            rng.shuffle(options)
            t = truth(("a", e, answer))
            sb.ask_choice(_say(templates, rng, style, e=e), options, answer, t.depth, t.support)
            return
        if form == "attr":
            a = rng.choice(attrs)
            hits = [e for e in ents if truth(("a", e, a)).value is True]
            key = ("which", a)
        else:
            r, anchor = rng.choice(rels), rng.choice(ents)
            if form == "obj":
                hits = [o for o in ents if o != anchor and truth(("r", anchor, r[0], o)).value is True]
            else:
                hits = [s for s in ents if s != anchor and truth(("r", s, r[0], anchor)).value is True]
            key = (form, r, anchor)
        if len(hits) != 1 or key in used:
            continue
        used.add(key)
        answer = hits[0]
        others = [e for e in ents if e != answer and (form == "attr" or e != anchor)]
        options = rng.sample(others, min(len(others), options_n - 1)) + [answer]
        if len(options) < 2:
            continue
        rng.shuffle(options)
        k = "person" if w is PEOPLE else w.kind
        if form == "attr":
            t = truth(("a", answer, a))
            text = _say(Q_WHICH, rng, style, k=k, a=a)
        elif form == "obj":
            t = truth(("r", anchor, r[0], answer))
            text = _say(Q_WHICH_OBJ, rng, style, k=k, e=anchor, r=r[0], rb=r[1], what=w.what)
        else:
            t = truth(("r", answer, r[0], anchor))
            text = _say(Q_WHICH_SUBJ, rng, style, k=k, r=r[0], o=anchor, what=w.what)
        if rng.random() < 0.5:  # "bear" as often as "the bear"
            options, answer = [o.removeprefix("the ") for o in options], answer.removeprefix("the ")
        sb.ask_choice(text, options, answer, t.depth, t.support)
        return


def _ask_aggregate(rng, style, sb, w: World, ents, attrs, truth, used) -> None:
    """A "which" question over two or three listed entities whose options end in the words for
    none of them and for more than one (base.none_or_more: "neither" and "both" for two), as
    people ask them ("Which of these is kind? the bear / the cat / neither / both"). The answer
    is the one listed entity the attribute holds of, else none or more than one; the outcome is
    drawn first (AGGREGATE_OUTCOMES) and the entities listed to give it."""
    if len(ents) < 2:
        return
    for _ in range(20):
        a = rng.choice(attrs)
        if ("which", a) in used:
            continue
        hits = [e for e in ents if truth(("a", e, a)).value is True]
        misses = [e for e in ents if e not in hits]
        outcome = rng.choices(list(AGGREGATE_OUTCOMES), weights=list(AGGREGATE_OUTCOMES.values()))[0]
        n = min(len(ents), rng.randint(2, 3))
        if outcome == "none":
            listed = rng.sample(misses, n) if len(misses) >= n else None
        elif outcome == "one":
            listed = [rng.choice(hits)] + rng.sample(misses, n - 1) if hits and len(misses) >= n - 1 else None
        else:
            k = rng.randint(2, n)
            listed = rng.sample(hits, k) + rng.sample(misses, n - k) if len(hits) >= k and len(misses) >= n - k else None
        if not listed:
            continue
        used.add(("which", a))
        rng.shuffle(listed)
        none, many = base.none_or_more(rng, n)
        true = [e for e in listed if e in hits]
        answer = true[0] if len(true) == 1 else none if not true else many
        # one entity: its own depth and support; none is a closed-world no (depth 0); more than
        # one rests on several supports, so none is kept to drop
        depth = max((truth(("a", e, a)).depth for e in true), default=0)
        support = truth(("a", true[0], a)).support if len(true) == 1 else None
        if rng.random() < 0.5:  # "bear" as often as "the bear"
            listed, answer = [o.removeprefix("the ") for o in listed], answer.removeprefix("the ")
        if n == 2 and rng.random() < 0.3:  # "only the bear / only the cat / both / neither"
            answer = f"only {answer}" if answer in listed else answer
            listed = [f"only {o}" for o in listed]
        options = listed + [none, many]
        k_word = "person" if w is PEOPLE else w.kind
        sb.ask_choice(_say(Q_WHICH, rng, style, k=k_word, a=a), options, answer, depth, support)
        return


def _ask_hypothetical(rng, style, sb, prog: base.Program, ents, base_attrs, made, truth, max_links: int) -> None:
    """"If the bear were kind, would the cat be red?": a yes/no question on a derived attribute
    in the world where one entity also has a base attribute the text neither gives nor denies
    it. The program is solved again with that fact added: yes where the attribute then holds
    and does not now; no where it still fails (a conclusion whose rule reads the supposed
    attribute, or one of the same entity), or where it holds now and the new fact defeats it
    through a rule's "not" condition. Asked only where the set has both, yes and no equally. Its
    support is none: the answer rests on the supposition."""
    targets = [("a", x, c) for x in ents for c in made]
    found = {True: [], False: []}
    for a in base_attrs:
        reads_a = {d.conclusion[0] for d in prog.definitions if isinstance(d, base.Rule)
                   and any(key[0] == "a" and key[2] == a for key, _ in d.conditions)}
        for e in ents:
            h = ("a", e, a)
            if h in prog.facts:
                continue
            world = replace(prog, facts={**prog.facts, h: (True, None)})  # rules shared, not changed
            after = world.solve()
            for k in targets:
                now, then = truth(k), world.truth(after, k)
                if then.value is True and now.value is not True and then.depth <= max_links:
                    found[True].append((h, k, then.depth))
                elif then.value is not True and (now.value is True or k[1] == e or k in reads_a):
                    found[False].append((h, k, now.depth))
    if not (found[True] and found[False]):
        return  # asked only where either answer can be drawn, so that yes and no stay even
    yes = rng.random() < 0.5
    (_, e, a), k, depth = rng.choice(found[yes])
    f = "it" if k[1] == e and e.startswith("the ") and rng.random() < 0.5 else k[1]
    sb.ask_boolean(_say(Q_IF, rng, style, e=e, a=a, f=f, c=k[2]), yes, depth, None)
