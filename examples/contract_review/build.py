"""Write requests.jsonl: contract excerpts in decider-small's decision language
(docs/decision-language.md), each with 5 or 6 related questions and the review team's
rules as declared constraints; and expected.json, the answers that follow from each
excerpt (what check.py compares a batch output with). Deterministic: the same files
every time.

    python examples/contract_review/build.py
"""

import json
import random
from pathlib import Path

RISK = ["low", "medium", "high", "critical"]
ACTION = ["approve", "negotiate", "escalate", "reject"]
LAW = ["english", "irish", "french", "german"]


def yn(flag: bool) -> str:
    return "yes" if flag else "no"


def yes_no(id_, text):
    return {"id": id_, "text": text, "type": "BOOLEAN"}


def choice(id_, text, options):
    return {"id": id_, "text": text, "type": "CATEGORICAL", "options": options}


def lit(question, option):
    return {"question": question, "option": option}


def liability_cap(rng, k):
    """A capped clause with a signed schedule is low risk and approved."""
    a, b, c = rng.sample(range(1, 10), 3)
    capped, signed = rng.random() < 0.6, rng.random() < 0.6
    facts = [f"Clause {a} is {'' if capped else 'not '}capped.", f"Schedule {b} is {'' if signed else 'not '}signed.",
             f"By default, the risk level of clause {a} is high.",
             f"Unless stated otherwise, the review action of clause {a} is escalate.",
             f"If clause {a} is capped and schedule {b} is signed, then the risk level of clause {a} is low.",
             f"Whenever the risk level of clause {a} is low, the review action of clause {a} is approve.",
             f"If clause {a} is capped, then licence {c} is assignable."]
    rng.shuffle(facts)
    low = capped and signed
    expected = {"capped": yn(capped), "signed": yn(signed), "risk": "low" if low else "high",
                "action": "approve" if low else "escalate", "assignable": yn(capped)}
    return expected, {
        "request_id": f"cap-{k:02d}", "context": " ".join(facts),
        "questions": [yes_no("capped", f"Is clause {a} capped?"), yes_no("signed", f"Is schedule {b} signed?"),
                      choice("risk", f"What is the risk level of clause {a}?", RISK),
                      choice("action", f"What is the review action of clause {a}?", ACTION),
                      yes_no("assignable", f"Is licence {c} assignable?")],
        "constraints": [  # the review team's rules: nothing is approved unless it is capped
            {"name": "approve-needs-cap", "kind": "IMPLIES", "literals": [lit("action", "approve"), lit("capped", "yes")]},
            {"name": "high-risk-not-approved", "kind": "EXCLUDES", "literals": [lit("risk", "high"), lit("action", "approve")]}],
    }


def renewal(rng, k):
    """A renewable lease with a signed notice binds, which makes its warranty enforceable."""
    a, b, c = rng.sample(range(1, 10), 3)
    renewable, signed, irish = rng.random() < 0.6, rng.random() < 0.6, rng.random() < 0.5
    facts = [f"Lease {a} is {'' if renewable else 'not '}renewable.", f"Notice {b} is {'' if signed else 'not '}signed.",
             f"If lease {a} is renewable and notice {b} is signed, then lease {a} is binding.",
             f"When lease {a} is binding, warranty {c} is enforceable.",
             f"By default, the review action of lease {a} is negotiate.",
             f"If warranty {c} is enforceable, then the review action of lease {a} is approve.",
             f"The governing law of lease {a} is {'irish' if irish else 'english'}."]
    rng.shuffle(facts)
    binding = renewable and signed
    expected = {"renewable": yn(renewable), "notice_signed": yn(signed), "binding": yn(binding),
                "enforceable": yn(binding), "law": "irish" if irish else "english",
                "action": "approve" if binding else "negotiate"}
    return expected, {
        "request_id": f"lease-{k:02d}", "context": " ".join(facts),
        "questions": [yes_no("renewable", f"Is lease {a} renewable?"), yes_no("notice_signed", f"Is notice {b} signed?"),
                      yes_no("binding", f"Is lease {a} binding?"), yes_no("enforceable", f"Is warranty {c} enforceable?"),
                      choice("law", f"What is the governing law of lease {a}?", LAW),
                      choice("action", f"What is the review action of lease {a}?", ACTION)],
        "constraints": [
            {"name": "enforceable-needs-binding", "kind": "IMPLIES",
             "literals": [lit("enforceable", "yes"), lit("binding", "yes")]},
            {"name": "approve-needs-binding", "kind": "IMPLIES", "literals": [lit("action", "approve"), lit("binding", "yes")]}],
    }


def dispute(rng, k):
    """A disputed article is critical and escalated; an amended exhibit voids the annex."""
    a, b, c = rng.sample(range(1, 10), 3)
    disputed, amended, confidential = rng.random() < 0.5, rng.random() < 0.5, rng.random() < 0.5
    facts = [f"Article {a} is {'' if disputed else 'not '}disputed.", f"Exhibit {b} is {'' if amended else 'not '}amended.",
             f"Unless stated otherwise, the risk level of article {a} is medium.",
             f"If article {a} is disputed, then the risk level of article {a} is critical.",
             f"The review action of article {a} is approve unless a rule says otherwise.",
             f"If the risk level of article {a} is critical, then the review action of article {a} is escalate.",
             f"Whenever exhibit {b} is amended, annex {c} is void."]
    if confidential:
        facts.append(f"Annex {c} is confidential.")
    rng.shuffle(facts)
    expected = {"disputed": yn(disputed), "amended": yn(amended), "void": yn(amended),
                "confidential": yn(confidential), "risk": "critical" if disputed else "medium",
                "action": "escalate" if disputed else "approve"}
    return expected, {
        "request_id": f"dispute-{k:02d}", "context": " ".join(facts),
        "questions": [yes_no("disputed", f"Is article {a} disputed?"), yes_no("amended", f"Is exhibit {b} amended?"),
                      yes_no("void", f"Is annex {c} void?"), yes_no("confidential", f"Is annex {c} confidential?"),
                      choice("risk", f"What is the risk level of article {a}?", RISK),
                      choice("action", f"What is the review action of article {a}?", ACTION)],
        "constraints": [
            {"name": "critical-is-escalated", "kind": "IMPLIES", "literals": [lit("risk", "critical"), lit("action", "escalate")]},
            {"name": "void-follows-amendment", "kind": "EQUAL", "literals": [lit("void", "yes"), lit("amended", "yes")]}],
    }


def main() -> None:
    rng = random.Random(7)
    made = [make(rng, k) for k in range(1, 11) for make in (liability_cap, renewal, dispute)]
    here = Path(__file__).parent
    (here / "requests.jsonl").write_text("".join(json.dumps(r) + "\n" for _, r in made))
    expected = {r["request_id"]: answers for answers, r in made}
    (here / "expected.json").write_text(json.dumps(expected, indent=1) + "\n")
    print(f"wrote {len(made)} requests to {here / 'requests.jsonl'} and their answers to {here / 'expected.json'}")


if __name__ == "__main__":
    main()
