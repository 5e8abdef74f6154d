"""Declared constraints over a request's questions: checking, conflict finding, lookahead.

A literal names one answer of one question: ("q2", "yes") or ("mode", "manual"). A
constraint combines literals:

    implies(a, b)        a -> b                excludes(a, b)   not (a and b)
    equal(a, b)          a <-> b               different(a, b)  a xor b
    at_most_one(l...)    at most one true      at_least_one(l...)  at least one true
    exactly_one(l...)    exactly one true

Over at most 8 questions with at most 16 options, exact reasoning is cheap: a backtracking
search over the questions that constraints mention. Answers no literal names are
interchangeable, so each question's domain collapses to the named answers plus one
stand-in for all the rest, which keeps the search small.

`ConstraintSet.support(domains)` is the lookahead the decoder runs after every commit: it
keeps exactly the answers that still extend to a full assignment satisfying every
constraint. A slot left with one answer is forced.
This module knows nothing of the model or of torch.
"""

from __future__ import annotations

from dataclasses import dataclass

from decider.engine.request import (MAX_CONSTRAINTS, MAX_LITERALS, PAIRWISE, Constraint, DecisionInputError, Question,
                                    answer_classes)

@dataclass(frozen=True)
class _Compiled:
    name: str
    kind: str
    literals: tuple[tuple[int, int], ...]  # (slot, answer class)
    text: str


def _status(lit: tuple[int, int], assignment: list[int | None]) -> bool | None:
    value = assignment[lit[0]]
    return None if value is None else value == lit[1]


def _violated(c: _Compiled, assignment: list[int | None]) -> bool:
    """True when the partial assignment already breaks `c`, whatever the open slots take."""
    states = [_status(l, assignment) for l in c.literals]
    true, unknown = states.count(True), states.count(None)
    if c.kind == "implies":
        return states[0] is True and states[1] is False
    if c.kind == "excludes":
        return states[0] is True and states[1] is True
    if c.kind == "equal":
        return None not in states and states[0] != states[1]
    if c.kind == "different":
        return None not in states and states[0] == states[1]
    if c.kind == "at_most_one":
        return true > 1
    if c.kind == "at_least_one":
        return true == 0 and unknown == 0
    return true > 1 or (true == 0 and unknown == 0)  # exactly_one


