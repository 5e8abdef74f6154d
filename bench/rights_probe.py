"""Does the model read which party holds a right, or only whether the right is said at all?

    python bench/rights_probe.py [--checkpoint DIR] [--probes 100] [--seed 0]
                                 [--learn STEPS --learn-from probes|holders|family]

Short contracts between two parties named by role ("the Supplier", "the Customer"), two to
four numbered clauses, each right given to one party and refused to the other in the same
words ("12.1 The Supplier may terminate this Agreement for convenience on 30 days' written
notice. 12.2 The Customer may terminate this Agreement only for material breach."), and one
yes/no question as a reviewer asks it, of either party ("Can the Customer end the agreement
without giving a reason?"). Both parties are said alike, so a model that answers from whether
the right is mentioned says the same of both; one that reads who holds it tells them apart.
Prints the accuracy and the mean P(yes) when the asked party holds the right and when not.

`--learn STEPS` first fine-tunes a copy of the checkpoint in memory (batches of 16, AdamW at
`--lr`, word embeddings frozen), printing the training accuracy every 50 steps: on probes drawn
apart from the measured ones (`--learn-from probes`: can the model learn to read who holds a
right, and how fast), on the contracts family's holders sets (`--learn-from holders`,
corpus.CorpusSpec.holders: its own wording, none of the probe's questions) or on its other sets
(`--learn-from family`): does what the family teaches carry over to the probe's sentences.
"""

from __future__ import annotations

import random

import probing

ROLES = (("Supplier", "Customer"), ("Licensor", "Licensee"), ("Seller", "Buyer"), ("Service Provider", "Client"),
         ("Contractor", "Employer"), ("Landlord", "Tenant"))
# right: (given, refused, questions); {P} the party, {O} the other one, {n} a number of days
RIGHTS = {
    "convenience": ("The {P} may terminate this Agreement for convenience on {n} days' written notice.",
                    "The {P} may terminate this Agreement only for material breach.",
                    ("Can the {P} end the agreement without giving a reason?",
                     "May the {P} terminate for convenience?")),
    "assign": ("The {P} may assign this Agreement to any third party without consent.",
               "The {P} may not assign this Agreement without the prior written consent of the {O}.",
               ("Can the {P} transfer the contract without asking the other side?",
                "May the {P} assign the agreement without consent?")),
    "audit": ("The {P} may audit the records of the {O} once a year on {n} days' notice.",
              "The {P} has no right to audit the records of the {O}.",
              ("Is the {P} allowed to inspect the other party's books?", "Can the {P} audit the other party?")),
    "subcontract": ("The {P} may subcontract any of its obligations without consent.",
                    ("The {P} shall not subcontract any of its obligations without the prior written consent of "
                     "the {O}."),
                    ("Can the {P} use subcontractors without permission?",
                     "May the {P} subcontract without the other party's consent?")),
}


def probe(rng: random.Random) -> tuple[str, str, bool]:
    """(context, question, answer) of one probe."""
    parties = list(rng.choice(ROLES))
    rng.shuffle(parties)
    rights = rng.sample(sorted(RIGHTS), rng.randint(1, 2))
    clauses, holders = [], {}
    for right in rights:
        given, refused, _ = RIGHTS[right]
        holder = holders[right] = rng.randrange(2)
        n = rng.choice((10, 14, 30, 60, 90))
        clauses += [given.format(P=parties[holder], O=parties[1 - holder], n=n),
                    refused.format(P=parties[1 - holder], O=parties[holder], n=n)]
    rng.shuffle(clauses)
    section = rng.randint(2, 24)
    context = (f"This Agreement is made between the {parties[0]} and the {parties[1]}. "
               + " ".join(f"{section}.{i + 1} {c}" for i, c in enumerate(clauses)))
    right, asked = rng.choice(rights), rng.randrange(2)
    question = rng.choice(RIGHTS[right][2]).format(P=parties[asked])
    return context, question, holders[right] == asked


def learn(ckpt, steps: int, source: str, lr: float, bf16: bool, seed: int) -> None:
    """Fine-tune ckpt.model in place (see the module docstring)."""
    from decider.engine.training.corpus import CorpusSpec

    spec = None if source == "probes" else CorpusSpec(
        split="train", mix=(("contracts", 1.0),), holders=1.0 if source == "holders" else 0.0, more_phrasings=True)
    probing.learn(ckpt, steps, spec, probe, start=31_000_000, lr=lr, bf16=bf16, seed=seed)


def main() -> int:
    return probing.cli(__doc__, probe, learn, ("holders", "family"), "rights")


if __name__ == "__main__":
    raise SystemExit(main())