class ConstraintSet:
    """Constraints resolved against one request's questions (slot indices, answer classes)."""

    def __init__(self, compiled: list[_Compiled], n_slots: int):
        self.constraints = compiled
        self.n_slots = n_slots
        self.by_slot: list[list[_Compiled]] = [[] for _ in range(n_slots)]
        for c in compiled:
            for slot in sorted({s for s, _ in c.literals}):
                self.by_slot[slot].append(c)
        self.named: list[set[int]] = [set() for _ in range(n_slots)]  # classes literals name, per slot
        for c in compiled:
            for s, cls in c.literals:
                self.named[s].add(cls)

    @staticmethod
    def compile(constraints: list[Constraint], questions: list[Question]) -> "ConstraintSet":
        """Resolve names to slots and classes; unknown questions or answers are input errors."""
        if len(constraints) > MAX_CONSTRAINTS:
            raise DecisionInputError(f"at most {MAX_CONSTRAINTS} constraints per request, got {len(constraints)}",
                                     field="constraints")
        index = {q.id: i for i, q in enumerate(questions)}
        out = []
        for k, c in enumerate(constraints):
            name = c.name or f"c{k + 1}"
            where = f"constraints[{k}]"
            if c.kind in PAIRWISE and len(c.literals) != 2:
                raise DecisionInputError(f"constraint {name}: '{c.kind}' takes exactly 2 literals, "
                                         f"got {len(c.literals)}", field=f"{where}.literals")
            if len(c.literals) > MAX_LITERALS:
                raise DecisionInputError(f"constraint {name}: at most {MAX_LITERALS} literals, got {len(c.literals)}",
                                         field=f"{where}.literals")
            lits = []
            for j, lit in enumerate(c.literals):
                if lit.question not in index:
                    raise DecisionInputError(
                        f"constraint {name}: no question '{lit.question}' in this request "
                        f"(questions: {', '.join(index)})", field=f"{where}.literals[{j}].question")
                q = questions[index[lit.question]]
                if lit.option not in q.choices:
                    raise DecisionInputError(
                        f"constraint {name}: question '{q.id}' has no answer '{lit.option}' "
                        f"(its answers: {', '.join(q.choices)})", field=f"{where}.literals[{j}].option")
                lits.append((index[q.id], answer_classes(q)[q.choices.index(lit.option)]))
            out.append(_Compiled(name, c.kind, tuple(lits), c.describe()))
        return ConstraintSet(out, len(questions))

    def __bool__(self) -> bool:
        return bool(self.constraints)

    # -- search
    def _search(self, domains: list[list[int]], assignment: list[int | None], order: list[int],
                constraints: list[_Compiled] | None = None) -> list[int | None] | None:
        """A full assignment of the slots in `order` that breaks no constraint, or None."""
        if not order:
            return list(assignment)
        slot, rest = order[0], order[1:]
        watched = self.by_slot[slot] if constraints is None else [c for c in self.by_slot[slot] if c in constraints]
        for value in domains[slot]:
            assignment[slot] = value
            if not any(_violated(c, assignment) for c in watched):
                found = self._search(domains, assignment, rest, constraints)
                if found is not None:
                    assignment[slot] = None
                    return found
        assignment[slot] = None
        return None

    def _collapsed(self, domains: list[set[int]]) -> list[list[int]]:
        """Each domain cut to the answers literals name plus one stand-in for the rest."""
        out = []
        for slot, dom in enumerate(domains):
            named = sorted(dom & self.named[slot])
            others = sorted(dom - self.named[slot])
            out.append(named + others[:1])
        return out

    def _order(self, domains: list[list[int]]) -> list[int]:
        """Constrained slots, fewest answers first (fail early)."""
        return sorted((s for s in range(self.n_slots) if self.by_slot[s]), key=lambda s: (len(domains[s]), s))

    def satisfiable(self, domains: list[set[int]], constraints: list[_Compiled] | None = None) -> bool:
        doms = self._collapsed(domains)
        if any(not d for d in doms):
            return False
        order = self._order(doms)
        if constraints is not None:
            keep = {s for c in constraints for s, _ in c.literals}
            order = [s for s in order if s in keep]
        return self._search(doms, [None] * self.n_slots, order, constraints) is not None

    def support(self, domains: list[set[int]]) -> list[set[int]] | None:
        """Full lookahead: per slot, the answers of `domains` that extend to a full assignment
        satisfying every constraint. None when no assignment does."""
        doms = self._collapsed(domains)
        order = self._order(doms)
        supported: list[set[int]] = [set() for _ in range(self.n_slots)]
        any_solution = False
        for slot in order:
            for value in doms[slot]:
                if value in supported[slot]:
                    continue
                fixed = list(doms)
                fixed[slot] = [value]
                found = self._search(fixed, [None] * self.n_slots, [slot] + [s for s in order if s != slot])
                if found is None:
                    continue
                any_solution = True
                for s in order:
                    supported[s].add(found[s])
        if order and not any_solution:
            return None
        out = []
        for slot, dom in enumerate(domains):
            if not self.by_slot[slot]:
                out.append(set(dom))
                continue
            kept = {v for v in dom if v in self.named[slot] and v in supported[slot]}
            stand_in = [v for v in doms[slot] if v not in self.named[slot]]
            if stand_in and stand_in[0] in supported[slot]:  # every unnamed answer is as good as the stand-in
                kept |= dom - self.named[slot]
            out.append(kept)
        return out

    def conflict(self, domains: list[set[int]]) -> list[_Compiled]:
        """A minimal set of constraints that cannot all hold (deletion-based: drop each
        constraint whose removal leaves the rest still unsatisfiable)."""
        core = list(self.constraints)
        for c in list(core):
            trial = [d for d in core if d is not c]
            if not self.satisfiable(domains, trial):
                core = trial
        return core

    def check(self, domains: list[set[int]]) -> list[set[int]]:
        """The lookahead domains, or an input error naming a minimal conflicting subset."""
        supported = self.support(domains)
        if supported is not None:
            return supported
        core = self.conflict(domains)
        names = [c.name for c in core]
        joined = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
        verb = "cannot hold" if len(names) == 1 else ("cannot both hold" if len(names) == 2 else "cannot all hold")
        detail = "; ".join(f"{c.name}: {c.text}" for c in core)
        raise DecisionInputError(f"constraint{'s' if len(names) > 1 else ''} {joined} {verb}: {detail}",
                                 field="constraints")

    def satisfied_by(self, answers: list[int | None]) -> bool:
        """No constraint is broken by these answers (None = undecided, may still go either way)."""
        return not any(_violated(c, answers) for c in self.constraints)
